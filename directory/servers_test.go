package directory_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/trustframe/trustframe/directory"
)

// issuers answers every issuer with the problems it holds, and counts the
// checks.
type issuers struct {
	problems []string
	checked  int
}

func (i *issuers) Check(context.Context, string, string) []string { i.checked++; return i.problems }

func (i *issuers) PublishedKeys(context.Context, string, string) ([]json.RawMessage, []string) {
	return nil, []string{"no keys here"}
}

// A server with an unknown flag and two issuer problems is refused naming
// the flag and each issuer problem as its own entry (invalid_issuer), all
// at once; nothing is written. Input already refused is not fetched.
func TestServerCreateRefusesEveryFieldAtOnce(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	orgID := mustOrg(t, db, "Acme")
	check := &issuers{problems: []string{"The discovery document did not answer.", "It names another issuer."}}
	s := &directory.Servers{Store: db, Issuers: check}
	a := directory.Actor{Actor: "admin@example.com"}
	srv := directory.AuthorisationServer{OrganisationID: orgID, CustomerFriendlyName: "Login", Issuer: "https://login.acme.example", Flags: []string{"no-such-flag"}}
	_, err := s.Create(ctx, a, srv, nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["Flags"] == "" || e.Fields["Issuer"] != "" || len(e.More) != 2 || e.More[0].Code != directory.FieldInvalidIssuer {
		t.Fatalf("want Flags and two issuer problems, got %v (%+v)", err, e)
	}
	if _, err := s.Create(ctx, a, srv, directory.Fields{"CustomerFriendlyName": "This field contains a tab."}); err == nil || check.checked != 1 {
		t.Fatalf("input already refused: %v, %d issuer checks, want 1 in all", err, check.checked)
	}
	check.problems = nil
	srv.Flags = nil
	saved, err := s.Create(ctx, a, srv, nil)
	if err != nil || saved.OpenIDDiscoveryDocument != "https://login.acme.example/.well-known/openid-configuration" {
		t.Fatalf("a good server: %+v %v", saved, err)
	}
}

// The Authorisation servers tab lists the organisation's servers with the
// flags of servers only.
func TestServerTab(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	orgID := mustOrg(t, db, "Acme")
	a := directory.Actor{Actor: "admin@example.com"}
	flags := &directory.Flags{Store: db}
	for _, typ := range []string{"Authorisation_Server", "Software_Statement"} {
		if _, err := flags.Create(ctx, a, directory.Flag{Name: "Beta", Type: typ}, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := &directory.Servers{Store: db, Issuers: &issuers{}}
	if _, err := s.Create(ctx, a, directory.AuthorisationServer{OrganisationID: orgID, CustomerFriendlyName: "Login", Issuer: "https://login.acme.example"}, nil); err != nil {
		t.Fatal(err)
	}
	tab, err := s.Tab(ctx, orgID)
	if err != nil || len(tab.Servers) != 1 || tab.Servers[0].CustomerFriendlyName != "Login" || len(tab.Flags) != 1 || tab.Flags[0].Type != "Authorisation_Server" {
		t.Fatalf("tab: %+v %v", tab, err)
	}
	if list, err := s.List(ctx, orgID); err != nil || len(list) != 1 {
		t.Fatalf("list: %d %v", len(list), err)
	}
}
