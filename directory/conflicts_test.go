package directory

import "testing"

// TestInTheWaySummaryInWords: the summary counts each kind in words, one
// or many, in name order ("1 Authorities, 1 Roles" read badly).
func TestInTheWaySummaryInWords(t *testing.T) {
	w := InTheWay{Authorities: []AuthorityRef{{}}, Claims: []ClaimRef{{}, {}}, Roles: []RoleRef{{}}}
	if got, want := w.Summary(), "1 authority, 2 authority claims, 1 role"; got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
	if (InTheWay{}).Summary() != "" {
		t.Fatal("nothing in the way has a summary")
	}
}
