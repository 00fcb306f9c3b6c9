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

// page renders Reference Data > Domains and Roles; p carries the forms,
// field errors or a conflict of the request that failed.
func (h *Domains) page(w http.ResponseWriter, r *http.Request, status int, p views.DomainsPage) {
	o, err := h.Domains.Overview(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p = p.Listing(o.Domains, o.Roles, o.Authorities, directory.RoleTypes)
	Render(w, r, status, views.DomainsAndRoles(h.referenceShell(r, "Domains and Roles", "Domains and Roles", domainsPath), p))
}

// answer answers a write of the page: saved (s; a nil Body is a 204), a
// browser's refusal on the page beside the form which (a new or an edit
// form, with what was typed in p) or as the conflict's list, else the
// error. A missing record or a stale ETag is an error page.
func (h *Domains) answer(w http.ResponseWriter, r *http.Request, err error, s Saved, which string, p views.DomainsPage) {
	if e, here := refusedHere(r, err); here && e.Status != http.StatusPreconditionFailed {
		if e.Status == http.StatusConflict {
			summary, inTheWay := views.Conflict(e.Message, e.InTheWay)
			p = p.Conflicted(which, summary, inTheWay)
		} else {
			p = p.Refused(which, FieldMap(e), e.Message)
		}
		h.page(w, r, e.Status, p)
		return
	}
	if s.Body == nil {
		s.Status = http.StatusNoContent
	}
	s.Err, s.Page, s.ETag = err, domainsPath, s.Body
	h.Saved(w, r, s)
}

// ListDomains is the page (browser) or the list of domains (API).
func (h *Domains) ListDomains(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() { h.page(w, r, http.StatusOK, views.DomainsPage{}) }, h.Domains.ListDomains)
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
	h.answer(w, r, err, Saved{Flash: "Authorisation domain " + d.Name + " was added.", Status: http.StatusCreated, Body: d,
		Location: "/api" + domainsPath + "/" + url.PathEscape(d.Name)}, "domain", views.DomainsPage{DomainForm: in})
}

// UpdateDomain changes a domain's description or status; disabling one
// that Active claims use is a 409 naming them.
func (h *Domains) UpdateDomain(w http.ResponseWriter, r *http.Request) {
	var in store.AuthorisationDomain
	name := PathParam(r, "domain")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.AuthorisationDomain, error) { return h.Domains.GetDomain(r.Context(), name) }))
	if !ok {
		return
	}
	d, err := h.Domains.UpdateDomain(r.Context(), h.actor(r), name, in, refused, func(cur store.AuthorisationDomain) error { return CheckIfMatch(r, cur) })
	h.answer(w, r, err, Saved{Flash: "Authorisation domain " + d.Name + " is " + d.Status + ".", Status: http.StatusOK, Body: d},
		views.EditDomainForm(name), views.DomainsPage{DomainForm: in})
}

// DeleteDomain removes a domain nothing refers to (409 naming its roles,
// authorities, claims and policies otherwise: nothing cascades).
func (h *Domains) DeleteDomain(w http.ResponseWriter, r *http.Request) {
	name := PathParam(r, "domain")
	err := h.Domains.DeleteDomain(r.Context(), h.actor(r), name)
	h.answer(w, r, err, Saved{Flash: "Authorisation domain " + name + " was deleted."}, "", views.DomainsPage{})
}
