package participants

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"testing"
	"time"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

// listed is a Store that holds a fixed list.
type listed []store.Participant

func (l listed) Participants(context.Context) ([]store.Participant, error) {
	return append([]store.Participant(nil), l...), nil
}

// TestReadKeepsTheOrganisationsWithTheClaimAsked: a domain, a role or
// both keep the organisations with a claim on them; none keeps all; the
// statuses read in the vocabulary in force.
func TestReadKeepsTheOrganisationsWithTheClaimAsked(t *testing.T) {
	org := func(id string, claims ...[2]string) store.Participant {
		p := store.Participant{Organisation: store.Organisation{OrganisationID: id, Status: lifecycle.Withdrawn},
			AuthorisationServers: []store.AuthorisationServer{{Status: lifecycle.Withdrawn}}}
		for _, c := range claims {
			p.OrgDomainRoleClaims = append(p.OrgDomainRoleClaims, store.OrgDomainRoleClaim{AuthorisationDomain: c[0], Role: c[1]})
		}
		return p
	}
	st := listed{org("a", [2]string{"Open Banking", "AISP"}), org("b", [2]string{"Open Banking", "PISP"}), org("c", [2]string{"Insurance", "AISP"}), org("d")}
	for _, c := range []struct {
		domain, role, want string
	}{
		{"", "", "abcd"},
		{"Open Banking", "", "ab"},
		{"", "AISP", "ac"},
		{"Open Banking", "AISP", "a"},
		{"Nowhere", "", ""},
	} {
		l, err := Read(context.Background(), st, c.domain, c.role, lifecycle.VocabInactive)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, p := range l {
			got += p.OrganisationID
			if p.Status != "Inactive" || p.AuthorisationServers[0].Status != "Inactive" {
				t.Errorf("%s: statuses %q, %q; want the vocabulary's Inactive", p.OrganisationID, p.Status, p.AuthorisationServers[0].Status)
			}
		}
		if got != c.want {
			t.Errorf("domain %q role %q: %q, want %q", c.domain, c.role, got, c.want)
		}
	}
}

// TestNewAnswerIsTheBodyPlainAndGzipped: the gzipped body is the body,
// the ETag depends on the body alone, Last-Modified is when the build
// began.
func TestNewAnswerIsTheBodyPlainAndGzipped(t *testing.T) {
	began := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := NewAnswer(7, began, []byte(`["A"]`))
	zr, err := gzip.NewReader(bytes.NewReader(a.Gzip))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := io.ReadAll(zr); err != nil || string(plain) != `["A"]` {
		t.Fatalf("gzipped %q %v", plain, err)
	}
	if a.Version != 7 || !a.Modified.Equal(began) || a.Large() {
		t.Fatalf("%+v", a)
	}
	if same := NewAnswer(8, began.Add(time.Hour), []byte(`["A"]`)); same.ETag != a.ETag {
		t.Fatalf("the same body has ETags %s and %s", a.ETag, same.ETag)
	}
	if other := NewAnswer(7, began, []byte(`["B"]`)); other.ETag == a.ETag {
		t.Fatalf("two bodies share the ETag %s", a.ETag)
	}
}
