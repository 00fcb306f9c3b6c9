package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
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
