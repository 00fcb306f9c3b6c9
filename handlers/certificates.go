package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/orgkeys"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// certReads is what Certificates reads besides its use cases: the audit
// pages, an application and the keystore.
type certReads interface {
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
	ListAudit(ctx context.Context, f store.AuditFilter) ([]store.AuditRecord, int, error)
	AuditActions(ctx context.Context, subjectType, subjectID string) ([]string, error)
	NamesForAudit(ctx context.Context, recs []store.AuditRecord) (store.AuditNames, error)
	OrganisationKeys(ctx context.Context, orgID string, active bool) ([]jsonRaw, error)
}

// Certificates serves organisation certificates, the keystore and the
// certificate audit views.
type Certificates struct {
	*Base
	Org   *Org
	Certs *directory.Certificates
	Store certReads
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
		p := views.CertsPage{OrgPage: h.Org.orgPage(o, views.TabCertificates), Certs: certs, Now: h.Certs.Now()}
		return views.CertificatesTab(h.Shell(r, "Certificates", "organisations", h.Org.orgCrumbs(&o, "Certificates")...), p), nil
	})
}

// Get is one certificate by kid.
func (h *Certificates) Get(w http.ResponseWriter, r *http.Request) {
	c, err := h.Certs.Get(r.Context(), PathParam(r, "orgID"), PathParam(r, "kid"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	SetETag(w, c)
	WriteJSON(w, http.StatusOK, c)
}

// readPEM takes the PEM from a raw PEM body, JSON {"PEM"} or a form (field
// PEM, or a file part named file).
func readPEM(w http.ResponseWriter, r *http.Request) (string, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-pem-file", "application/pkix-cert", "text/plain":
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
		if err != nil {
			return "", CodeTooLarge.New("the PEM is larger than 1 MiB")
		}
		return directory.CertificateText(b)
	case "multipart/form-data":
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		if err := r.ParseMultipartForm(MaxBody); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) || errors.Is(err, multipart.ErrMessageTooLarge) {
				return "", CodeTooLarge.New("the upload is larger than 1 MiB")
			}
			return "", CodeMalformedForm.New("the upload could not be read (at most 1 MiB)")
		}
		if f, _, err := r.FormFile("file"); err == nil {
			defer f.Close()
			b, _ := io.ReadAll(io.LimitReader(f, MaxBody))
			if len(strings.TrimSpace(string(b))) > 0 {
				return directory.CertificateText(b)
			}
		}
		return r.FormValue("PEM"), nil
	default:
		var in struct {
			PEM string `json:"PEM" text:"raw"`
		}
		if err := Decode(w, r, &in); err != nil {
			return "", err
		}
		return in.PEM, nil
	}
}

// Upload is POST …/certificates/{type}: check and store a certificate.
func (h *Certificates) Upload(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	typ := PathParam(r, "certType")
	pemText, err := readPEM(w, r)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	c, err := h.Certs.Upload(r.Context(), h.Org.actor(r), o.OrganisationID, typ, pemText)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The " + typ + " certificate " + c.Kid + " was uploaded.", Page: paths.OrganisationTab(o.OrganisationID, "certificates"),
			Status: http.StatusCreated, Body: c, ETag: c, Location: paths.API(paths.Certificate(o.OrganisationID, c.Kid))})
	case shownInPage(r, err):
		e := AsError(err)
		h.renderWizard(w, r, e.Status, o, views.CertWizard{Step: "upload", Type: typ, PEM: shownPEM(pemText, err), Error: refusalText(e)})
	default:
		WriteError(w, r, err)
	}
}

