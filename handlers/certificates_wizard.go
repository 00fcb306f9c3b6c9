package handlers

import (
	"encoding/json"
	"net/http"

	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

func (h *Certificates) renderWizard(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, wz views.CertWizard) {
	types, err := h.Certs.Types(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	wz.Types = types
	wz.OrgID = o.OrganisationID
	Render(w, r, status, views.CertificateWizard(h.Shell(r, "Upload a certificate", "organisations", views.OrgFormCrumbs(&o, "Certificates", paths.OrganisationTab(o.OrganisationID, "certificates"), "Upload a certificate")...),
		views.OrgPage{Org: h.Org.showOrg(o), Tab: views.TabCertificates}, wz))
}

// Wizard shows the steps of an upload: type, key and CSR, certificate.
func (h *Certificates) Wizard(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	q, err := r.URL.Query(), error(nil)
	if q.Get("type") != "" {
		_, err = h.Certs.ActiveType(r.Context(), q.Get("type"))
	}
	h.renderWizard(w, r, http.StatusOK, o, views.CertWizardAt(q.Get("type"), q.Get("step") == "type", err == nil))
}

// certReview is the certificate wizard's state between its review POST
// and the review page (post/redirect/get): the type and the PEM (a
// certificate, public), kept in the session.
type certReview struct {
	Type string `json:"type"`
	PEM  string `json:"pem"`
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
	if err == nil {
		err = h.Certs.Duplicate(r.Context(), pemText)
	}
	if err == nil {
		err = h.Certs.Theirs(r.Context(), h.actor(r), o.OrganisationID, pemText)
	}
	if e := AsError(err); err != nil && e.Status == http.StatusUnprocessableEntity {
		h.renderWizard(w, r, e.Status, o, views.CertWizard{Step: "upload", Type: r.FormValue("type"), Error: refusalText(e)})
		return
	} else if err != nil {
		WriteError(w, r, err)
		return
	}
	b, _ := json.Marshal(certReview{Type: r.FormValue("type"), PEM: pemText})
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
			Review: views.CertReviewOf(parsed)})
	case msg != "":
		h.renderWizard(w, r, http.StatusUnprocessableEntity, o, views.CertWizard{Step: "upload", Type: in.Type, PEM: shownPEM(in.PEM, err), Error: msg})
	default:
		h.renderWizard(w, r, http.StatusUnprocessableEntity, o, views.CertWizard{Step: "type", Error: "Choose one of the certificate types."})
	}
}
