package directory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

func TestOrganisationValidate(t *testing.T) {
	o := directory.Organisation{OrganisationName: "Acme", RegistrationNumber: "1", CountryOfRegistration: "uk", OrganisationID: "ABC", Status: "Inactive"}
	f := o.Validate(true, lifecycle.Vocabulary(""))
	if f["CountryOfRegistration"] == "" || f["OrganisationId"] == "" {
		t.Fatalf("want the country and the id refused, got %v", f)
	}
	if o.Status != lifecycle.Withdrawn || o.Flags == nil {
		t.Fatalf("status %q, flags %v: want the canonical word and a list", o.Status, o.Flags)
	}
	n := directory.Organisation{OrganisationName: "Acme", RegistrationNumber: "1", CountryOfRegistration: "GB"}
	if f := n.Validate(true, lifecycle.Vocabulary("")); len(f) != 0 || n.Status != lifecycle.Pending {
		t.Fatalf("a new organisation without a status: %v, %q", f, n.Status)
	}
}

// A new organisation with a missing name and an unknown flag is refused
// naming both at once, by one write that writes nothing (no dry run).
func TestOrganisationCreateRefusesEveryFieldAtOnce(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	s := &directory.Organisations{Store: db}
	_, err := s.Create(ctx, directory.Actor{Actor: "admin@example.com"}, directory.Organisation{RegistrationNumber: "1", CountryOfRegistration: "GB", Flags: []string{"no-such-flag"}}, nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["OrganisationName"] == "" || e.Fields["Flags"] == "" {
		t.Fatalf("want OrganisationName and Flags refused, got %v", err)
	}
	if _, n, err := db.ListOrganisations(ctx, store.OrgFilter{Size: 10}); err != nil || n != 0 {
		t.Fatalf("a refused organisation was written: %d %v", n, err)
	}
}

// An update runs the status rule on the stored organisation after the
// caller's check: leaving the end state is a Super User's, with a reason
// kept in the audit record; the status it had comes back for the message,
// and a refusal returns the organisation as read.
func TestOrganisationUpdateRunsTheStatusRule(t *testing.T) {
	ctx, db := context.Background(), mustOpen(t)
	s := &directory.Organisations{Store: db, Vocab: lifecycle.VocabWithdrawn}
	a := directory.Actor{Actor: "admin@example.com"}
	o, err := s.Get(ctx, mustOrg(t, db, "Acme"))
	if err != nil {
		t.Fatal(err)
	}
	o.Status = "Inactive" // the end state's other word
	saved, from, err := s.Update(ctx, a, o, nil, false, nil)
	if err != nil || from != lifecycle.Active || saved.Status != lifecycle.Withdrawn {
		t.Fatalf("withdraw: %q from %q, %v", saved.Status, from, err)
	}
	saved.Status = lifecycle.Active
	read, _, err := s.Update(ctx, a, saved, nil, false, nil)
	if refusal(err).Code != directory.CodeForbidden || read.OrganisationName != "Acme" {
		t.Fatalf("a reactivation by a Data Administrator: %v (%+v)", err, read)
	}
	stale := errors.New("stale")
	if _, _, err := s.Update(ctx, a, saved, nil, true, func(directory.Organisation) error { return stale }); !errors.Is(err, stale) {
		t.Fatalf("the caller's check did not run first: %v", err)
	}
	saved.StatusReason = "back in business"
	if back, from, err := s.Update(ctx, a, saved, nil, true, nil); err != nil || from != lifecycle.Withdrawn || back.Status != lifecycle.Active {
		t.Fatalf("a reactivation: %q from %q, %v", back.Status, from, err)
	}
}

// The details tab has the flags of organisations, and the onboarding
// checklist only for a Pending organisation; another organisation with
// the same registration is found for the warning on a new one.
func TestOrganisationDetailsAndSameRegistration(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	activeID := mustOrg(t, db, "Acme")
	a := directory.Actor{Actor: "admin@example.com"}
	if _, err := (&directory.Flags{Store: db}).Create(ctx, a, directory.Flag{Name: "Sandbox", Type: "Organisation"}, nil); err != nil {
		t.Fatal(err)
	}
	s := &directory.Organisations{Store: db}
	active, err := s.Get(ctx, activeID)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Details(ctx, active, time.Now())
	if err != nil || len(d.Flags) != 1 || d.Readiness != nil {
		t.Fatalf("an Active organisation's details: %+v %v", d, err)
	}
	pending, err := s.Create(ctx, a, directory.Organisation{OrganisationName: "Acme Two", RegistrationNumber: "1", CountryOfRegistration: "GB"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := s.Details(ctx, pending, time.Now()); err != nil || d.Readiness == nil || *d.Readiness != (directory.Readiness{}) {
		t.Fatalf("a Pending organisation's details: %+v %v", d, err)
	}
	same, err := s.SameRegistration(ctx, pending)
	if err != nil || len(same) != 1 || same[0].OrganisationID != activeID {
		t.Fatalf("same registration: %+v %v", same, err)
	}
}
