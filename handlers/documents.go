package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// documentStore is what Documents reads besides its use cases: the
// organisation, the holders of certifications and the type choices.
type documentStore interface {
	GetOrganisation(ctx context.Context, id string) (store.Organisation, error)
	ListRefs(ctx context.Context, k store.RefKind) ([]store.ReferenceItem, error)
	GetAuthorisationServer(ctx context.Context, orgID, id string) (store.AuthorisationServer, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
	ListOrganisationCertifications(ctx context.Context, orgID string) ([]store.OrgCertification, error)
	ListSoftwareStatements(ctx context.Context, orgID string) ([]store.SoftwareStatement, error)
	ListAuthorisationServers(ctx context.Context, orgID string) ([]store.AuthorisationServer, error)
}

// Documents serves regulatory documents and certifications.
type Documents struct {
	*Base
	Org       *Org
	Documents *directory.Documents
	Store     documentStore
}

func (h *Documents) org(w http.ResponseWriter, r *http.Request) (store.Organisation, bool) {
	o, err := h.Store.GetOrganisation(r.Context(), PathParam(r, "orgID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Organisation"))
		return o, false
	}
	return o, true
}

// List is the Documents tab (paged on the API).
func (h *Documents) List(w http.ResponseWriter, r *http.Request) {
	o, ok := h.org(w, r)
	if !ok {
		return
	}
	page, size, err := PageParams(r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if !WantsJSON(r) {
		page, size = 0, 200
	}
	docs, total, err := h.Documents.ListDocuments(r.Context(), o.OrganisationID, page, size)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, http.StatusOK, NewPaged(docs, page, size, total),
		views.DocumentsTab(h.Shell(r, "Documents", "organisations", h.Org.orgCrumbs(&o, "Documents")...), views.DocumentsPage{OrgPage: h.Org.orgPage(o, views.TabDocuments), Docs: docs}))
}

// Get is one document.
func (h *Documents) Get(w http.ResponseWriter, r *http.Request) {
	d, err := h.Documents.GetDocument(r.Context(), PathParam(r, "orgID"), PathParam(r, "docID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	SetETag(w, d)
	WriteJSON(w, http.StatusOK, d)
}

// Wizard is the Add/Edit Document wizard: type first, then the details.
func (h *Documents) Wizard(w http.ResponseWriter, r *http.Request) {
	o, ok := h.org(w, r)
	if !ok {
		return
	}
	d := store.Document{DocumentType: r.URL.Query().Get("DocumentType")}
	if id := PathParam(r, "docID"); id != "" {
		var err error
		if d, err = h.Documents.GetDocument(r.Context(), o.OrganisationID, id); err != nil {
			WriteError(w, r, err)
			return
		}
	} else if r.URL.Query().Has("DocumentType") {
		// The type step validates what it shows: an Active document type.
		if ok, err := h.activeDocumentType(r, d.DocumentType); err != nil {
			WriteError(w, r, err)
			return
		} else if !ok {
			h.renderWizard(w, r, http.StatusUnprocessableEntity, o, store.Document{}, map[string]string{"DocumentType": "Choose one of the document types, then Next."})
			return
		}
	}
	h.renderWizard(w, r, http.StatusOK, o, d, nil)
}

// activeDocumentType reports whether name is an Active document type.
func (h *Documents) activeDocumentType(r *http.Request, name string) (bool, error) {
	types, err := h.Store.ListRefs(r.Context(), store.DocumentTypes)
	if err != nil {
		return false, err
	}
	for _, t := range types {
		if t.Name == name && t.Status == "Active" {
			return true, nil
		}
	}
	return false, nil
}

func (h *Documents) renderWizard(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, d store.Document, errs map[string]string) {
	types, err := h.Store.ListRefs(r.Context(), store.DocumentTypes)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	var opts []views.Option
	for _, t := range types {
		if t.Status == "Active" || t.Name == d.DocumentType {
			opts = append(opts, views.Option{Value: t.Name, Label: t.Name, Selected: t.Name == d.DocumentType})
		}
	}
	Render(w, r, status, views.DocumentWizard(h.Shell(r, "Document", "organisations", h.Org.orgCrumbs(&o, "Document")...),
		views.DocumentForm{OrgPage: h.Org.orgPage(o, views.TabDocuments), Doc: d, TypeOpts: opts, Errors: errs}))
}

// Save creates (POST …/documents) or replaces (PUT …/documents/{id}) a document.
func (h *Documents) Save(w http.ResponseWriter, r *http.Request) {
	o, ok := h.org(w, r)
	if !ok {
		return
	}
	var in store.Document
	id := PathParam(r, "docID")
	// A new document (no id) has nothing stored: its read fails.
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Document, error) { return h.Documents.GetDocument(r.Context(), o.OrganisationID, id) }))
	if !ok {
		return
	}
	in.OrganisationID, in.DocumentID = o.OrganisationID, id
	d, err := h.Documents.SaveDocument(r.Context(), h.Org.actor(r), in, refused, func(cur store.Document) error { return CheckIfMatch(r, cur) })
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The " + d.DocumentType + " document was saved.", Page: paths.OrganisationTab(o.OrganisationID, "documents"),
			Status: http.StatusOK, Body: d, ETag: d}.Created(id == "", paths.API(paths.Document(o.OrganisationID, d.DocumentID))))
	case inForm(r, err):
		h.renderWizard(w, r, AsError(err).Status, o, in, orMessage(err, "DocumentType"))
	default:
		WriteError(w, r, err)
	}
}

