package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// References serves Reference Data flags.
type References struct {
	*Base
	Flags *directory.Flags
}

func (h *References) crumbs(last string) []views.Crumb {
	return []views.Crumb{{Label: "Reference Data", Href: "/references"}, {Label: last}}
}

// statusIn checks a Reference Data status with the layer's rule
// (directory.Fields.Status): Active or Inactive, Active for a new item
// that gives none; an update that gives none keeps the stored one.
func statusIn(f map[string]string, status *string, isNew bool) {
	d := directory.Fields{}
	d.Status(status, isNew)
	for k, v := range d {
		f[k] = v
	}
}

// RefTypes serves one kind of name/description/status reference data:
// contact types, document types, certification types.
type RefTypes struct {
	*Base
	Refs  *directory.References
	Title string // "Contact types"
	Path  string // "/references/contact-types"
}

func (h *RefTypes) page(w http.ResponseWriter, r *http.Request, status int, p views.RefPage) {
	items, err := h.Refs.List(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p.Title, p.Label, p.Path, p.Items = h.Title, strings.ToLower(h.Refs.Kind.Label), h.Path, items
	Render(w, r, status, views.RefList(h.Shell(r, h.Title, "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: h.Title}), p))
}

// New is the form that adds an item; a refused one comes back to it.
func (h *RefTypes) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, views.RefPage{})
}

func (h *RefTypes) newPage(w http.ResponseWriter, r *http.Request, status int, p views.RefPage) {
	p.Title, p.Label, p.Path = h.Title, strings.ToLower(h.Refs.Kind.Label), h.Path
	title := "New " + p.Label
	Render(w, r, status, views.RefNew(h.Shell(r, title, "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: h.Title, Href: h.Path}, views.Crumb{Label: title}), p))
}

// List lists the items.
func (h *RefTypes) List(w http.ResponseWriter, r *http.Request) {
	if HTMLPage(w, r, func() { h.page(w, r, http.StatusOK, views.RefPage{}) }) {
		return
	}
	items, err := h.Refs.List(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, items)
}

// Get is one item.
func (h *RefTypes) Get(w http.ResponseWriter, r *http.Request) {
	it, err := h.Refs.Get(r.Context(), PathParam(r, "name"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	SetETag(w, it)
	WriteJSON(w, http.StatusOK, it)
}

// Create adds an item.
func (h *RefTypes) Create(w http.ResponseWriter, r *http.Request) {
	var in store.ReferenceItem
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	it, err := h.Refs.Create(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, in, refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: h.Refs.Kind.Label + " " + it.Name + " was added.", Page: h.Path,
			Status: http.StatusCreated, Body: it, ETag: it, Location: "/api" + h.Path + "/" + url.PathEscape(it.Name)})
	case !WantsJSON(r) && AsError(err).Status < 500:
		h.newPage(w, r, AsError(err).Status, views.RefPage{Form: in, Errors: orMessage(err, "Name")})
	default:
		WriteError(w, r, err)
	}
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
	it, err := h.Refs.Update(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, name, in, refused, func(cur store.ReferenceItem) error { return CheckIfMatch(r, cur) })
	status := AsError(err).Status
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: h.Refs.Kind.Label + " " + it.Name + " is " + it.Status + ".", Page: h.Path, Status: http.StatusOK, Body: it, ETag: it})
	case WantsJSON(r) || status >= 500 || status == http.StatusNotFound || status == http.StatusPreconditionFailed:
		WriteError(w, r, err)
	case status == http.StatusConflict:
		h.renderConflict(w, r, AsError(err))
	default:
		rowRefused(h.Base, r, name, AsError(err))
		h.page(w, r, status, views.RefPage{})
	}
}

// rowRefused is the message of a refused row button (its fields are
// hidden, nothing was typed): shown at the top of the list page that is
// answered again, naming the row.
func rowRefused(b *Base, r *http.Request, row string, e *Error) {
	b.Flash.Refuse(r.Context(), "Not changed: "+row+": "+refusalText(e))
}

// Delete removes an unused item; in use is a 409 whose message carries
// what is in the way.
func (h *RefTypes) Delete(w http.ResponseWriter, r *http.Request) {
	name := PathParam(r, "name")
	err := h.Refs.Delete(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, name, func(cur store.ReferenceItem) error { return CheckIfMatch(r, cur) })
	switch {
	case err != nil && !WantsJSON(r) && AsError(err).Status == http.StatusConflict:
		h.renderConflict(w, r, AsError(err))
	default:
		h.Saved(w, r, Saved{Err: err, Flash: h.Refs.Kind.Label + " " + name + " was deleted.", Page: h.Path, Status: http.StatusNoContent})
	}
}

func (h *RefTypes) renderConflict(w http.ResponseWriter, r *http.Request, e *Error) {
	p := views.RefPage{}
	p.Conflict, p.InTheWay = views.Conflict(e.Message, e.InTheWay)
	h.page(w, r, http.StatusConflict, p)
}

func (h *References) flagsPage(w http.ResponseWriter, r *http.Request, status int) {
	flags, err := h.Flags.List(r.Context(), "")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, status, views.Flags(h.Shell(r, "Flags", "reference", h.crumbs("Flags")...), views.FlagsPage{Flags: flags}))
}

// NewFlag is the form that adds a flag; a refused one comes back to it.
func (h *References) NewFlag(w http.ResponseWriter, r *http.Request) {
	h.newFlagPage(w, r, http.StatusOK, store.Flag{}, nil)
}

func (h *References) newFlagPage(w http.ResponseWriter, r *http.Request, status int, form store.Flag, errs map[string]string) {
	var opts []views.Option
	for _, t := range directory.FlagTypes {
		opts = append(opts, views.Option{Value: t, Label: views.FlagTypeLabel(t), Selected: form.Type == t})
	}
	crumbs := []views.Crumb{{Label: "Reference Data", Href: "/references"}, {Label: "Flags", Href: "/references/flags"}, {Label: "New flag"}}
	Render(w, r, status, views.FlagNew(h.Shell(r, "New flag", "reference", crumbs...), views.FlagsPage{Form: form, Errors: errs, TypeOpts: opts}))
}

// ListFlags lists flag definitions (Type= filters).
func (h *References) ListFlags(w http.ResponseWriter, r *http.Request) {
	if HTMLPage(w, r, func() { h.flagsPage(w, r, http.StatusOK) }) {
		return
	}
	typ := r.URL.Query().Get("Type")
	if typ != "" && !slices.Contains(directory.FlagTypes, typ) {
		WriteError(w, r, CodeInvalidParameter.New("Type must be one of "+strings.Join(directory.FlagTypes, ", ")))
		return
	}
	flags, err := h.Flags.List(r.Context(), typ)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, flags)
}

