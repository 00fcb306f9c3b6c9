package formats

import "testing"

// TestValidEmail: ordinary addresses only, one @; administrators' in
// printable ASCII only, so no look-alike of another address passes.
func TestValidEmail(t *testing.T) {
	for _, c := range []struct {
		in           string
		valid, admin bool
	}{
		{"admin@example.com", true, true},
		{"first.last+tag@sub.example.org", true, true},
		{"jörg@example.com", true, false},
		{"admin@example.com@partner.example", false, false},
		{`"admin@example.com"@partner.example`, false, false},
		{"admin@[192.0.2.1]", false, false},
		{"Admin <admin@example.com>", false, false},
		{"admin@example.com (boss)", false, false},
		{" admin@example.com", false, false},
		{"admin@", false, false},
		{"@example.com", false, false},
		{"admin", false, false},
		{"", false, false},
		{"\u212Aate@example.com", true, false},    // KELVIN SIGN
		{"ａdmin@example.com", true, false},        // fullwidth a
		{"admin@ｅxample.com", true, false},        // fullwidth e in the domain
		{"\u0430dmin@example.com", true, false},   // Cyrillic a
		{"admin\u200b@example.com", false, false}, // zero-width space
		{"a\x00b@example.com", false, false},
	} {
		if got := ValidEmail(c.in); got != c.valid {
			t.Errorf("ValidEmail(%q) = %v, want %v", c.in, got, c.valid)
		}
		if got := ValidAdminEmail(c.in); got != c.admin {
			t.Errorf("ValidAdminEmail(%q) = %v, want %v", c.in, got, c.admin)
		}
	}
}
