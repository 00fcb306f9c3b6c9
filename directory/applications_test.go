package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
)

func TestApplicationValidate(t *testing.T) {
	a := directory.SoftwareStatement{ClientName: "Wallet", RedirectURI: []string{"https://w.example/cb", "https://w.example/cb"},
		SoftwareOriginsURI: []string{"https://w.example/path"}, BackchannelTokenDeliveryMode: "ping", FederationEntityID: "http://w.example"}
	f := a.Validate(true, lifecycle.Vocabulary(""), false)
	for _, field := range []string{"RedirectUri", "software_origins_uri", "backchannel_client_notification_endpoint", "FederationEntityId"} {
		if f[field] == "" {
			t.Errorf("%s not refused: %v", field, f)
		}
	}
	if a.Version != "1" || a.Status != lifecycle.Active || a.Flags == nil {
		t.Fatalf("defaults: version %q, status %q, flags %v", a.Version, a.Status, a.Flags)
	}
	long := directory.SoftwareStatement{ClientName: "W", JwksURI: "http://" + strings.Repeat("x", directory.MaxURL)}
	if got := long.Validate(true, lifecycle.Vocabulary(""), false)["JwksUri"]; !strings.HasPrefix(got, "At most") {
		t.Fatalf("a JWKS URI both too long and not https says %q, want the limit", got)
	}
}

// A new application with a missing name and a role its organisation does
// not hold is refused naming both at once, and nothing is written.
func TestApplicationCreateRefusesEveryFieldAtOnce(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	orgID := mustOrg(t, db, "Acme")
	s := &directory.Applications{Store: db}
	_, err := s.Create(ctx, directory.Actor{Actor: "admin@example.com"}, directory.SoftwareStatement{OrganisationID: orgID, Roles: []string{"PISP"}}, nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["ClientName"] == "" || !strings.Contains(e.Fields["Roles"], "PISP") {
		t.Fatalf("want ClientName and Roles refused, got %v", err)
	}
	if apps, err := db.ListSoftwareStatements(ctx, orgID); err != nil || len(apps) != 0 {
		t.Fatalf("a refused application was written: %d %v", len(apps), err)
	}
}

// The Applications tab lists the organisation's applications with the
// flags of applications only; the choices of a form are those flags and
// the roles the organisation holds (none without a claim).
func TestApplicationTabAndChoices(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	orgID := mustOrg(t, db, "Acme")
	a := directory.Actor{Actor: "admin@example.com"}
	flags := &directory.Flags{Store: db}
	for _, typ := range []string{"Software_Statement", "Organisation"} {
		if _, err := flags.Create(ctx, a, directory.Flag{Name: "Beta", Type: typ}, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := &directory.Applications{Store: db}
	if _, err := s.Create(ctx, a, directory.SoftwareStatement{OrganisationID: orgID, ClientName: "Wallet"}, nil); err != nil {
		t.Fatal(err)
	}
	tab, err := s.Tab(ctx, orgID)
	if err != nil || len(tab.Apps) != 1 || tab.Apps[0].ClientName != "Wallet" || len(tab.Flags) != 1 || tab.Flags[0].Type != "Software_Statement" {
		t.Fatalf("tab: %+v %v", tab, err)
	}
	c, err := s.Choices(ctx, orgID)
	if err != nil || len(c.Flags) != 1 || len(c.HeldRoles) != 0 {
		t.Fatalf("choices: %+v %v", c, err)
	}
	if apps, err := s.List(ctx, orgID); err != nil || len(apps) != 1 {
		t.Fatalf("list: %d %v", len(apps), err)
	}
}
