package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// A claim with a registration over its limit and an authority that does
// not exist is refused naming both at once; a ClaimId sent is refused
// alone; nothing is written.
func TestClaimCreateRefusesEveryFieldAtOnce(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	orgID := mustOrg(t, db, "Acme")
	s := &directory.Claims{Store: db}
	a := directory.Actor{Actor: "admin@example.com"}
	claim := directory.AuthorityClaim{OrganisationID: orgID, AuthorityID: "no-such-authority", AuthorisationDomain: "Payments", Role: "PISP", RegistrationID: strings.Repeat("9", 41)}
	_, err := s.Create(ctx, a, claim, nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["RegistrationId"] == "" || !strings.Contains(e.Fields["AuthorityId"], "no-such-authority") {
		t.Fatalf("want RegistrationId and AuthorityId refused, got %v", err)
	}
	claim.ClaimID = "mine"
	if _, err := s.Create(ctx, a, claim, nil); !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields["ClaimId"] == "" {
		t.Fatalf("a ClaimId sent: %v", err)
	}
	if claims, err := db.ListAuthorityClaims(ctx, orgID); err != nil || len(claims) != 0 {
		t.Fatalf("a refused claim was written: %d %v", len(claims), err)
	}
}

// An update that sends another ClaimId, changes the role the claim names
// and a registration over its limit is refused naming all three at once,
// and the stored claim does not change; an update of the Status alone
// keeps what the claim names.
func TestClaimUpdateRefusesEveryFieldAtOnce(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	orgID := mustOrg(t, db, "Acme")
	a := directory.Actor{Actor: "admin@example.com"}
	if _, err := db.CreateAuthorisationDomain(ctx, a, store.AuthorisationDomain{Name: "Payments", Status: "Active"}); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"ASPSP", "PISP"} {
		if _, err := db.CreateDomainRole(ctx, a, store.DomainRole{Name: role, AuthorisationDomain: "Payments", Type: "Federation", Status: "Active"}); err != nil {
			t.Fatal(err)
		}
	}
	auth, err := db.CreateAuthority(ctx, a, store.Authority{AuthorityName: "Central Bank", AuthorityCode: "CB", Country: "GB", Status: "Active", AuthorisationDomains: []string{"Payments"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &directory.Claims{Store: db}
	c, err := s.Create(ctx, a, directory.AuthorityClaim{OrganisationID: orgID, AuthorityID: auth.AuthorityID, AuthorisationDomain: "Payments", Role: "ASPSP", RegistrationID: "R1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := directory.AuthorityClaim{ClaimID: "another", OrganisationID: orgID, Role: "PISP", RegistrationID: strings.Repeat("9", 41), Status: "Inactive"}
	_, err = s.Update(ctx, a, c.ClaimID, sent, nil, nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["ClaimId"] == "" || e.Fields["Role"] == "" || e.Fields["RegistrationId"] == "" {
		t.Fatalf("want ClaimId, Role and RegistrationId refused, got %v", err)
	}
	if got, _ := s.Get(ctx, orgID, c.ClaimID); got.Status != "Active" || got.RegistrationID != "R1" {
		t.Fatalf("a refused update changed the claim: %+v", got)
	}
	got, err := s.Update(ctx, a, c.ClaimID, directory.AuthorityClaim{OrganisationID: orgID, RegistrationID: "R2", Status: "Inactive"}, nil, nil)
	if err != nil || got.Status != "Inactive" || got.RegistrationID != "R2" || got.Role != "ASPSP" {
		t.Fatalf("status update: %+v %v", got, err)
	}
	if _, err := s.Update(ctx, a, "no-such-claim", directory.AuthorityClaim{OrganisationID: orgID}, nil, nil); !errors.As(err, &e) || e.Code != directory.CodeNotFound {
		t.Fatalf("a claim that does not exist: %v", err)
	}
}
