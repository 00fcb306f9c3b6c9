package views

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

// TestSavedMessage: a save says what changed in the deployment's words.
func TestSavedMessage(t *testing.T) {
	for _, c := range []struct {
		vocab          lifecycle.Vocabulary
		from, to, want string
	}{
		{lifecycle.VocabWithdrawn, "", lifecycle.Active, "Acme was added."},
		{lifecycle.VocabWithdrawn, lifecycle.Active, lifecycle.Active, "Acme was saved."},
		{lifecycle.VocabWithdrawn, lifecycle.Active, lifecycle.Withdrawn, "Acme was withdrawn."},
		{lifecycle.VocabInactive, lifecycle.Active, lifecycle.Withdrawn, "Acme is now Inactive."},
		{lifecycle.VocabWithdrawn, lifecycle.Withdrawn, lifecycle.Active, "Acme was reactivated: it is Active again."},
		{lifecycle.VocabWithdrawn, lifecycle.Pending, lifecycle.Active, "Acme is now Active."},
	} {
		if got := SavedMessage(c.vocab, "", "Acme", c.from, c.to); got != c.want {
			t.Errorf("%s → %s (%s): %q, want %q", c.from, c.to, c.vocab, got, c.want)
		}
	}
}

// TestReactivatePageOfAnOrganisation counts what keeps its own status.
func TestReactivatePageOfAnOrganisation(t *testing.T) {
	re := directory.Reactivation{Organisation: store.Organisation{OrganisationID: "o1", OrganisationName: "Acme", Status: lifecycle.Withdrawn},
		Servers: 1, Applications: 3, Ended: 1}
	p, crumbs := NewReactivatePage(lifecycle.VocabInactive, re)
	if p.Status != "Inactive" || p.Back != "/organisations/o1" || crumbs[len(crumbs)-1].Label != "Reactivate" {
		t.Fatalf("%+v %+v", p, crumbs)
	}
	if want := "Its 1 authorisation server and 3 applications keep their own status: 1 of them is Inactive"; !strings.HasPrefix(p.Affects[1], want) {
		t.Fatalf("%q", p.Affects[1])
	}
}
