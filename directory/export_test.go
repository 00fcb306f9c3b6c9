package directory

import "testing"

// TestGuardDefusesFormulasBehindSpaces: a spreadsheet skips leading
// white space (spaces, tabs, newlines, non-breaking and other Unicode
// spaces) before it looks for a formula, so a cell is guarded when its
// first other character is = + - or @; the import takes the guard off.
func TestGuardDefusesFormulasBehindSpaces(t *testing.T) {
	for _, c := range []struct {
		in    string
		guard bool
	}{
		{"=1+1", true},
		{"+1", true},
		{"-1", true},
		{"@SUM(A1)", true},
		{" =1+1", true},
		{"  +cmd|' /C calc'!A0", true},
		{"\n=1+1", true},
		{"\r\n-2", true},
		{"\t@x", true},
		{"\u00a0=HYPERLINK(\"http://x\")", true}, // non-breaking space
		{"\u2003+1", true},                       // em space
		{"\u3000@x", true},                       // ideographic space
		{"\u200b=1", true},                       // zero-width space
		{"\ufeff=1", true},                       // byte order mark
		{" \u00a0\t\n=1", true},                  // several
		{"\uff1d1+1", true},                      // fullwidth equals sign
		{"\t", true},                             // a control character alone, as before
		{"\r", true},
		{"Acme Bank", false},
		{" Acme", false},
		{"a=1", false},
		{"", false},
		{"   ", false},
		{"\u00a0Acme", false},
	} {
		got := Guard(c.in)
		if guarded := got == "'"+c.in; guarded != c.guard {
			t.Errorf("Guard(%q) = %q, want guarded %v", c.in, got, c.guard)
		}
		if back := Unguard(got); back != c.in {
			t.Errorf("Unguard(Guard(%q)) = %q", c.in, back)
		}
	}
	// An apostrophe the export did not put there stays.
	for _, s := range []string{"'Acme", "' Acme", "'"} {
		if Unguard(s) != s {
			t.Errorf("Unguard(%q) = %q", s, Unguard(s))
		}
	}
}

// TestOrganisationRowImportsAsItIs: the export's row has the import's
// columns, its texts guarded, each flag guarded on its own.
func TestOrganisationRowImportsAsItIs(t *testing.T) {
	row := OrganisationRow(Organisation{OrganisationID: "o1", OrganisationName: "=Acme", Status: "Active"}, []string{"Bank", "@risk"}, nil)
	if len(row) != len(ImportColumns) {
		t.Fatalf("%d cells, %d columns", len(row), len(ImportColumns))
	}
	if row[1] != "'=Acme" || row[10] != "Bank; '@risk" || row[11] != "" {
		t.Fatalf("%q", row)
	}
}
