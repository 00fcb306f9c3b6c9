package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

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

// hasControl reports a name holding a control character (a tab, a line
// break) or a direction mark: the one-line text rule (docs/design.md §4)
// for a name read outside Decode.
func hasControl(name string) bool { return refusedText(name, textLine) }

func (h *Domains) actor(r *http.Request) store.Audit {
	return store.Audit{Actor: PrincipalFrom(r.Context()).Email}
}

// page renders Reference Data > Domains and Roles; p carries the forms,
// field errors or a conflict of the request that failed.
func (h *Domains) page(w http.ResponseWriter, r *http.Request, status int, p views.DomainsPage) {
	ctx := r.Context()
	doms, err := h.Domains.ListDomains(ctx)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	roles, err := h.Domains.AllRoles(ctx)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	auths, err := h.Domains.ListAuthorities(ctx)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	byDomain := map[string][]store.DomainRole{}
	for _, ro := range roles {
		byDomain[ro.AuthorisationDomain] = append(byDomain[ro.AuthorisationDomain], ro)
	}
	for _, d := range doms {
		p.Domains = append(p.Domains, views.DomainWithRoles{Domain: d, Roles: byDomain[d.Name]})
	}
	p.Authorities, p.RoleTypes = auths, directory.RoleTypes
	if p.Errors == nil {
		p.Errors = map[string]string{}
	}
	Render(w, r, status, views.DomainsAndRoles(h.Shell(r, "Domains and Roles", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Domains and Roles"}), p))
}

// answer answers a write of the page: saved (s; a nil Body is a 204), a
// browser's refusal on the page beside the form which (a new or an edit
// form, with what was typed in p) or as the conflict's list, else the
// error. A missing record or a stale ETag is an error page.
func (h *Domains) answer(w http.ResponseWriter, r *http.Request, err error, s Saved, which string, p views.DomainsPage) {
	status := AsError(err).Status
	switch {
	case err == nil:
		if s.Body == nil {
			s.Status = http.StatusNoContent
		}
		s.Page, s.ETag = domainsPath, s.Body
		h.Saved(w, r, s)
	case inForm(r, err) && status != http.StatusPreconditionFailed:
		h.page(w, r, status, refusedOnPage(AsError(err), which, p))
	default:
		WriteError(w, r, err)
	}
}

// refusedOnPage is p with the refusal e shown beside the form which.
func refusedOnPage(e *Error, which string, p views.DomainsPage) views.DomainsPage {
	if e.Status != http.StatusConflict {
		p.Errors = onForm(FieldMap(e), domainsFormFields(which))
		if len(p.Errors) == 0 {
			p.Errors = map[string]string{"_": e.Message}
		}
		p.FormFor = which
		return p
	}
	p.Conflict, p.InTheWay = views.Conflict(e.Message, e.InTheWay)
	if len(p.InTheWay) == 0 && which != "" {
		// Nothing named in the way: the name is taken (a new domain or
		// role), said beside it; what was typed stays.
		field := "_"
		if which == "domain" || strings.HasPrefix(which, "role:") {
			field = "Name"
		}
		p.Errors, p.FormFor, p.Conflict = map[string]string{field: p.Conflict}, which, ""
	}
	return p
}

// domainsFormFields are the fields a form of the Domains and Roles page
// shows a message beside (which as in answer).
func domainsFormFields(which string) []string {
	kind, _, _ := strings.Cut(which, ":")
	switch kind {
	case "domain":
		return []string{"Name", "Description"}
	case "role":
		return []string{"Name", "Type", "Description"}
	case "edit-domain":
		return []string{"Description"}
	case "edit-role":
		return []string{"Type", "Description"}
	case "authority", "edit-authority":
		return []string{"AuthorityName", "AuthorityCode", "Country", "AuthorisationDomains"}
	}
	return nil
}

// onForm keeps the messages of the fields a form shows; the others are
// joined into its general message ("_"), so that none is lost.
func onForm(errs map[string]string, fields []string) map[string]string {
	out := map[string]string{}
	var rest []string
	for f, m := range errs {
		if slices.Contains(fields, f) {
			out[f] = m
		} else {
			rest = append(rest, m)
		}
	}
	if len(rest) > 0 {
		sort.Strings(rest)
		out["_"] = strings.Join(rest, " ")
	}
	return out
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

// writeTagged answers a read of one record with its ETag, or the error.
func writeTagged(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		WriteError(w, r, err)
		return
	}
	SetETag(w, v)
	WriteJSON(w, http.StatusOK, v)
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

// ListRoles lists the roles of a domain (404 for an unknown domain).
func (h *Domains) ListRoles(w http.ResponseWriter, r *http.Request) {
	roles, err := h.Domains.ListRoles(r.Context(), PathParam(r, "domain"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, roles)
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

// ListAuthorities lists the authorities.
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
