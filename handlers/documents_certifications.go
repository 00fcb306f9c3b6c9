package handlers

import (
	"net/http"
	"time"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// subject is the organisation of the URL and the application or
// authorisation server it names; false when it has answered.
func (h *Documents) subject(w http.ResponseWriter, r *http.Request) (store.Organisation, directory.CertificationSubject, bool) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return o, directory.CertificationSubject{}, false
	}
	s, err := h.Documents.Subject(r.Context(), o.OrganisationID, PathParam(r, "appID"), PathParam(r, "serverID"))
	if err != nil {
		WriteError(w, r, err)
		return o, s, false
	}
	return o, s, true
}

// ListCertifications is the certifications of an application or server.
func (h *Documents) ListCertifications(w http.ResponseWriter, r *http.Request) {
	o, s, ok := h.subject(w, r)
	if !ok {
		return
	}
	cs, err := h.Documents.ListCertifications(r.Context(), s.Type, s.ID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, http.StatusOK, cs, views.CertificationsPage(h.Shell(r, "Certifications", "organisations", views.CertificationCrumbs(&o, s)...),
		views.CertificationsView{OrgPage: views.NewOrgPage(h.Vocab, o, views.SubjectTab(s)), SubjectName: s.Name, Path: views.CertificationsPath(o.OrganisationID, s), Certs: cs}))
}

// OrgCertifications is the Certifications tab of an organisation: the
// certifications of all its applications and authorisation servers, and
// links to add one to each of them.
func (h *Documents) OrgCertifications(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	cs, err := h.Documents.OrgCertifications(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	RespondPage(w, r, http.StatusOK, cs, func() (templ.Component, error) {
		holders, err := h.Documents.Holders(r.Context(), o.OrganisationID)
		return views.OrgCertificationsTab(h.Shell(r, o.OrganisationName+": certifications", "organisations", views.OrgCrumbs(&o, "Certifications")...),
			views.OrgCertificationsPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabCertifications), Certs: cs, Today: time.Now().UTC(), Holders: views.CertHolders(o.OrganisationID, holders)}), err
	})
}

// GetCertification is one certification.
func (h *Documents) GetCertification(w http.ResponseWriter, r *http.Request) {
	_, s, ok := h.subject(w, r)
	if !ok {
		return
	}
	c, err := h.Documents.GetCertification(r.Context(), s.Type, s.ID, PathParam(r, "certID"))
	writeTagged(w, r, c, err)
}

// CertificationForm is the Add (…/new) or Edit (…/{certID}/edit)
// Certification page.
func (h *Documents) CertificationForm(w http.ResponseWriter, r *http.Request) {
	o, s, ok := h.subject(w, r)
	if !ok {
		return
	}
	c, err := store.Certification{Status: "Active"}, error(nil)
	if cid := PathParam(r, "certID"); cid != "" {
		if c, err = h.Documents.GetCertification(r.Context(), s.Type, s.ID, cid); err != nil {
			WriteError(w, r, err)
			return
		}
	}
	h.renderCertForm(w, r, http.StatusOK, o, s, c, nil)
}

// renderCertForm is the Add or Edit Certification page with c and errs
// beside its fields.
func (h *Documents) renderCertForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, s directory.CertificationSubject, c store.Certification, errs map[string]string) {
	opts, err := typeOptions(r.Context(), h.CertificationTypes, c.CertificationType)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	path := views.CertificationsPath(o.OrganisationID, s)
	crumbs := views.CertificationCrumbs(&o, s)
	crumbs[len(crumbs)-1].Href = path
	title := "Add certification"
	if c.CertificationID != "" {
		title = "Edit certification"
	}
	crumbs = append(crumbs, views.Crumb{Label: title})
	Render(w, r, status, views.CertificationFormPage(h.Shell(r, title, "organisations", crumbs...),
		views.CertificationForm{SubjectName: s.Name, Path: path, Cert: c, TypeOpts: opts, Errors: errs}))
}

// SaveCertification creates or replaces a certification.
func (h *Documents) SaveCertification(w http.ResponseWriter, r *http.Request) {
	o, s, ok := h.subject(w, r)
	if !ok {
		return
	}
	var in store.Certification
	cid := PathParam(r, "certID")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Certification, error) {
		return h.Documents.GetCertification(r.Context(), s.Type, s.ID, cid)
	}))
	if !ok {
		return
	}
	in.OrganisationID, in.SubjectType, in.SubjectID, in.CertificationID = o.OrganisationID, s.Type, s.ID, cid
	c, err := h.Documents.SaveCertification(r.Context(), h.actor(r), in, refused, func(cur store.Certification) error { return CheckIfMatch(r, cur) })
	page := views.CertificationsPath(o.OrganisationID, s)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The " + c.CertificationType + " certification " + views.SaveWord(cid == "") + ".", Page: page,
			Status: http.StatusOK, Body: c, ETag: c}.Created(cid == "", "/api"+page+"/"+c.CertificationID))
	case inForm(r, err):
		if in.Status == "" && cid == "" {
			in.Status = "Active" // as the layer read it
		}
		h.renderCertForm(w, r, AsError(err).Status, o, s, in, orMessage(err, "CertificationType"))
	default:
		WriteError(w, r, err)
	}
}