// GetFlag is one flag.
func (h *References) GetFlag(w http.ResponseWriter, r *http.Request) {
	f, err := h.Flags.Get(r.Context(), PathParam(r, "flagID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	SetETag(w, f)
	WriteJSON(w, http.StatusOK, f)
}

// CreateFlag adds a flag definition.
func (h *References) CreateFlag(w http.ResponseWriter, r *http.Request) {
	var in store.Flag
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	f, err := h.Flags.Create(r.Context(), h.actor(r), in, refused)
	if e, ok := refusedHere(r, err); ok {
		h.newFlagPage(w, r, e.Status, in, orMessage(err, "Name"))
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Flag " + f.Name + " was added.", Page: "/references/flags",
		Status: http.StatusCreated, Body: f, ETag: f, Location: "/api/references/flags/" + f.FlagID})
}

// UpdateFlag changes a flag's name, description or status.
func (h *References) UpdateFlag(w http.ResponseWriter, r *http.Request) {
	var in store.Flag
	id := PathParam(r, "flagID")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Flag, error) { return h.Flags.Get(r.Context(), id) }))
	if !ok {
		return
	}
	f, err := h.Flags.Update(r.Context(), h.actor(r), id, in, refused, func(cur store.Flag) error { return CheckIfMatch(r, cur) })
	if e, ok := refusedHere(r, err); ok && e.Status != http.StatusPreconditionFailed {
		row := "the flag" // named as stored: the name sent may be the refused value
		if cur, gerr := h.Flags.Get(r.Context(), id); gerr == nil {
			row = cur.Name
		}
		rowRefused(h.Base, r, row, e)
		h.flagsPage(w, r, e.Status)
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Flag " + f.Name + " is " + f.Status + ".", Page: "/references/flags", Status: http.StatusOK, Body: f, ETag: f})
}

func contains(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}