// subject resolves the application or authorisation server of the URL.
func (h *Documents) subject(w http.ResponseWriter, r *http.Request) (store.Organisation, string, string, string, bool) {
	o, ok := h.org(w, r)
	if !ok {
		return o, "", "", "", false
	}
	if id := PathParam(r, "appID"); id != "" {
		a, err := h.Store.GetSoftwareStatement(r.Context(), o.OrganisationID, id)
		if err != nil {
			WriteError(w, r, directory.Named(err, "Application"))
			return o, "", "", "", false
		}
		return o, "SoftwareStatement", id, a.ClientName, true
	}
	id := PathParam(r, "serverID")
	s, err := h.Store.GetAuthorisationServer(r.Context(), o.OrganisationID, id)
	if err != nil {
		WriteError(w, r, directory.Named(err, "Authorisation server"))
		return o, "", "", "", false
	}
	return o, "AuthorisationServer", id, s.CustomerFriendlyName, true
}

func subjectPath(o store.Organisation, typ, id string) string {
	if typ == "SoftwareStatement" {
		return paths.Application(o.OrganisationID, id) + "/certifications"
	}
	return paths.Server(o.OrganisationID, id) + "/certifications"
}

// ListCertifications is the certifications of an application or server.
func (h *Documents) ListCertifications(w http.ResponseWriter, r *http.Request) {
	o, typ, id, name, ok := h.subject(w, r)
	if !ok {
		return
	}
	cs, err := h.Documents.ListCertifications(r.Context(), typ, id)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, http.StatusOK, cs, views.CertificationsPage(h.Shell(r, "Certifications", "organisations", h.Org.orgCrumbs(&o, name)...),
		views.CertificationsView{OrgPage: h.Org.orgPage(o, tabOf(typ)), SubjectName: name, Path: subjectPath(o, typ, id), Certs: cs}))
}

func tabOf(typ string) string {
	if typ == "SoftwareStatement" {
		return views.TabApplications
	}
	return views.TabServers
}

