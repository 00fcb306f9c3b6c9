package participants

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
)

// TestParticipantsJSONIsEncodingJSON: the participants answer's own
// encoder writes exactly what json.Marshal writes, every field set (so a
// field added to a type and forgotten by the encoder fails here), empty
// and nil lists, and strings that need escaping.
func TestParticipantsJSONIsEncodingJSON(t *testing.T) {
	odd := []string{"", "plain", `quote " back \ slash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f", "<b>&amp;</b>", "naïve ünïcödé 日本", "line\u2028para\u2029", "bad \xff utf8 \xc3", "emoji 🏦"}
	at := time.Date(2026, 11, 22, 18, 0, 0, 123456789, time.UTC)
	var l List
	for i, s := range odd {
		p := store.Participant{
			Organisation: store.Organisation{OrganisationID: s + "id", OrganisationName: s, LegalEntityName: s + "L", RegistrationNumber: s + "R", CountryOfRegistration: "GB",
				AddressLine1: s, AddressLine2: s, City: s, Postcode: s, Status: "Active", Flags: []string{s, "f"}, CreatedOn: at, UpdatedOn: at.Add(time.Duration(i) * time.Second)},
			AuthorisationServers: []store.AuthorisationServer{{AuthorisationServerID: "as" + s, OrganisationID: s, CustomerFriendlyName: s, Description: s, Issuer: "https://x/" + s,
				OpenIDDiscoveryDocument: s, Status: "Active", Flags: []string{}, CreatedOn: at, UpdatedOn: time.Time{}}},
			OrgDomainClaims: []store.OrgDomainClaim{{AuthorisationDomainName: s, AuthorityID: s, AuthorityName: s, RegistrationID: s, Status: "Active"}},
			OrgDomainRoleClaims: []store.OrgDomainRoleClaim{{OrganisationID: s, AuthorityID: s, Status: "Active", AuthorisationDomain: s, Role: s,
				Authorisations: []store.Authorisation{{Status: "Active", MemberState: s}}, RegistrationID: s}, {Authorisations: []store.Authorisation{}}},
		}
		l = append(l, p)
	}
	l = append(l, store.Participant{}) // nil lists everywhere
	l = append(l, store.Participant{Organisation: store.Organisation{Flags: []string{}}, AuthorisationServers: []store.AuthorisationServer{}, OrgDomainClaims: []store.OrgDomainClaim{}, OrgDomainRoleClaims: []store.OrgDomainRoleClaim{}})
	want, err := json.Marshal([]store.Participant(l))
	if err != nil {
		t.Fatal(err)
	}
	got := l.AppendJSON(nil)
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("differs at byte %d:\n got %s\nwant %s", i, got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
	if got := List(nil).AppendJSON(nil); string(got) != "[]" {
		t.Fatalf("an empty list: %s", got)
	}
}

func FuzzAppendStringIsEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\", "<>&", "\u2028", "\xff", "日本\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// TestOrganisationJSONIsEncodingJSON: the point read's own encoder writes
// exactly what json.Marshal writes for every field (a field added to
// store.Organisation and not to the encoder fails here), with and without
// a StatusReason, nil and empty flags, strings that need escaping, and
// times in another zone.
func TestOrganisationJSONIsEncodingJSON(t *testing.T) {
	odd := []string{"", "plain", `quote " back \ slash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f", "<b>&amp;</b>", "naïve ünïcödé 日本", "line\u2028para\u2029", "bad \xff utf8 \xc3", "emoji 🏦"}
	at := time.Date(2026, 11, 22, 18, 0, 0, 123456789, time.FixedZone("X", 3600))
	var orgs []store.Organisation
	for i, s := range odd {
		orgs = append(orgs, store.Organisation{OrganisationID: s + "id", OrganisationName: s, LegalEntityName: s + "L", RegistrationNumber: s + "R", CountryOfRegistration: s,
			AddressLine1: s, AddressLine2: s + "2", City: s + "c", Postcode: s + "p", Status: s + "s", StatusReason: s, Flags: []string{s, "f"}, CreatedOn: at, UpdatedOn: at.Add(time.Duration(i) * time.Second).UTC()})
	}
	orgs = append(orgs, store.Organisation{}, store.Organisation{Flags: []string{}})
	for _, o := range orgs {
		want, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendOrganisation(nil, &o); !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
}

// The participants answer is built in the allocation sizeHint asks for:
// no growing (a copy of everything so far each time), and not much more
// than it needs, whatever the mix of large and small participants.
func TestParticipantsSizeHintFits(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2026, 11, 22, 18, 0, 0, 123456789, time.UTC)
	word := func(n int) string { return strings.Repeat("x", rnd.IntN(n)) }
	for _, n := range []int{1, 7, 300, 5000} {
		var l List
		for i := range n {
			p := store.Participant{Organisation: store.Organisation{OrganisationID: word(40), OrganisationName: word(120), City: word(30),
				Status: "Active", Flags: []string{}, CreatedOn: at, UpdatedOn: at}}
			if i%3 == 0 { // a third with servers and claims, in runs
				for range rnd.IntN(4) {
					p.AuthorisationServers = append(p.AuthorisationServers, store.AuthorisationServer{Issuer: "https://as.example/" + word(60), Description: word(400)})
				}
				for range rnd.IntN(5) {
					p.OrgDomainRoleClaims = append(p.OrgDomainRoleClaims, store.OrgDomainRoleClaim{RegistrationID: word(36), Role: word(20)})
				}
			}
			l = append(l, p)
		}
		hint := l.sizeHint()
		b := make([]byte, 0, hint)
		out := l.AppendJSON(b)
		if cap(out) != cap(b) {
			t.Errorf("%d participants: the answer grew past the hint (%d bytes, hint %d)", n, len(out), hint)
		}
		if n >= 300 && hint > len(out)*5/4 {
			t.Errorf("%d participants: hint %d for %d bytes", n, hint, len(out))
		}
	}
}
