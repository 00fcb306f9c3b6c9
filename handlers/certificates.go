package handlers

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/orgkeys"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// certReads is what Certificates reads besides its use cases: an
// application and the keystore.
type certReads interface {
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
	OrganisationKeys(ctx context.Context, orgID string, active bool) ([]json.RawMessage, error)
}

// Certificates serves organisation certificates, the keystore and the
// certificate audit views.
type Certificates struct {
	*Base
	Org   *Org
	Certs *directory.Certificates
	Log   *directory.AuditLog
	Store certReads
	// Issuing is the directory's CA issuing certificates (docs/design.md
	// §18); its CA is nil while --pki is off.
	Issuing *directory.Issuance
}

// List is GET …/certificates and …/certificates/{type}.
func (h *Certificates) List(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	certs, err := h.Certs.List(r.Context(), o.OrganisationID, PathParam(r, "certType"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	RespondPage(w, r, http.StatusOK, certs, func() (templ.Component, error) {
		p := views.CertsPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabCertificates), Certs: certs, Now: h.Certs.Now()}
		return views.CertificatesTab(h.Shell(r, "Certificates", "organisations", views.OrgCrumbs(&o, "Certificates")...), p), nil
	})
}

// Get is one certificate by kid.
func (h *Certificates) Get(w http.ResponseWriter, r *http.Request) {
	c, err := h.Certs.Get(r.Context(), PathParam(r, "orgID"), PathParam(r, "kid"))
	writeTagged(w, r, c, err)
}

// AppGet is GET …/softwarestatements/{appID}/certificates/kid/{kid}: one
// certificate of the application, as Get answers it; where the issuing
// answer's Location points.
func (h *Certificates) AppGet(w http.ResponseWriter, r *http.Request) {
	c, err := h.Certs.OfApplication(r.Context(), PathParam(r, "orgID"), PathParam(r, "appID"), PathParam(r, "kid"))
	writeTagged(w, r, c, err)
}

// Revoke is PUT …/certificates/kid/{kid} {"RevokeReason"}: 204.
func (h *Certificates) Revoke(w http.ResponseWriter, r *http.Request) {
	orgID, kid := PathParam(r, "orgID"), PathParam(r, "kid")
	var in struct {
		RevokeReason string `json:"RevokeReason"`
	}
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	appID := PathParam(r, "appID") // revoked under its application: one of its certificates
	err := h.Certs.Revoke(r.Context(), h.actor(r), orgID, kid, in.RevokeReason, refused, func(cur store.Certificate) error {
		if appID != "" && cur.SoftwareStatementID != appID {
			return directory.NotFound("Certificate")
		}
		return CheckIfMatch(r, cur)
	})
	page := paths.OrganisationTab(orgID, "certificates")
	switch msg := FieldMap(err)["RevokeReason"]; {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Certificate " + kid + " was revoked (" + in.RevokeReason + ").", Page: page, Status: http.StatusNoContent})
	case !inForm(r, err):
		WriteError(w, r, err)
	case msg != "":
		// A refused reason is shown beside it on the confirmation page.
		h.revokePage(w, r, AsError(err).Status, in.RevokeReason, msg)
	default:
		// Anything else (already revoked) is a flash on the tab.
		h.Flash.Refuse(r.Context(), "Not revoked: "+refusalText(AsError(err)))
		Redirect(w, r, page)
	}
}

// RevokeConfirm is the confirmation step of a revocation in the browser.
func (h *Certificates) RevokeConfirm(w http.ResponseWriter, r *http.Request) {
	h.revokePage(w, r, http.StatusOK, "", "")
}

// revokePage is the confirmation step with reason chosen, and errMsg
// beside it when the reason was refused.
func (h *Certificates) revokePage(w http.ResponseWriter, r *http.Request, status int, reason, errMsg string) {
	o, c, ok := orgAndItem(h.Org, w, r, h.Certs.Get, "kid", "Certificate")
	if !ok {
		return
	}
	Render(w, r, status, views.RevokeCertificate(h.Shell(r, "Revoke certificate", "organisations", views.OrgCrumbs(&o, "Revoke certificate")...),
		views.OrgPage{Org: h.Org.showOrg(o), Tab: views.TabCertificates}, c, orgkeys.RevokeReasons, reason, errMsg))
}

// DescriptionRemoved answers the update of a certificate description,
// removed in release 2.6.0.
func (h *Certificates) DescriptionRemoved(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, CodeRemovedIn260.New("Updating an organisation certificate's description was removed in release 2.6.0. Certificates are immutable: "+
		"revoke with PUT /organisations/{OrganisationId}/certificates/kid/{CertificateOrKeyId} and upload a new one, "+
		"or describe keys with the key material API (/organisations/{OrganisationId}/key-material)."))
}

// Keystore is GET /keystore/{orgID}/application.jwks (active keys) and
// …/inactive/application.jwks (revoked and expired).
func (h *Certificates) Keystore(active bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		keys, err := h.Store.OrganisationKeys(r.Context(), PathParam(r, "orgID"), active)
		if err != nil {
			// A keystore is for machines: its errors are problem+json
			// whatever Accept says (as under /api).
			r = r.Clone(r.Context())
			r.Header.Set("Accept", "application/json")
			WriteError(w, r, directory.Named(err, "Organisation"))
			return
		}
		b, _ := json.Marshal(map[string]any{"keys": keys})
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", "public, max-age=60")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write(b)
	}
}
