package views

import (
	"slices"
	"sort"
	"strings"

	"github.com/trustframe/trustframe/store"
)

// Listing is p with every domain and its roles, the authorities and the
// kinds of role the role forms offer.
func (p DomainsPage) Listing(doms []store.AuthorisationDomain, roles []store.DomainRole, auths []store.Authority, roleTypes []string) DomainsPage {
	byDomain := map[string][]store.DomainRole{}
	for _, ro := range roles {
		byDomain[ro.AuthorisationDomain] = append(byDomain[ro.AuthorisationDomain], ro)
	}
	for _, d := range doms {
		p.Domains = append(p.Domains, DomainWithRoles{Domain: d, Roles: byDomain[d.Name]})
	}
	p.Authorities, p.RoleTypes = auths, roleTypes
	if p.Errors == nil {
		p.Errors = map[string]string{}
	}
	return p
}

// Refused is p with a refusal shown beside the form which (FormFor): the
// messages of the fields that form shows beside them, the others and a
// refusal without fields (message) as its general message.
func (p DomainsPage) Refused(which string, fields map[string]string, message string) DomainsPage {
	p.Errors = onForm(fields, domainsFormFields(which))
	if len(p.Errors) == 0 {
		p.Errors = map[string]string{"_": message}
	}
	p.FormFor = which
	return p
}

// Conflicted is p with a conflict listed (summary, then what is in the
// way). With nothing named in the way the name is taken (a new domain or
// role): that is said beside the form which, and what was typed stays.
func (p DomainsPage) Conflicted(which, summary string, inTheWay []InTheWay) DomainsPage {
	if len(inTheWay) > 0 || which == "" {
		p.Conflict, p.InTheWay = summary, inTheWay
		return p
	}
	field := "_"
	if which == "domain" || strings.HasPrefix(which, "role:") {
		field = "Name"
	}
	p.Errors, p.FormFor = map[string]string{field: summary}, which
	return p
}

// domainsFormFields are the fields a form of the Domains and Roles page
// shows a message beside (which as in FormFor).
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
