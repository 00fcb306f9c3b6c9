package views

import (
	"slices"
	"sort"
	"strings"

	"github.com/trustframe/trustframe/store"
)

// Listing is p with every domain and its roles, and the authorities.
func (p DomainsPage) Listing(doms []store.AuthorisationDomain, roles []store.DomainRole, auths []store.Authority) DomainsPage {
	byDomain := map[string][]store.DomainRole{}
	for _, ro := range roles {
		byDomain[ro.AuthorisationDomain] = append(byDomain[ro.AuthorisationDomain], ro)
	}
	for _, d := range doms {
		p.Domains = append(p.Domains, DomainWithRoles{Domain: d, Roles: byDomain[d.Name]})
	}
	p.Authorities = auths
	return p
}

// DomainForm is the page that adds or edits (IsNew) a domain, a role of
// one or an authority (Kind: domain, role, authority) on Reference Data >
// Domains and Roles: what is shown or was typed, the messages beside its
// fields ("_" its general one), a conflict listed.
type DomainForm struct {
	Kind      string
	IsNew     bool
	Domain    store.AuthorisationDomain
	Role      store.DomainRole // AuthorisationDomain names its domain
	Authority store.Authority
	Domains   []string // the domains an authority may cover
	RoleTypes []string
	Errors    map[string]string
	Conflict  string
	InTheWay  []InTheWay
	Version   Version
}

// domainPath and rolePath are the console's paths of a domain and a role.
func domainPath(name string) string       { return "/references/authorisation-domains/" + esc(name) }
func rolePath(domain, name string) string { return domainPath(domain) + "/roles/" + esc(name) }

// Title is the page's heading (and its breadcrumb's last label).
func (f DomainForm) Title() string {
	switch {
	case f.Kind == "domain" && f.IsNew:
		return "Add domain"
	case f.Kind == "domain":
		return "Edit domain " + f.Domain.Name
	case f.Kind == "role" && f.IsNew:
		return "Add role to " + f.Role.AuthorisationDomain
	case f.Kind == "role":
		return "Edit role " + f.Role.Name + " of " + f.Role.AuthorisationDomain
	case f.IsNew:
		return "Add authority"
	}
	return "Edit authority " + f.Authority.AuthorityName
}

// Action is where the form posts: the list (a new one) or the record.
func (f DomainForm) Action() string {
	switch {
	case f.Kind == "domain" && f.IsNew:
		return "/references/authorisation-domains"
	case f.Kind == "domain":
		return domainPath(f.Domain.Name)
	case f.Kind == "role" && f.IsNew:
		return domainPath(f.Role.AuthorisationDomain) + "/roles"
	case f.Kind == "role":
		return rolePath(f.Role.AuthorisationDomain, f.Role.Name)
	case f.IsNew:
		return "/references/authorities"
	}
	return "/references/authorities/" + f.Authority.AuthorityID
}

// Back is where Cancel goes: the list, at the record's section.
func (f DomainForm) Back() string {
	if f.Kind == "authority" {
		return "/references/authorisation-domains#authorities"
	}
	return "/references/authorisation-domains"
}

// status is the Status the form sends: a new record's Active, else the
// record's own (it is changed on the list).
func (f DomainForm) status(s string) string {
	if f.IsNew || s == "" {
		return "Active"
	}
	return s
}

func (f DomainForm) typeOptions() []Option {
	var opts []Option
	for _, t := range f.RoleTypes {
		opts = append(opts, Option{Value: t, Label: t, Selected: t == f.Role.Type})
	}
	return opts
}

// fields are the fields the form shows a message beside.
func (f DomainForm) fields() []string {
	var out []string
	if f.IsNew && f.Kind != "authority" {
		out = append(out, "Name")
	}
	switch f.Kind {
	case "domain":
		return append(out, "Description")
	case "role":
		return append(out, "Type", "Description")
	}
	return []string{"AuthorityName", "AuthorityCode", "Country", "AuthorisationDomains"}
}

// Refused is f with a refusal's messages beside the fields it shows, the
// others and a refusal without fields (message) as its general message.
func (f DomainForm) Refused(fields map[string]string, message string) DomainForm {
	f.Errors = onForm(fields, f.fields())
	if len(f.Errors) == 0 && message != "" {
		f.Errors = map[string]string{"_": message}
	}
	return f
}

// Conflicted is f with a conflict listed (summary, then what is in the
// way); with nothing named in the way a new domain's or role's name is
// taken: that is said beside the name.
func (f DomainForm) Conflicted(summary string, inTheWay []InTheWay) DomainForm {
	if len(inTheWay) == 0 && f.IsNew && f.Kind != "authority" {
		f.Errors = map[string]string{"Name": summary}
		return f
	}
	f.Conflict, f.InTheWay = summary, inTheWay
	return f
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
