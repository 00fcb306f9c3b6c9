package views

import "github.com/trustframe/trustframe/store"

// RoleFilterOptions are the choices of the organisation list's Role
// filter: "Any role", then per domain "Payments — any role" (value
// "Payments/") and one per role, "Payments — PISP" (value
// "Payments/PISP": a role name alone is ambiguous when two domains have a
// role of that name). A filter of a role alone (the API's Role=, every
// domain) shows as "PISP — any domain".
func RoleFilterOptions(roles []store.DomainRole, domain, role string) []Option {
	out := []Option{{Value: "", Label: "Any role", Selected: domain == "" && role == ""}}
	if domain == "" && role != "" {
		out = append(out, Option{Value: "/" + role, Label: role + " — any domain", Selected: true})
	}
	seen := map[string]bool{}
	for _, ro := range roles {
		if d := ro.AuthorisationDomain; !seen[d] {
			seen[d] = true
			out = append(out, Option{Value: d + "/", Label: d + " — any role", Selected: domain == d && role == ""})
		}
		out = append(out, Option{Value: ro.AuthorisationDomain + "/" + ro.Name, Label: ro.AuthorisationDomain + " — " + ro.Name,
			Selected: domain == ro.AuthorisationDomain && role == ro.Name})
	}
	return out
}
