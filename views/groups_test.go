package views

import (
	"strings"
	"testing"
)

// TestGroupErrorsInLineOrder: the identity provider form's mapping
// refusals come in the order of their lines: with eleven or more lines,
// "Line 11" came before "Line 2" (the keys were sorted as text).
func TestGroupErrorsInLineOrder(t *testing.T) {
	errs := map[string]string{
		"GroupRoles[10].Role": "Role is required.",
		"GroupRoles[1].Role":  "Role must be DataAdministrator or SuperUser.",
		"GroupRoles[1].Group": "Group is required.",
		"GroupRoles":          "At most 50 mappings.",
	}
	got := groupErrors(errs)
	want := []string{"At most 50 mappings.", "Line 2: Group is required.", "Line 2: Role must be", "Line 11: Role is required."}
	at := -1
	for _, w := range want {
		i := strings.Index(got, w)
		if i < 0 || i < at {
			t.Fatalf("%q out of order or missing in %q", w, got)
		}
		at = i
	}
}
