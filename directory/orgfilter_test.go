package directory

import "testing"

// TestRoleFilterNamesTheUnknownFilter: a domain without roles or a role
// outside the domain given is refused naming its filter; a role alone
// matches in any domain.
func TestRoleFilterNamesTheUnknownFilter(t *testing.T) {
	roles := []DomainRole{{AuthorisationDomain: "Payments", Name: "PISP"}, {AuthorisationDomain: "Insurance", Name: "Broker"}}
	for _, c := range []struct {
		domain, role, field string
	}{
		{"", "", ""},
		{"Payments", "", ""},
		{"", "Broker", ""},
		{"Payments", "PISP", ""},
		{"Pensions", "", "AuthorisationDomain"},
		{"Payments", "Broker", "Role"},
		{"", "AISP", "Role"},
	} {
		got := ""
		if fe := RoleFilter(roles, c.domain, c.role); fe != nil {
			got = fe.Field
		}
		if got != c.field {
			t.Errorf("%q %q: refused %q, want %q", c.domain, c.role, got, c.field)
		}
	}
}
