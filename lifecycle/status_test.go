package lifecycle

import "testing"

// TestStatusMatrix runs every input word for every kind under both
// vocabularies: input accepts both end-state words, output uses the one in force.
func TestStatusMatrix(t *testing.T) {
	inputs := []string{"Active", "Pending", "Suspended", "Withdrawn", "Inactive", "active", "Deleted", ""}
	want := map[Kind]map[string]string{
		Organisation:        {"Active": "Active", "Pending": "Pending", "Withdrawn": "Withdrawn", "Inactive": "Withdrawn"},
		AuthorisationServer: {"Active": "Active", "Withdrawn": "Withdrawn", "Inactive": "Withdrawn"},
		Application:         {"Active": "Active", "Suspended": "Suspended", "Withdrawn": "Withdrawn", "Inactive": "Withdrawn"},
	}
	for _, vocab := range []Vocabulary{VocabWithdrawn, VocabInactive} {
		for kind, ok := range want {
			for _, in := range inputs {
				got, valid := ParseStatus(kind, in)
				if w, exp := ok[in]; exp != valid || got != w {
					t.Errorf("%s %s %q: got %q %v", vocab, kind, in, got, valid)
				}
				if !valid {
					continue
				}
				shown := vocab.Display(got)
				if got == Withdrawn && shown != map[Vocabulary]string{VocabWithdrawn: "Withdrawn", VocabInactive: "Inactive"}[vocab] {
					t.Errorf("%s shows the end state as %q", vocab, shown)
				}
				if got != Withdrawn && shown != got {
					t.Errorf("%s changed %q to %q", vocab, got, shown)
				}
			}
		}
	}
}

func TestEndStateIsFinal(t *testing.T) {
	if CheckTransition(Withdrawn, Active, VocabInactive) == nil {
		t.Fatal("left the end state")
	}
	if CheckTransition(Active, Withdrawn, VocabWithdrawn) != nil || CheckTransition(Withdrawn, Withdrawn, VocabWithdrawn) != nil {
		t.Fatal("refused a legal transition")
	}
}

func TestParseVocabulary(t *testing.T) {
	if _, err := ParseVocabulary("retired"); err == nil {
		t.Fatal("accepted an unknown vocabulary")
	}
	if v, _ := ParseVocabulary("Inactive"); v.EndWord() != "Inactive" || v.OtherWord() != "Withdrawn" {
		t.Fatal(v)
	}
}
