package handlers

import (
	"net/http"
	"net/url"

	"github.com/trustframe/trustframe/directory"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// ListRoles lists the roles of a domain (404 for an unknown domain).
func (h *Domains) ListRoles(w http.ResponseWriter, r *http.Request) {
	roles, err := h.Domains.ListRoles(r.Context(), PathParam(r, "domain"))
	writeFound(w, r, roles, err)
}

// GetRole is one role.
func (h *Domains) GetRole(w http.ResponseWriter, r *http.Request) {
	ro, err := h.Domains.GetRole(r.Context(), PathParam(r, "domain"), PathParam(r, "role"))
	writeTagged(w, r, ro, err)
}

// NewRole is the page that adds a role to a domain (404 for an unknown
// domain).
func (h *Domains) NewRole(w http.ResponseWriter, r *http.Request) {
	d, err := h.Domains.GetDomain(r.Context(), PathParam(r, "domain"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Authorisation domain"))
		return
	}
	h.formPage(w, r, http.StatusOK, views.DomainForm{Kind: "role", IsNew: true, Role: store.DomainRole{AuthorisationDomain: d.Name}})
}

// EditRole is the page that changes a role's type, exclusivity or
// description.
func (h *Domains) EditRole(w http.ResponseWriter, r *http.Request) {
	get := h.getRole(r, PathParam(r, "domain"), PathParam(r, "role"))
	ro, err := get()
	if err != nil {
		WriteError(w, r, directory.Named(err, "Role"))
		return
	}
	h.formPage(w, r, http.StatusOK, views.DomainForm{Kind: "role", Role: ro, Version: editVersion(r, http.StatusOK, ro, get, nil, nil)})
}

func (h *Domains) getRole(r *http.Request, dom, name string) func() (store.DomainRole, error) {
	return func() (store.DomainRole, error) { return h.Domains.GetRole(r.Context(), dom, name) }
}

// CreateRole adds a role to a domain (404 for an unknown domain).
func (h *Domains) CreateRole(w http.ResponseWriter, r *http.Request) {
	var in store.DomainRole
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	dom := PathParam(r, "domain")
	ro, err := h.Domains.CreateRole(r.Context(), h.actor(r), dom, in, refused)
	in.AuthorisationDomain = dom
	h.answer(w, r, err, Saved{Flash: "Role " + ro.Name + " of " + ro.AuthorisationDomain + " " + views.SaveWord(true) + ".", Status: http.StatusCreated, Body: ro,
		Location: "/api" + domainsPath + "/" + url.PathEscape(ro.AuthorisationDomain) + "/roles/" + url.PathEscape(ro.Name)},
		"", views.DomainForm{Kind: "role", IsNew: true, Role: in})
}

// UpdateRole changes a role's type, exclusivity, description or status.
func (h *Domains) UpdateRole(w http.ResponseWriter, r *http.Request) {
	var in store.DomainRole
	dom, name := PathParam(r, "domain"), PathParam(r, "role")
	get := h.getRole(r, dom, name)
	refused, ok := decodeKept(w, r, &in, storedOf(&in, get))
	if !ok {
		return
	}
	var f views.DomainForm
	if fromEditPage(r) {
		in.AuthorisationDomain, in.Name = dom, name
		f = views.DomainForm{Kind: "role", Role: in}
	}
	ro, err := h.Domains.UpdateRole(r.Context(), h.actor(r), dom, name, in, refused, func(cur store.DomainRole) error { return CheckIfMatch(r, cur) })
	h.answer(w, r, err, Saved{Flash: "Role " + ro.Name + " of " + ro.AuthorisationDomain + " " + views.SaveWord(false) + ".", Status: http.StatusOK, Body: ro}, name+" of "+dom, withVersion(r, err, f, in, get))
}

// DeleteRole removes a role no claim or policy names.
func (h *Domains) DeleteRole(w http.ResponseWriter, r *http.Request) {
	dom, name := PathParam(r, "domain"), PathParam(r, "role")
	err := h.Domains.DeleteRole(r.Context(), h.actor(r), dom, name)
	h.answer(w, r, err, Saved{Flash: "Role " + name + " of " + dom + " was deleted."}, name+" of "+dom, views.DomainForm{})
}
