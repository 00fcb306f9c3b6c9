package views

import (
	"strings"

	"github.com/trustframe/trustframe/store"
)

// WithChoices is p with the organisation's claims and what its form
// offers: the Active authorities, and the Active roles of the domains one
// of them covers (only those can be claimed) and the role chosen.
func (p ClaimsPage) WithChoices(claims []store.AuthorityClaim, auths []store.Authority, roles []store.DomainRole) ClaimsPage {
	p.Claims = claims
	covered := map[string]bool{}
	for _, a := range auths {
		if a.Status == "Active" {
			for _, d := range a.AuthorisationDomains {
				covered[d] = true
			}
			p.AuthorityOpts = append(p.AuthorityOpts, Option{Value: a.AuthorityID, Label: a.AuthorityName + " (" + a.AuthorityCode + "; " + strings.Join(a.AuthorisationDomains, ", ") + ")", Selected: a.AuthorityID == p.Form.AuthorityID})
		}
	}
	p.Exclusive = map[string]bool{}
	for _, ro := range roles {
		key := ro.AuthorisationDomain + "/" + ro.Name
		p.Exclusive[key] = ro.Exclusive
		chosen := key == p.Form.AuthorisationDomain+"/"+p.Form.Role
		if ro.Status == "Active" && (covered[ro.AuthorisationDomain] || chosen) {
			label := ro.AuthorisationDomain + ": " + ro.Name
			if ro.Exclusive {
				label += " (Exclusive)"
			}
			p.RoleOpts = append(p.RoleOpts, Option{Value: key, Label: label, Selected: chosen})
		}
	}
	// Nothing preselected: a claim saved without looking would record the
	// first authority's first role.
	if len(p.AuthorityOpts) > 0 && len(p.RoleOpts) > 0 {
		p.AuthorityOpts = append([]Option{{Value: "", Label: "Choose an authority"}}, p.AuthorityOpts...)
		p.RoleOpts = append([]Option{{Value: "", Label: "Choose a domain and role"}}, p.RoleOpts...)
	}
	if p.Errors == nil {
		p.Errors = map[string]string{}
	}
	return p
}

// Refused is p with a refusal's fields beside the form: the form chooses
// the domain and the role as one (DomainRole), so a message on either is
// shown there, the role's first. A refusal without fields is said at the
// top of the form (message).
func (p ClaimsPage) Refused(fields map[string]string, message string) ClaimsPage {
	p.Errors = fields
	if p.Form.AuthorisationDomain == "" && p.Form.Role == "" && fields["AuthorisationDomain"] != "" && fields["Role"] != "" {
		// Nothing chosen in the one list: one message, as on the trust
		// mark type form.
		p.Errors["DomainRole"] = "Choose a domain and role."
		return p
	}
	if fields["AuthorisationDomain"] != "" {
		p.Errors["DomainRole"] = fields["AuthorisationDomain"]
	}
	if fields["Role"] != "" {
		p.Errors["DomainRole"] = fields["Role"]
	}
	if len(p.Errors) == 0 {
		p.Errors = map[string]string{"_": message}
	}
	return p
}
