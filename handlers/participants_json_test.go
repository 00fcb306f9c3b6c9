package handlers

import (
	"bytes"
	"encoding/json"
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
	var l participantList
	for i, s := range odd {
		p := store.Participant{
			Organisation: store.Organisation{OrganisationID: s + "id", OrganisationName: s, LegalEntityName: s + "L", RegistrationNumber: s + "R", CountryOfRegistration: "GB",
				AddressLine1: s, AddressLine2: s, City: s, Postcode: s, Status: "Active", Flags: []string{s, "f"}, CreatedOn: at, UpdatedOn: at.Add(time.Duration(i) * time.Second)},
			AuthorisationServers: []store.AuthorisationServer{{AuthorisationServerID: "as" + s, OrganisationID: s, CustomerFriendlyName: s, Description: s, Issuer: "https://x/" + s,
				OpenIDDiscoveryDocument: s, Status: "Active", Flags: []string{}, CreatedOn: at, UpdatedOn: time.Time{}}},
			OrgDomainClaims: []store.OrgDomainClaim{{OrganisationAuthorityDomainClaimID: s + "d", AuthorisationDomainName: s, AuthorityID: s, AuthorityName: s, RegistrationID: s, Status: "Active"}},
			OrgDomainRoleClaims: []store.OrgDomainRoleClaim{{OrganisationID: s, OrganisationAuthorityClaimID: s + "c", AuthorityID: s, Status: "Active", AuthorisationDomain: s, Role: s,
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
	got := l.appendJSON(nil)
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("differs at byte %d:\n got %s\nwant %s", i, got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
	if got := participantList(nil).appendJSON(nil); string(got) != "[]" {
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
		if got := (*orgAnswer)(&o).appendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
}
