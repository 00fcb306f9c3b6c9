package handlers

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// orgFilter reads the search, filters and sort of the organisation list.
func (h *Organisations) orgFilter(ctx context.Context, q url.Values) (store.OrgFilter, error) {
	sortField, desc, err := ParseSort(q, store.OrgSortColumns, "OrganisationName")
	if err != nil {
		return store.OrgFilter{}, err
	}
	f := store.OrgFilter{Q: strings.TrimSpace(q.Get("q")), Flag: q.Get("Flag"), Sort: sortField, Desc: desc}
	if f.Domain, f.Role, err = h.roleFilter(ctx, q); err != nil {
		return f, err
	}
	if st := q.Get("Status"); st != "" {
		canon, ok := lifecycle.ParseStatus(lifecycle.Organisation, st)
		if !ok {
			return f, CodeInvalidParameter.New(lifecycle.StatusHelp(lifecycle.Organisation, h.Vocab)).WithFields(FieldError{Field: "Status", Code: FieldInvalid, Message: lifecycle.StatusHelp(lifecycle.Organisation, h.Vocab)})
		}
		f.Status = canon
	}
	return f, nil
}

// roleFilter reads the AuthorisationDomain= and Role= filters (organisation
// list, participants): a domain or role that does not exist is a 400
// naming the parameter. Filters count Active claims only.
func (h *Organisations) roleFilter(ctx context.Context, q url.Values) (domain, role string, err error) {
	domain, role = q.Get("AuthorisationDomain"), q.Get("Role")
	if domain == "" && role == "" {
		return "", "", nil
	}
	roles, err := h.Store.ListDomainRoles(ctx, "")
	if err != nil {
		return "", "", err
	}
	domainSeen, roleSeen := domain == "", role == ""
	for _, ro := range roles {
		if ro.AuthorisationDomain == domain {
			domainSeen = true
		}
		if ro.Name == role && (domain == "" || ro.AuthorisationDomain == domain) {
			roleSeen = true
		}
	}
	bad := func(field, msg string) error {
		return CodeInvalidParameter.New(msg).WithFields(FieldError{Field: field, Code: FieldInvalid, Message: msg})
	}
	if !domainSeen {
		return "", "", bad("AuthorisationDomain", "There is no authorisation domain with roles called "+strconvQuote(domain)+".")
	}
	if !roleSeen {
		msg := "There is no role " + strconvQuote(role)
		if domain != "" {
			msg += " in the domain " + strconvQuote(domain)
		}
		return "", "", bad("Role", msg+".")
	}
	return domain, role, nil
}

// roleOpts are the choices of the organisation list's Role filter.
func (h *Organisations) roleOpts(ctx context.Context, cur string) ([]views.Option, error) {
	roles, err := h.Store.ListDomainRoles(ctx, "")
	if err != nil {
		return nil, err
	}
	out := []views.Option{{Value: "", Label: "Any role", Selected: cur == ""}}
	seen := map[string]bool{}
	for _, ro := range roles {
		if !seen[ro.Name] {
			seen[ro.Name] = true
			out = append(out, views.Option{Value: ro.Name, Label: ro.Name, Selected: ro.Name == cur})
		}
	}
	return out, nil
}

func strconvQuote(s string) string { return strconv.Quote(s) }
