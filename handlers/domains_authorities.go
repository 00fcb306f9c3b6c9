package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/directory"

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

// NewAuthority is the page that adds an authority.
func (h *Domains) NewAuthority(w http.ResponseWriter, r *http.Request) {
	h.formPage(w, r, http.StatusOK, views.DomainForm{Kind: "authority", IsNew: true})
}

// EditAuthority is the page that changes an authority.
func (h *Domains) EditAuthority(w http.ResponseWriter, r *http.Request) {
	get := h.getAuthority(r, PathParam(r, "authorityID"))
	au, err := get()
	if err != nil {
		WriteError(w, r, directory.Named(err, "Authority"))
		return
	}
	h.formPage(w, r, http.StatusOK, views.DomainForm{Kind: "authority", Authority: au, Version: editVersion(r, http.StatusOK, au, get, nil, nil)})
}

func (h *Domains) getAuthority(r *http.Request, id string) func() (store.Authority, error) {
	return func() (store.Authority, error) { return h.Domains.GetAuthority(r.Context(), id) }
}

// CreateAuthority adds an authority; the domains it covers must exist.
func (h *Domains) CreateAuthority(w http.ResponseWriter, r *http.Request) {
	var in store.Authority
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	au, err := h.Domains.CreateAuthority(r.Context(), h.actor(r), in, refused)
	h.answer(w, r, err, Saved{Flash: "Authority " + au.AuthorityName + " " + views.SaveWord(true) + ".", Status: http.StatusCreated, Body: au,
		Location: "/api/references/authorities/" + au.AuthorityID}, "", views.DomainForm{Kind: "authority", IsNew: true, Authority: in})
}

// UpdateAuthority replaces an authority; disabling it, or dropping a
// domain, while Active claims need it is a 409 naming them.
func (h *Domains) UpdateAuthority(w http.ResponseWriter, r *http.Request) {
	var in store.Authority
	id := PathParam(r, "authorityID")
	get := h.getAuthority(r, id)
	refused, ok := decodeKept(w, r, &in, storedOf(&in, get))
	if !ok {
		return
	}
	var f views.DomainForm
	if fromEditPage(r) {
		in.AuthorityID = id
		f = views.DomainForm{Kind: "authority", Authority: in}
	}
	au, err := h.Domains.UpdateAuthority(r.Context(), h.actor(r), id, in, refused, func(cur store.Authority) error { return CheckIfMatch(r, cur) })
	h.answer(w, r, err, Saved{Flash: "Authority " + au.AuthorityName + " " + views.SaveWord(false) + ".", Status: http.StatusOK, Body: au}, in.AuthorityName, withVersion(r, err, f, in, get))
}

// DeleteAuthority removes an authority no claim names.
func (h *Domains) DeleteAuthority(w http.ResponseWriter, r *http.Request) {
	err := h.Domains.DeleteAuthority(r.Context(), h.actor(r), PathParam(r, "authorityID"))
	h.answer(w, r, err, Saved{Flash: "The authority was deleted."}, "the authority", views.DomainForm{})
}
