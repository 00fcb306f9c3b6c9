package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// ListAuthorities lists the authorities; the browser is sent to them on
// the Domains and Roles page.
func (h *Domains) ListAuthorities(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() { Redirect(w, r, domainsPath+"#authorities") }, h.Domains.ListAuthorities)
}

// GetAuthority is one authority.
func (h *Domains) GetAuthority(w http.ResponseWriter, r *http.Request) {
	au, err := h.Domains.GetAuthority(r.Context(), PathParam(r, "authorityID"))
	writeTagged(w, r, au, err)
}

// CreateAuthority adds an authority; the domains it covers must exist.
func (h *Domains) CreateAuthority(w http.ResponseWriter, r *http.Request) {
	var in store.Authority
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	au, err := h.Domains.CreateAuthority(r.Context(), h.actor(r), in, refused)
	h.answer(w, r, err, Saved{Flash: "Authority " + au.AuthorityName + " was added.", Status: http.StatusCreated, Body: au,
		Location: "/api/references/authorities/" + au.AuthorityID}, "authority", views.DomainsPage{AuthorityForm: in})
}

// UpdateAuthority replaces an authority; disabling it, or dropping a
// domain, while Active claims need it is a 409 naming them.
func (h *Domains) UpdateAuthority(w http.ResponseWriter, r *http.Request) {
	var in store.Authority
	id := PathParam(r, "authorityID")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Authority, error) { return h.Domains.GetAuthority(r.Context(), id) }))
	if !ok {
		return
	}
	au, err := h.Domains.UpdateAuthority(r.Context(), h.actor(r), id, in, refused, func(cur store.Authority) error { return CheckIfMatch(r, cur) })
	h.answer(w, r, err, Saved{Flash: "Authority " + au.AuthorityName + " was saved.", Status: http.StatusOK, Body: au},
		views.EditAuthorityForm(id), views.DomainsPage{AuthorityForm: in})
}

// DeleteAuthority removes an authority no claim names.
func (h *Domains) DeleteAuthority(w http.ResponseWriter, r *http.Request) {
	err := h.Domains.DeleteAuthority(r.Context(), h.actor(r), PathParam(r, "authorityID"))
	h.answer(w, r, err, Saved{Flash: "The authority was deleted."}, "", views.DomainsPage{})
}
