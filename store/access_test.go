package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// TestAccessOfAnOrganisationAdministrator: a person invited for two
// organisations has the role OrganisationAdministrator limited to both,
// Invited until their first sign-in (which makes every record Active,
// audited per organisation); an Inactive record drops its organisation at
// once (the cached role is forgotten), and a Data Administrator record
// outranks them.
func TestAccessOfAnOrganisationAdministrator(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	a := store.Audit{Actor: "admin@example.com"}
	var orgs []string
	for _, name := range []string{"Alpha", "Beta", "Gamma"} {
		o, err := db.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: name, RegistrationNumber: name, CountryOfRegistration: "GB", Status: "Active"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		orgs = append(orgs, o.OrganisationID)
	}
	if acc, err := db.AccessVia(ctx, "olga@example.com", ""); err != nil || acc.Role != store.RoleNone {
		t.Fatalf("before any invitation: %+v %v", acc, err)
	}
	for _, o := range orgs[:2] {
		if _, _, err := db.InviteOrganisationAdministrator(ctx, a, o, "Olga@Example.com", directory.Invitation{To: "olga@example.com", Subject: "s", Body: "b"}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := db.InviteOrganisationAdministrator(ctx, a, orgs[0], "olga@example.com", directory.Invitation{To: "olga@example.com"})
	var conflict *store.ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("a repeat invitation: %v, want a conflict", err)
	}
	if _, _, err := db.InviteOrganisationAdministrator(ctx, a, "00000000-0000-4000-8000-000000000000", "olga@example.com", directory.Invitation{To: "olga@example.com"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown organisation: %v, want not found", err)
	}
	want := slices.Sorted(slices.Values(orgs[:2]))
	acc, err := db.AccessVia(ctx, "olga@example.com", "")
	if err != nil || acc.Role != store.RoleOrgAdmin || !slices.Equal(acc.Orgs, want) {
		t.Fatalf("invited for two: %+v %v, want %v", acc, err, want)
	}
	if role, err := db.SignIn(ctx, "olga@example.com", "web", ""); err != nil || role != store.RoleOrgAdmin {
		t.Fatalf("first sign-in: %q %v", role, err)
	}
	for _, o := range orgs[:2] {
		u, err := db.GetOrganisationAdministrator(ctx, o, "olga@example.com")
		if err != nil || u.Status != "Active" || u.ActivatedAt == nil {
			t.Fatalf("after the first sign-in: %+v %v", u, err)
		}
	}
	if _, err := db.SetOrganisationAdministratorStatus(ctx, a, orgs[0], "olga@example.com", "Inactive", nil); err != nil {
		t.Fatal(err)
	}
	if acc, err := db.AccessVia(ctx, "olga@example.com", ""); err != nil || !slices.Equal(acc.Orgs, []string{orgs[1]}) {
		t.Fatalf("one record Inactive: %+v %v", acc, err)
	}
	audit, _, err := db.ListAudit(ctx, store.AuditFilter{SubjectType: "OrganisationAdministrator", OrganisationID: orgs[0], Size: 50})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, r := range audit {
		actions = append(actions, r.Action)
	}
	slices.Sort(actions)
	if !slices.Equal(actions, []string{"activate", "invite", "status"}) {
		t.Fatalf("the audit of organisation A's administrator: %v", actions)
	}
	if _, _, err := db.InviteDataAdministrator(ctx, a, "olga@example.com", directory.Invitation{To: "olga@example.com"}); err != nil {
		t.Fatal(err)
	}
	if acc, err := db.AccessVia(ctx, "olga@example.com", ""); err != nil || acc.Role != store.RoleDataAdmin || acc.Orgs != nil {
		t.Fatalf("also a Data Administrator: %+v %v", acc, err)
	}
}
