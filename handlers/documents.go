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

// Documents serves regulatory documents and certifications.
type Documents struct {
	*Base
	Org       *Org
	Documents *directory.Documents
	// The document and the certification types, for the forms' selects.
	DocumentTypes, CertificationTypes *directory.References
	Now                               func() time.Time // the day an expiry date is compared with
}

// List is the Documents tab (paged on the API).
func (h *Documents) List(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
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
		views.DocumentsTab(h.Shell(r, "Documents", "organisations", views.OrgCrumbs(&o, "Documents")...), views.DocumentsPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabDocuments), Docs: docs}))
}

// Get is one document.
func (h *Documents) Get(w http.ResponseWriter, r *http.Request) {
	d, err := h.Documents.GetDocument(r.Context(), PathParam(r, "orgID"), PathParam(r, "docID"))
	writeTagged(w, r, d, err)
}

// Form is the Add/Edit Document page: one page (the details do not
// depend on the type; issue 40: it was a two-step wizard), the type
// chosen in it (?DocumentType= chooses it beforehand).
func (h *Documents) Form(w http.ResponseWriter, r *http.Request) {
	o, d, ok := orgAndForm(h.Org, w, r, h.Documents.GetDocument, "docID", "Document", store.Document{DocumentType: r.URL.Query().Get("DocumentType")})
	if !ok {
		return
	}
	h.renderForm(w, r, http.StatusOK, views.DocumentForm{Doc: d}, o)
}

func (h *Documents) renderForm(w http.ResponseWriter, r *http.Request, status int, f views.DocumentForm, o store.Organisation) {
	d := f.Doc
	opts, err := typeOptions(r.Context(), h.DocumentTypes, d.DocumentType)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	title := "Add document"
	if d.DocumentID != "" {
		title = "Edit document"
	}
	Render(w, r, status, views.DocumentFormPage(h.Shell(r, title, "organisations", views.OrgFormCrumbs(&o, "Documents", paths.OrganisationTab(o.OrganisationID, "documents"), title)...),
		views.DocumentForm{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabDocuments), Doc: d, TypeOpts: opts, Errors: f.Errors, ExpiredWarning: f.ExpiredWarning}))
}

// typeOptions are the choices of the select of a type, cur selected.
func typeOptions(ctx context.Context, types *directory.References, cur string) ([]views.Option, error) {
	items, err := types.List(ctx)
	return views.TypeOptions(items, cur), err
}

// Save creates (POST …/documents) or replaces (PUT …/documents/{id}) a document.
func (h *Documents) Save(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
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
	if h.warnExpired(r, in, refused) {
		h.renderForm(w, r, http.StatusUnprocessableEntity, views.DocumentForm{Doc: in, ExpiredWarning: true,
			Errors: map[string]string{"DocumentExpiryDate": "This expiry date has passed: the document no longer holds. Correct the date, or choose Save anyway to record it as it is."}}, o)
		return
	}
	d, err := h.Documents.SaveDocument(r.Context(), h.actor(r), in, refused, func(cur store.Document) error { return CheckIfMatch(r, cur) })
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The " + d.DocumentType + " document " + views.SaveWord(id == "") + ".", Page: paths.OrganisationTab(o.OrganisationID, "documents"),
			Status: http.StatusOK, Body: d, ETag: d}.Created(id == "", paths.API(paths.Document(o.OrganisationID, d.DocumentID))))
	case inForm(r, err):
		h.renderForm(w, r, AsError(err).Status, views.DocumentForm{Doc: in, Errors: orMessage(err, "DocumentType")}, o)
	default:
		WriteError(w, r, err)
	}
}

// warnExpired reports whether the console's form must come back once
// before saving in (nothing else wrong with it): its expiry date, new or
// changed, has passed, and the person has not chosen "Save anyway"
// (SaveExpired=1). The API saves such a document without a word.
func (h *Documents) warnExpired(r *http.Request, in store.Document, refused map[string]string) bool {
	if r.PostForm == nil || WantsJSON(r) || r.PostForm.Get("SaveExpired") == "1" || len(refused) > 0 || len(in.Validate()) > 0 {
		return false
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	if !in.ExpiredOn(now()) {
		return false
	}
	if in.DocumentID != "" {
		cur, err := h.Documents.GetDocument(r.Context(), in.OrganisationID, in.DocumentID)
		if err == nil && cur.DocumentExpiryDate == in.DocumentExpiryDate {
			return false // already recorded as it is: editing its description asks nothing
		}
	}
	return true
}

// SetStatus is POST …/documents/{docID}/status: Status Withdrawn
// withdraws the document (kept, never deleted, left out of what needs
// renewing), Active makes it Active again.
func (h *Documents) SetStatus(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	var in struct {
		Status string `json:"Status"`
	}
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
		return
	}
	d, err := h.Documents.SetDocumentStatus(r.Context(), h.actor(r), o.OrganisationID, PathParam(r, "docID"), in.Status, func(cur store.Document) error { return CheckIfMatch(r, cur) })
	tab := paths.OrganisationTab(o.OrganisationID, "documents")
	if inForm(r, err) {
		h.Refused(w, r, "Not changed: ", tab)(AsError(err))
		return
	}
	flash := "The " + d.DocumentType + " document is Active again."
	if d.Status == directory.DocumentWithdrawn {
		flash = "The " + d.DocumentType + " document was withdrawn: it is kept, and no longer listed as needing renewal."
	}
	h.Saved(w, r, Saved{Err: err, Flash: flash, Page: tab, Status: http.StatusOK, Body: d, ETag: d})
}