// OrgCertifications is the Certifications tab of an organisation: the
// certifications of all its applications and authorisation servers.
func (h *Documents) OrgCertifications(w http.ResponseWriter, r *http.Request) {
	o, ok := h.org(w, r)
	if !ok {
		return
	}
	cs, err := h.Store.ListOrganisationCertifications(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if HTMLPage(w, r, func() {
		holders, err := h.certHolders(r.Context(), o.OrganisationID)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		Render(w, r, http.StatusOK, views.OrgCertificationsTab(h.Shell(r, o.OrganisationName+": certifications", "organisations", h.Org.orgCrumbs(&o, "Certifications")...),
			views.OrgCertificationsPage{OrgPage: h.Org.orgPage(o, views.TabCertifications), Certs: cs, Today: time.Now().UTC(), Holders: holders}))
	}) {
		return
	}
	Respond(w, r, http.StatusOK, cs, nil)
}

// certHolders are the organisation's applications and authorisation
// servers, each with its certifications page (the Certifications tab links
// to the form that adds one).
func (h *Documents) certHolders(ctx context.Context, orgID string) ([]views.CertHolder, error) {
	apps, err := h.Store.ListSoftwareStatements(ctx, orgID)
	if err != nil {
		return nil, err
	}
	servers, err := h.Store.ListAuthorisationServers(ctx, orgID)
	if err != nil {
		return nil, err
	}
	var out []views.CertHolder
	for _, a := range apps {
		out = append(out, views.CertHolder{Name: a.ClientName, Kind: "application", Href: paths.Application(orgID, a.SoftwareStatementID) + "/certifications"})
	}
	for _, s := range servers {
		out = append(out, views.CertHolder{Name: s.CustomerFriendlyName, Kind: "authorisation server", Href: paths.Server(orgID, s.AuthorisationServerID) + "/certifications"})
	}
	return out, nil
}

// GetCertification is one certification.
func (h *Documents) GetCertification(w http.ResponseWriter, r *http.Request) {
	_, typ, id, _, ok := h.subject(w, r)
	if !ok {
		return
	}
	c, err := h.Documents.GetCertification(r.Context(), typ, id, PathParam(r, "certID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	SetETag(w, c)
	WriteJSON(w, http.StatusOK, c)
}

// CertificationForm is the Add/Edit Certification modal.
func (h *Documents) CertificationForm(w http.ResponseWriter, r *http.Request) {
	o, typ, id, name, ok := h.subject(w, r)
	if !ok {
		return
	}
	c := store.Certification{Status: "Active"}
	if cid := PathParam(r, "certID"); cid != "" {
		var err error
		if c, err = h.Documents.GetCertification(r.Context(), typ, id, cid); err != nil {
			WriteError(w, r, err)
			return
		}
	}
	h.renderCertForm(w, r, http.StatusOK, o, typ, id, name, c, nil)
}

func (h *Documents) renderCertForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, typ, id, name string, c store.Certification, errs map[string]string) {
	types, err := h.Store.ListRefs(r.Context(), store.CertificationTypes)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	var opts []views.Option
	for _, t := range types {
		if t.Status == "Active" || t.Name == c.CertificationType {
			opts = append(opts, views.Option{Value: t.Name, Label: t.Name, Selected: t.Name == c.CertificationType})
		}
	}
	// The dialog sits over the list it belongs to.
	list, err := h.Documents.ListCertifications(r.Context(), typ, id)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, status, views.CertificationModal(h.Shell(r, "Certification", "organisations", h.Org.orgCrumbs(&o, name)...),
		views.CertificationForm{OrgPage: h.Org.orgPage(o, tabOf(typ)), SubjectName: name, Path: subjectPath(o, typ, id), Cert: c, Certs: list, TypeOpts: opts, Errors: errs}))
}

// SaveCertification creates or replaces a certification.
func (h *Documents) SaveCertification(w http.ResponseWriter, r *http.Request) {
	o, typ, id, name, ok := h.subject(w, r)
	if !ok {
		return
	}
	var in store.Certification
	cid := PathParam(r, "certID")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Certification, error) { return h.Documents.GetCertification(r.Context(), typ, id, cid) }))
	if !ok {
		return
	}
	in.OrganisationID, in.SubjectType, in.SubjectID, in.CertificationID = o.OrganisationID, typ, id, cid
	c, err := h.Documents.SaveCertification(r.Context(), h.Org.actor(r), in, refused, func(cur store.Certification) error { return CheckIfMatch(r, cur) })
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The " + c.CertificationType + " certification was saved.", Page: subjectPath(o, typ, id),
			Status: http.StatusOK, Body: c, ETag: c}.Created(cid == "", "/api"+subjectPath(o, typ, id)+"/"+c.CertificationID))
	case inForm(r, err):
		if in.Status == "" && cid == "" {
			in.Status = "Active" // as the layer read it
		}
		h.renderCertForm(w, r, AsError(err).Status, o, typ, id, name, in, orMessage(err, "CertificationType"))
	default:
		WriteError(w, r, err)
	}
}
