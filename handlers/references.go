package handlers

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// RefTypes serves one kind of name/description/status reference data:
// contact types, document types, certification types.
type RefTypes struct {
	*Base
	Refs  *directory.References
	Title string // "Contact types"
	Path  string // "/references/contact-types"
}

// referenceShell is the layout of a Reference Data page of section (at
// path), with last below it in the breadcrumbs.
func (b *Base) referenceShell(r *http.Request, title, section, path string, last ...views.Crumb) views.Shell {
	return b.Shell(r, title, "reference", views.ReferenceCrumbs(section, path, last...)...)
}

// named is p with the kind's title, label and path.
func (h *RefTypes) named(p views.RefPage) views.RefPage {
	p.Title, p.Label, p.Path = h.Title, strings.ToLower(h.Refs.Kind.Label), h.Path
	return p
}

func (h *RefTypes) page(w http.ResponseWriter, r *http.Request, status int, p views.RefPage) {
	items, err := h.Refs.List(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p.Items = items
	Render(w, r, status, views.RefList(h.referenceShell(r, h.Title, h.Title, h.Path), h.named(p)))
}

// New is the form that adds an item; a refused one comes back to it.
func (h *RefTypes) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, views.RefPage{})
}

func (h *RefTypes) newPage(w http.ResponseWriter, r *http.Request, status int, p views.RefPage) {
	p = h.named(p)
	title := "Add " + p.Label
	Render(w, r, status, views.RefNew(h.referenceShell(r, title, h.Title, h.Path, views.Crumb{Label: title}), p))
}

// List lists the items.
func (h *RefTypes) List(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() { h.page(w, r, http.StatusOK, views.RefPage{}) }, h.Refs.List)
}

// Get is one item.
func (h *RefTypes) Get(w http.ResponseWriter, r *http.Request) {
	it, err := h.Refs.Get(r.Context(), PathParam(r, "name"))
	writeTagged(w, r, it, err)
}

// Create adds an item; the browser is shown every refusal in the form.
func (h *RefTypes) Create(w http.ResponseWriter, r *http.Request) {
	var in store.ReferenceItem
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	it, err := h.Refs.Create(r.Context(), h.actor(r), in, refused)
	if e := AsError(err); err != nil && !WantsJSON(r) && e.Status < 500 {
		h.newPage(w, r, e.Status, views.RefPage{Form: in, Errors: orMessage(err, "Name")})
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: h.Refs.Kind.Label + " " + it.Name + " " + views.SaveWord(true) + ".", Page: h.Path,
		Status: http.StatusCreated, Body: it, ETag: it, Location: "/api" + h.Path + "/" + url.PathEscape(it.Name)})
}

// Update changes an item's description or status; disabling a
// certification type held by active subjects is a 409 naming them.
func (h *RefTypes) Update(w http.ResponseWriter, r *http.Request) {
	var in store.ReferenceItem
	name := PathParam(r, "name")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.ReferenceItem, error) { return h.Refs.Get(r.Context(), name) }))
	if !ok {
		return
	}
	fromEdit := r.PostFormValue("IfMatch") != "" // the edit form (RefEdit): a refusal goes back to it
	useFormVersion(r)
	it, err := h.Refs.Update(r.Context(), h.actor(r), name, in, refused, func(cur store.ReferenceItem) error { return CheckIfMatch(r, cur) })
	e, here := refusedHere(r, err)
	if here && fromEdit && e.Status != http.StatusConflict {
		in.Name = name
		errs := orMessage(err, "Description")
		if e.Status == http.StatusPreconditionFailed {
			errs = nil // said by the form's version
		}
		h.editPage(w, r, e.Status, in, errs)
		return
	}
	switch {
	case !here || e.Status == http.StatusPreconditionFailed:
		h.Saved(w, r, Saved{Err: err, Flash: h.Refs.Kind.Label + " " + it.Name + " is " + it.Status + ".", Page: h.Path, Status: http.StatusOK, Body: it, ETag: it})
	case e.Status == http.StatusConflict:
		h.renderConflict(w, r, e)
	default:
		rowRefused(h.Base, r, name, e)
		h.page(w, r, e.Status, views.RefPage{})
	}
}

// Delete removes an unused item; in use is a 409 whose message carries
// what is in the way.
func (h *RefTypes) Delete(w http.ResponseWriter, r *http.Request) {
	name := PathParam(r, "name")
	err := h.Refs.Delete(r.Context(), h.actor(r), name, func(cur store.ReferenceItem) error { return CheckIfMatch(r, cur) })
	if e, here := refusedHere(r, err, http.StatusConflict); here {
		h.renderConflict(w, r, e)
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: h.Refs.Kind.Label + " " + name + " was deleted.", Page: h.Path, Status: http.StatusNoContent})
}

func (h *RefTypes) renderConflict(w http.ResponseWriter, r *http.Request, e *Error) {
	p := views.RefPage{}
	p.Conflict, p.InTheWay = views.Conflict(e.Message, e.InTheWay)
	h.page(w, r, http.StatusConflict, p)
}

// rowRefused is the message of a refused row button (its fields are
// hidden, nothing was typed): shown at the top of the list page that is
// answered again, naming the row.
func rowRefused(b *Base, r *http.Request, row string, e *Error) {
	b.Flash.Refuse(r.Context(), "Not changed: "+row+": "+refusalText(e))
}

// writeFound answers a read with v, or the error.
func writeFound(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, v)
}

// writeTagged answers a read of one record with its ETag, or the error.
func writeTagged(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err == nil {
		SetETag(w, v)
	}
	writeFound(w, r, v, err)
}

// Edit is the form that changes an item's description (…/{name}/edit).
func (h *RefTypes) Edit(w http.ResponseWriter, r *http.Request) {
	it, err := h.Refs.Get(r.Context(), PathParam(r, "name"))
	if err != nil {
		WriteError(w, r, directory.Named(err, h.Refs.Kind.Label))
		return
	}
	h.editPage(w, r, http.StatusOK, it, nil)
}

// editPage is the edit form of it, errs beside its fields.
func (h *RefTypes) editPage(w http.ResponseWriter, r *http.Request, status int, it store.ReferenceItem, errs map[string]string) {
	p := h.named(views.RefPage{Form: it, Errors: errs})
	p.Version = editVersion(r, status, it, func() (store.ReferenceItem, error) { return h.Refs.Get(r.Context(), it.Name) }, nil, nil)
	title := "Edit " + p.Label
	Render(w, r, status, views.RefEdit(h.referenceShell(r, title, h.Title, h.Path, views.Crumb{Label: title + " " + it.Name}), p))
}
