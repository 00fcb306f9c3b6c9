package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

// TestStatusChangeRule: leaving the end state is back to Active only, by a
// Super User only, with a reason; every other change passes, and a reason
// over its maximum is refused whatever the change.
func TestStatusChangeRule(t *testing.T) {
	const end, active, pending = lifecycle.Withdrawn, lifecycle.Active, lifecycle.Pending
	for _, c := range []struct {
		name, from, next, reason string
		superUser                bool
		code                     directory.Code // "" passes
		fields                   string         // the fields named, in order
	}{
		{"an ordinary change", active, pending, "", false, "", ""},
		{"to the end state", active, end, "", false, "", ""},
		{"staying in the end state", end, end, "", false, "", ""},
		{"out of the end state but to Active", end, pending, "why", true, directory.CodeInvalidTransition, "Status"},
		{"a reactivation by a Data Administrator", end, active, "why", false, directory.CodeForbidden, "Status"},
		{"a reactivation without a reason", end, active, "  ", true, directory.CodeInvalid, "StatusReason Status"},
		{"a reactivation", end, active, "back in business", true, "", ""},
		{"a reason over its maximum", active, pending, strings.Repeat("a", directory.MaxReason+1), false, directory.CodeInvalid, "StatusReason"},
	} {
		err := directory.CheckStatusChange(lifecycle.VocabWithdrawn, c.from, c.next, c.reason, c.superUser)
		if c.code == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var e *directory.Error
		if !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("%s: err = %v, want code %s", c.name, err, c.code)
			continue
		}
		names := e.Fields.Names()
		for _, p := range e.More {
			names = append(names, p.Field)
		}
		if got := strings.Join(names, " "); got != c.fields {
			t.Errorf("%s: fields %q, want %q", c.name, got, c.fields)
		}
	}
}

// TestReactivateAnOrganisation: a Super User sets a withdrawn
// organisation Active again with a reason; the status it had comes back.
func TestReactivateAnOrganisation(t *testing.T) {
	ctx, db := context.Background(), mustOpen(t)
	a := directory.Actor{Actor: "admin@example.com"}
	o, err := db.GetOrganisation(ctx, mustOrg(t, db, "Acme"))
	if err != nil {
		t.Fatal(err)
	}
	o.Status = lifecycle.Withdrawn
	if o, err = db.UpdateOrganisation(ctx, a, o, nil, nil); err != nil {
		t.Fatal(err)
	}
	s := &directory.Reactivations{Store: db, Vocab: lifecycle.VocabWithdrawn}
	re, err := s.Load(ctx, lifecycle.Organisation, o.OrganisationID, "")
	if err != nil || re.Organisation.Status != lifecycle.Withdrawn || re.Servers != 0 {
		t.Fatalf("load: %+v, %v", re, err)
	}
	var e *directory.Error
	if _, err := s.Reactivate(ctx, a, re, "why", false, nil); !errors.As(err, &e) || e.Code != directory.CodeForbidden {
		t.Fatalf("by a Data Administrator: %v", err)
	}
	from, err := s.Reactivate(ctx, a, re, " back in business ", true, nil)
	if err != nil || from != lifecycle.Withdrawn {
		t.Fatalf("from %q, %v", from, err)
	}
	if got, _ := db.GetOrganisation(ctx, o.OrganisationID); got.Status != lifecycle.Active {
		t.Errorf("status %s", got.Status)
	}
}

// TestReactivationOfAMissingServer names what is missing.
func TestReactivationOfAMissingServer(t *testing.T) {
	ctx, db := context.Background(), mustOpen(t)
	s := &directory.Reactivations{Store: db, Vocab: lifecycle.VocabWithdrawn}
	_, err := s.Load(ctx, lifecycle.AuthorisationServer, mustOrg(t, db, "Acme"), "0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a")
	if e := refusal(err); e.Message != "Authorisation server not found" {
		t.Fatalf("%v", err)
	}
}

// TestAdministratorStatusIsActiveOrInactive: another word is refused
// before anything is written; none is written as none, which the store
// takes as the stored status.
func TestAdministratorStatusIsActiveOrInactive(t *testing.T) {
	ctx := context.Background()
	wrote := "nothing"
	set := func(_ context.Context, _ directory.Actor, email, status string, _ func(string) error) (string, error) {
		wrote = status
		return email, nil
	}
	var e *directory.Error
	if _, err := directory.SetAdministratorStatus(ctx, set, "Super User", directory.Actor{}, "a@example.com", "Gone", nil, nil); !errors.As(err, &e) || e.Fields["Status"] == "" || wrote != "nothing" {
		t.Fatalf("Gone: %v, wrote %q", err, wrote)
	}
	if _, err := directory.SetAdministratorStatus(ctx, set, "Super User", directory.Actor{}, "a@example.com", "", nil, nil); err != nil || wrote != "" {
		t.Fatalf("none: %v, wrote %q", err, wrote)
	}
	missing := func(context.Context, directory.Actor, string, string, func(string) error) (string, error) {
		return "", store.ErrNotFound
	}
	if _, err := directory.SetAdministratorStatus(ctx, missing, "Super User", directory.Actor{}, "a@example.com", "Inactive", nil, nil); !errors.As(err, &e) || e.Message != "Super User not found" {
		t.Fatalf("missing: %v", err)
	}
}