// refusalText is a refusal said in one line, away from its fields (at the
// top of a page, in a flash): the message of each field, or the refusal's
// own. A message FormRefusal wrote to stand beside its field ("This field
// …") is said with the field's name instead.
func refusalText(e *Error) string {
	var parts []string
	for _, f := range e.Fields {
		msg := f.Message
		if rest, ok := strings.CutPrefix(msg, "This field "); ok && f.Field != "" {
			msg = f.Field + " " + rest
		}
		parts = append(parts, msg)
	}
	if len(parts) == 0 {
		return e.Message
	}
	return strings.Join(parts, " ")
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
	err := h.Certs.Revoke(r.Context(), h.Org.actor(r), orgID, kid, in.RevokeReason, refused, func(cur store.Certificate) error { return CheckIfMatch(r, cur) })
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
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	c, err := h.Certs.Get(r.Context(), o.OrganisationID, PathParam(r, "kid"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, status, views.RevokeCertificate(h.Shell(r, "Revoke certificate", "organisations", h.Org.orgCrumbs(&o, "Revoke certificate")...),
		views.OrgPage{Org: h.Org.showOrg(o), Tab: views.TabCertificates}, c, orgkeys.RevokeReasons, reason, errMsg))
}

// DescriptionRemoved answers the update of a certificate description,
// removed in release 2.6.0.
func (h *Certificates) DescriptionRemoved(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, CodeRemovedIn260.New("Updating an organisation certificate's description was removed in release 2.6.0. Certificates are immutable: "+
		"revoke with PUT /organisations/{OrganisationId}/certificates/kid/{CertificateOrKeyId} and upload a new one, "+
		"or describe keys with the key material API (/organisations/{OrganisationId}/key-material)."))
}

func (h *Certificates) renderWizard(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, wz views.CertWizard) {
	types, err := h.Certs.Types(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	wz.Types = types
	wz.OrgID = o.OrganisationID
	Render(w, r, status, views.CertificateWizard(h.Shell(r, "Upload a certificate", "organisations", h.Org.orgCrumbs(&o, "Upload a certificate")...),
		views.OrgPage{Org: h.Org.showOrg(o), Tab: views.TabCertificates}, wz))
}

// Wizard shows the steps of an upload: type, key and CSR, certificate.
func (h *Certificates) Wizard(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	typ := r.URL.Query().Get("type")
	wz := views.CertWizard{Step: "type"}
	if typ == "" && r.URL.Query().Get("step") == "type" {
		wz.Error = "Choose a certificate type, then Next."
	}
	if typ != "" {
		if _, err := h.Certs.ActiveType(r.Context(), typ); err != nil {
			wz.Error = "Choose one of the certificate types."
		} else {
			wz.Step, wz.Type = "upload", typ
		}
	}
	h.renderWizard(w, r, http.StatusOK, o, wz)
}

// certReview is the certificate wizard's state between its review POST
// and the review page (post/redirect/get): the type and the PEM (a
// certificate, public), kept in the session.
type certReview struct {
	Type string `json:"type"`
	PEM  string `json:"pem"`
}

// shownPEM is what a refused upload form shows in its PEM field: what was
// sent, but nothing when it was refused for holding a private key.
func shownPEM(pemText string, err error) string {
	if errors.Is(err, directory.ErrHoldsPrivateKey) {
		return ""
	}
	return pemText
}

// Review takes the pasted or uploaded certificate and redirects to the
// review page (post/redirect/get), so Back and Forward never send the
// form again.
func (h *Certificates) Review(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	pemText, err := readPEM(w, r)
	if err == nil {
		err = h.Certs.Reviewable(pemText)
	}
	if e := AsError(err); err != nil && e.Status == http.StatusUnprocessableEntity {
		h.renderWizard(w, r, e.Status, o, views.CertWizard{Step: "upload", Type: r.FormValue("type"), Error: refusalText(e)})
		return
	} else if err != nil {
		WriteError(w, r, err)
		return
	}
	b, _ := jsonMarshal(certReview{Type: r.FormValue("type"), PEM: pemText})
	h.Flash.Stash(r.Context(), "cert-review:"+o.OrganisationID, string(b))
	Redirect(w, r, paths.OrganisationTab(o.OrganisationID, "certificates")+"/new/review")
}

// ReviewPage shows the certificate before the upload is confirmed; a
// certificate that does not parse goes back to the upload step with the
// message beside the PEM field.
func (h *Certificates) ReviewPage(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	var in certReview
	raw := h.Flash.Stashed(r.Context(), "cert-review:"+o.OrganisationID)
	if raw == "" || json.Unmarshal([]byte(raw), &in) != nil {
		Redirect(w, r, paths.OrganisationTab(o.OrganisationID, "certificates")+"/new")
		return
	}
	parsed, err := h.Certs.Check(r.Context(), in.Type, in.PEM)
	switch msg := FieldMap(err)["PEM"]; {
	case err == nil:
		h.renderWizard(w, r, http.StatusOK, o, views.CertWizard{Step: "review", Type: in.Type, PEM: in.PEM,
			Review: &views.CertReview{Kid: parsed.Kid, Subject: parsed.SubjectDN, Issuer: parsed.IssuerDN, Serial: parsed.Serial,
				NotBefore: parsed.Cert.NotBefore, NotAfter: parsed.Cert.NotAfter}})
	case msg != "":
		h.renderWizard(w, r, http.StatusUnprocessableEntity, o, views.CertWizard{Step: "upload", Type: in.Type, PEM: shownPEM(in.PEM, err), Error: msg})
	default:
		h.renderWizard(w, r, http.StatusUnprocessableEntity, o, views.CertWizard{Step: "type", Error: "Choose one of the certificate types."})
	}
}

// Audit is the certificates' Audit sub-tab: filters kept in the URL.
func (h *Certificates) Audit(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	page, size, err := PageParams(q)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f := store.AuditFilter{SubjectType: "OrganisationCertificate", OrganisationID: o.OrganisationID, KeyID: q.Get("KeyId"),
		CertificateType: q.Get("CertificateType"), Action: q.Get("Action"), Page: page, Size: size}
	recs, total, err := h.Store.ListAudit(r.Context(), f)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	types, _ := h.Certs.Types(r.Context())
	names, err := h.Store.NamesForAudit(r.Context(), recs)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	actions, err := h.Store.AuditActions(r.Context(), "OrganisationCertificate", "")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	path := paths.OrganisationTab(o.OrganisationID, "certificates") + "/audit"
	env := NewPaged(recs, page, size, total)
	p := views.CertAuditPage{OrgPage: h.Org.orgPage(o, views.TabCertificates), Records: recs, Entries: views.AuditEntries(recs, names), Actions: actions, Total: total, KeyID: f.KeyID,
		CertificateType: f.CertificateType, Action: f.Action, Types: types, Path: path}
	p.ClearActionURL, p.PrevURL, p.NextURL = auditNav(path, q, page, env.TotalPages)
	Respond(w, r, http.StatusOK, env, views.CertificateAudit(h.Shell(r, "Certificate audit", "organisations", h.Org.orgCrumbs(&o, "Certificate audit")...), p))
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
		b, _ := jsonMarshal(map[string]any{"keys": keys})
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", "public, max-age=60")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write(b)
	}
}

