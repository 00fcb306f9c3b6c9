package handlers

import (
	"net/http"
	"net/url"

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

// CreateRole adds a role to a domain (404 for an unknown domain).
func (h *Domains) CreateRole(w http.ResponseWriter, r *http.Request) {
	var in store.DomainRole
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	dom := PathParam(r, "domain")
	ro, err := h.Domains.CreateRole(r.Context(), h.actor(r), dom, in, refused)
	h.answer(w, r, err, Saved{Flash: "Role " + ro.Name + " was added to " + ro.AuthorisationDomain + ".", Status: http.StatusCreated, Body: ro,
		Location: "/api" + domainsPath + "/" + url.PathEscape(ro.AuthorisationDomain) + "/roles/" + url.PathEscape(ro.Name)},
		"role:"+dom, views.DomainsPage{RoleForm: in})
}

// UpdateRole changes a role's type, exclusivity, description or status.
func (h *Domains) UpdateRole(w http.ResponseWriter, r *http.Request) {
	var in store.DomainRole
	dom, name := PathParam(r, "domain"), PathParam(r, "role")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.DomainRole, error) { return h.Domains.GetRole(r.Context(), dom, name) }))
	if !ok {
		return
	}
	ro, err := h.Domains.UpdateRole(r.Context(), h.actor(r), dom, name, in, refused, func(cur store.DomainRole) error { return CheckIfMatch(r, cur) })
	h.answer(w, r, err, Saved{Flash: "Role " + ro.Name + " of " + ro.AuthorisationDomain + " was saved.", Status: http.StatusOK, Body: ro},
		views.EditRoleForm(dom, name), views.DomainsPage{RoleForm: in})
}

// DeleteRole removes a role no claim or policy names.
func (h *Domains) DeleteRole(w http.ResponseWriter, r *http.Request) {
	dom, name := PathParam(r, "domain"), PathParam(r, "role")
	err := h.Domains.DeleteRole(r.Context(), h.actor(r), dom, name)
	h.answer(w, r, err, Saved{Flash: "Role " + name + " of " + dom + " was deleted."}, "", views.DomainsPage{})
}
