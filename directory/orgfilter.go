package directory

import "strconv"

// RoleFilter checks the AuthorisationDomain= and Role= filters of the
// organisation list and the participants against the roles there are:
// a domain with no roles, or a role in no domain (in the domain given,
// when one is), is refused naming the filter, so that a typo does not read
// as an empty directory. nil when both are known or not given.
func RoleFilter(roles []DomainRole, domain, role string) *FieldError {
	domainSeen, roleSeen := domain == "", role == ""
	for _, ro := range roles {
		if ro.AuthorisationDomain == domain {
			domainSeen = true
		}
		if ro.Name == role && (domain == "" || ro.AuthorisationDomain == domain) {
			roleSeen = true
		}
	}
	if !domainSeen {
		return &FieldError{Field: "AuthorisationDomain", Message: "There is no authorisation domain with roles called " + strconv.Quote(domain) + "."}
	}
	if !roleSeen {
		msg := "There is no role " + strconv.Quote(role)
		if domain != "" {
			msg += " in the domain " + strconv.Quote(domain)
		}
		return &FieldError{Field: "Role", Message: msg + "."}
	}
	return nil
}
