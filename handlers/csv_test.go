package handlers

import (
	"testing"

	"github.com/trustframe/trustframe/directory"
)

// TestCSVCellDefusesFormulasBehindSpaces: a spreadsheet skips leading
// white space (spaces, tabs, newlines, non-breaking and other Unicode
// spaces) before it looks for a formula, so a cell is guarded when its
// first other character is = + - or @; the import takes the guard off.
func TestCSVCellDefusesFormulasBehindSpaces(t *testing.T) {
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
		got := csvCell(c.in)
		if guarded := got == "'"+c.in; guarded != c.guard {
			t.Errorf("csvCell(%q) = %q, want guarded %v", c.in, got, c.guard)
		}
		if back := directory.Unguard(got); back != c.in {
			t.Errorf("directory.Unguard(csvCell(%q)) = %q", c.in, back)
		}
	}
	// An apostrophe the export did not put there stays.
	for _, s := range []string{"'Acme", "' Acme", "'"} {
		if directory.Unguard(s) != s {
			t.Errorf("directory.Unguard(%q) = %q", s, directory.Unguard(s))
		}
	}
}
