package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
)

// orgFilter reads the search, filters and sort of the organisation list.
func (h *Organisations) orgFilter(ctx context.Context, q url.Values) (directory.OrgFilter, error) {
	// Each once: the list reads the first, a proxy or cache may read the
	// last (as page, size and signingAlg).
	if err := givenOnce(q, "q", "Flag", "Status", "sort", "AuthorisationDomain", "Role", "DomainRole"); err != nil {
		return directory.OrgFilter{}, err
	}
	sortField, desc, err := ParseSort(q, store.OrgSortColumns, "OrganisationName")
	if err != nil {
		return directory.OrgFilter{}, err
	}
	f := directory.OrgFilter{Q: strings.TrimSpace(q.Get("q")), Flag: q.Get("Flag"), Sort: sortField, Desc: desc, Everything: q.Get("find") == "1"}
	if f.Domain, f.Role, err = h.roleFilter(ctx, q); err != nil {
		return f, err
	}
	if st := q.Get("Status"); st != "" {
		canon, ok := lifecycle.ParseStatus(lifecycle.Organisation, st)
		if !ok {
			return f, paramError(CodeInvalidParameter, "Status", lifecycle.StatusHelp(lifecycle.Organisation, h.Vocab))
		}
		f.Status = canon
	}
	return f, nil
}

// roleFilter reads the AuthorisationDomain= and Role= filters (organisation
// list, participants): a domain or role that does not exist is a 400
// naming the parameter. Filters count Active claims only.
func (h *Organisations) roleFilter(ctx context.Context, q url.Values) (domain, role string, err error) {
	if err := givenOnce(q, "AuthorisationDomain", "Role"); err != nil {
		return "", "", err
	}
	domain, role = q.Get("AuthorisationDomain"), q.Get("Role")
	fe, err := h.List.RoleFilter(ctx, domain, role)
	if fe != nil {
		err = paramError(CodeInvalidParameter, fe.Field, fe.Message)
	}
	if err != nil {
		return "", "", err
	}
	return domain, role, nil
}

// domainRoleRedirect answers the console's Role filter, which sends one
// choice DomainRole=Domain/Role: the list's URL with AuthorisationDomain=
// and Role= instead (the API's filters; either may be empty), the other
// filters and the sort kept, empty ones and the page dropped.
func domainRoleRedirect(w http.ResponseWriter, r *http.Request, q url.Values) {
	domain, role, _ := strings.Cut(q.Get("DomainRole"), "/")
	q.Del("DomainRole")
	q.Del("page")
	q.Set("AuthorisationDomain", domain)
	q.Set("Role", role)
	for k, v := range q {
		if len(v) == 0 || v[0] == "" {
			q.Del(k)
		}
	}
	to := paths.Organisations()
	if len(q) > 0 {
		to += "?" + q.Encode()
	}
	Redirect(w, r, to)
}
