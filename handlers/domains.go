package handlers

import (
	"net/http"
	"net/url"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Domains serves Reference Data > Domains and Roles: authorisation
// domains, their roles and the authorities (docs/design.md §12,
// "Authorisation domains, roles and authority claims"). Super Users write
// them; every administrator may read them through the API.
type Domains struct {
	*Base
	Domains *directory.Domains
}

const domainsPath = "/references/authorisation-domains"

// page renders Reference Data > Domains and Roles; p carries the conflict
// of a row's refused button.
func (h *Domains) page(w http.ResponseWriter, r *http.Request, status int, p views.DomainsPage) {
	o, err := h.Domains.Overview(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p = p.Listing(o.Domains, o.Roles, o.Authorities)
	Render(w, r, status, views.DomainsAndRoles(h.referenceShell(r, "Domains and Roles", "Domains and Roles", domainsPath), p))
}

// formPage renders the page that adds or edits f, with the domains an
// authority may cover and the kinds of role.
func (h *Domains) formPage(w http.ResponseWriter, r *http.Request, status int, f views.DomainForm) {
	o, err := h.Domains.Overview(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	for _, d := range o.Domains {
		f.Domains = append(f.Domains, d.Name)
	}
	f.RoleTypes = directory.RoleTypes
	title := f.Title()
	Render(w, r, status, views.DomainFormPage(h.referenceShell(r, title, "Domains and Roles", domainsPath, views.Crumb{Label: title}), f))
}

// answer answers a write: saved (s; a nil Body is a 204) or the error. A
// browser's refusal of a form (f.Kind set: its new or edit page) shows
// that page again with what was typed, the messages beside the fields; a
// row's button (f empty, row naming the record) is answered with the
// list: the conflict listed, another refusal at the top.
func (h *Domains) answer(w http.ResponseWriter, r *http.Request, err error, s Saved, row string, f views.DomainForm) {
	e, here := refusedHere(r, err)
	switch {
	case here && f.Kind != "" && e.Status == http.StatusConflict:
		summary, inTheWay := views.Conflict(e.Message, e.InTheWay)
		h.formPage(w, r, e.Status, f.Conflicted(summary, inTheWay))
		return
	case here && f.Kind != "" && e.Status == http.StatusPreconditionFailed:
		h.formPage(w, r, e.Status, f) // said by the form's version
		return
	case here && f.Kind != "":
		h.formPage(w, r, e.Status, f.Refused(FieldMap(e), e.Message))
		return
	case here && e.Status == http.StatusConflict:
		summary, inTheWay := views.Conflict(e.Message, e.InTheWay)
		h.page(w, r, e.Status, views.DomainsPage{Conflict: summary, InTheWay: inTheWay})
		return
	case here && e.Status != http.StatusPreconditionFailed:
		rowRefused(h.Base, r, row, e)
		h.page(w, r, e.Status, views.DomainsPage{})
		return
	}
	if s.Body == nil {
		s.Status = http.StatusNoContent
	}
	s.Err, s.Page, s.ETag = err, domainsPath, s.Body
	h.Saved(w, r, s)
}

// fromEditPage reports whether an update was sent by its edit page (which
// sends the version it shows; a row's button does not), and makes that
// version the request's If-Match.
func fromEditPage(r *http.Request) bool {
	from := r.PostFormValue("IfMatch") != ""
	useFormVersion(r)
	return from
}

// withVersion is f, an edit page shown again after err, with its version:
// after a 412 the stored record's, beside what was typed (shown); a row's
// button (f empty) has none.
func withVersion[T any](r *http.Request, err error, f views.DomainForm, shown T, get func() (T, error)) views.DomainForm {
	if f.Kind == "" {
		return f
	}
	status := http.StatusOK
	if err != nil {
		status = AsError(err).Status
	}
	f.Version = editVersion(r, status, shown, get, nil, nil)
	return f
}

// ListDomains is the page (browser) or the list of domains (API).
func (h *Domains) ListDomains(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() { h.page(w, r, http.StatusOK, views.DomainsPage{}) }, h.Domains.ListDomains)
}

// NewDomain is the page that adds a domain.
func (h *Domains) NewDomain(w http.ResponseWriter, r *http.Request) {
	h.formPage(w, r, http.StatusOK, views.DomainForm{Kind: "domain", IsNew: true})
}

// EditDomain is the page that changes a domain's description.
func (h *Domains) EditDomain(w http.ResponseWriter, r *http.Request) {
	get := h.getDomain(r, PathParam(r, "domain"))
	d, err := get()
	if err != nil {
		WriteError(w, r, directory.Named(err, "Authorisation domain"))
		return
	}
	h.formPage(w, r, http.StatusOK, views.DomainForm{Kind: "domain", Domain: d, Version: editVersion(r, http.StatusOK, d, get, nil, nil)})
}

func (h *Domains) getDomain(r *http.Request, name string) func() (store.AuthorisationDomain, error) {
	return func() (store.AuthorisationDomain, error) { return h.Domains.GetDomain(r.Context(), name) }
}

// GetDomain is one domain.
func (h *Domains) GetDomain(w http.ResponseWriter, r *http.Request) {
	d, err := h.Domains.GetDomain(r.Context(), PathParam(r, "domain"))
	writeTagged(w, r, d, err)
}

// CreateDomain adds a domain.
func (h *Domains) CreateDomain(w http.ResponseWriter, r *http.Request) {
	var in store.AuthorisationDomain
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	d, err := h.Domains.CreateDomain(r.Context(), h.actor(r), in, refused)
	h.answer(w, r, err, Saved{Flash: "Authorisation domain " + d.Name + " " + views.SaveWord(true) + ".", Status: http.StatusCreated, Body: d,
		Location: "/api" + domainsPath + "/" + url.PathEscape(d.Name)}, "", views.DomainForm{Kind: "domain", IsNew: true, Domain: in})
}

// UpdateDomain changes a domain's description or status; disabling one
// that Active claims use is a 409 naming them.
func (h *Domains) UpdateDomain(w http.ResponseWriter, r *http.Request) {
	var in store.AuthorisationDomain
	name := PathParam(r, "domain")
	get := h.getDomain(r, name)
	refused, ok := decodeKept(w, r, &in, storedOf(&in, get))
	if !ok {
		return
	}
	var f views.DomainForm
	if fromEditPage(r) {
		in.Name = name
		f = views.DomainForm{Kind: "domain", Domain: in}
	}
	d, err := h.Domains.UpdateDomain(r.Context(), h.actor(r), name, in, refused, func(cur store.AuthorisationDomain) error { return CheckIfMatch(r, cur) })
	flash := "Authorisation domain " + d.Name + " is " + d.Status + "." // Enable or Disable on the list
	if fromEditPage(r) {
		flash = "Authorisation domain " + d.Name + " " + views.SaveWord(false) + "."
	}
	h.answer(w, r, err, Saved{Flash: flash, Status: http.StatusOK, Body: d}, name, withVersion(r, err, f, in, get))
}

// DeleteDomain removes a domain nothing refers to (409 naming its roles,
// authorities, claims and policies otherwise: nothing cascades).
func (h *Domains) DeleteDomain(w http.ResponseWriter, r *http.Request) {
	name := PathParam(r, "domain")
	err := h.Domains.DeleteDomain(r.Context(), h.actor(r), name)
	h.answer(w, r, err, Saved{Flash: "Authorisation domain " + name + " was deleted."}, name, views.DomainForm{})
}