// AppAudit is an application's Audit tab: its changes and the SSAs issued.
func (h *Certificates) AppAudit(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	app, err := h.Store.GetSoftwareStatement(r.Context(), o.OrganisationID, PathParam(r, "appID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Application"))
		return
	}
	q := r.URL.Query()
	page, size, err := PageParams(q)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f := store.AuditFilter{SubjectType: "Application", SubjectID: app.SoftwareStatementID, Action: q.Get("Action"), KeyID: q.Get("KeyId"), Page: page, Size: size}
	recs, total, err := h.Store.ListAudit(r.Context(), f)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	env := NewPaged(recs, page, size, total)
	RespondPage(w, r, http.StatusOK, env, func() (templ.Component, error) {
		names, err := h.Store.NamesForAudit(r.Context(), recs)
		if err != nil {
			return nil, err
		}
		actions, err := h.Store.AuditActions(r.Context(), "Application", app.SoftwareStatementID)
		if err != nil {
			return nil, err
		}
		path := paths.Application(o.OrganisationID, app.SoftwareStatementID) + "/audit"
		p := views.AppAuditPage{OrgPage: h.Org.orgPage(o, views.TabApplications), App: app, Records: recs, Entries: views.AuditEntries(recs, names),
			Actions: actions, Total: total, KeyID: f.KeyID, Action: f.Action, Path: path}
		p.ClearActionURL, p.PrevURL, p.NextURL = auditNav(path, q, page, env.TotalPages)
		return views.AppAudit(h.Shell(r, "Application audit", "organisations", h.Org.orgCrumbs(&o, app.ClientName)...), p), nil
	})
}

// auditNav is the links of the audit list at path asked with q: the list
// without its Action filter, and the pages before and after page.
func auditNav(path string, q url.Values, page, totalPages int) (clearAction, prev, next string) {
	clear := url.Values{}
	for k, vs := range q {
		if k != "Action" && k != "page" {
			clear[k] = vs
		}
	}
	if page > 0 {
		prev = PageLink(path, q, PrevPage(page, totalPages))
	}
	if page+1 < totalPages {
		next = PageLink(path, q, page+1)
	}
	return path + "?" + clear.Encode(), prev, next
}
