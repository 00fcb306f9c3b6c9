package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
)

// An administrator's e-mail is folded by its ASCII letters only: a
// look-alike of an ASCII address (the Kelvin sign for k) stays another
// address, and is refused as an administrator's.
func TestAdminEmailFoldsASCIIOnly(t *testing.T) {
	if got := directory.NormalizeEmail("  Kate@Example.COM "); got != "kate@example.com" {
		t.Fatalf("NormalizeEmail = %q", got)
	}
	kelvin := "\u212Aate@example.com"
	if got := directory.NormalizeEmail(kelvin); got != kelvin {
		t.Fatalf("a non-ASCII letter was folded: %q", got)
	}
	if msg := directory.AdminEmailProblem(kelvin); !strings.Contains(msg, "plain ASCII") {
		t.Fatalf("look-alike accepted: %q", msg)
	}
	if msg := directory.AdminEmailProblem("kate@"); !strings.Contains(msg, "valid e-mail") {
		t.Fatalf("not an address: %q", msg)
	}
}

// A new Super User with a bad e-mail and a bad status is refused naming
// both at once and nothing is written; an existing e-mail is a conflict.
func TestSuperUserCreateRefusesEveryFieldAtOnce(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	s := &directory.Administrators{Store: db}
	a := directory.Actor{Actor: "root@example.com"}
	_, err := s.CreateSuperUser(ctx, a, "not-an-address", "Sleeping", nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["Email"] == "" || e.Fields["Status"] == "" {
		t.Fatalf("want Email and Status refused, got %v", err)
	}
	if users, _ := s.SuperUsers(ctx); len(users) != 0 {
		t.Fatalf("a refused Super User was written: %v", users)
	}
	if _, err := s.CreateSuperUser(ctx, a, "Sue@Example.com", "Active", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSuperUser(ctx, a, "sue@example.com", "Active", nil); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("an existing Super User: %v", err)
	}
	if _, err := s.SuperUser(ctx, "nobody@example.com"); !errors.As(err, &e) || e.Code != directory.CodeNotFound {
		t.Fatalf("a Super User that does not exist: %v", err)
	}
}

// The last Active Super User cannot be made Inactive; the others are
// counted only when a Super User is being deactivated.
func TestKeepOneSuperUser(t *testing.T) {
	counted := 0
	count := func(n int) func() (int, error) {
		return func() (int, error) { counted++; return n, nil }
	}
	if err := directory.KeepOneSuperUser("Active", "Inactive", count(0)); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("the last one deactivated: %v", err)
	}
	if err := directory.KeepOneSuperUser("Active", "Inactive", count(1)); err != nil {
		t.Fatalf("one of two deactivated: %v", err)
	}
	counted = 0
	for _, c := range [][2]string{{"Inactive", "Active"}, {"Inactive", "Inactive"}, {"Active", ""}} {
		if err := directory.KeepOneSuperUser(c[0], c[1], count(0)); err != nil {
			t.Fatalf("%s -> %q: %v", c[0], c[1], err)
		}
	}
	if counted != 0 {
		t.Fatalf("counted %d times when nobody was deactivated", counted)
	}
}

// An invitation is recorded with its message in the outbox, addressed to
// the folded e-mail and naming who invited, what a Data Administrator may
// and may not do, and where to sign in; a bad
// e-mail is refused and nothing is written.
func TestDataAdminInvite(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	s := &directory.Administrators{Store: db, BaseURL: "https://directory.example"}
	a := directory.Actor{Actor: "root@example.com"}
	var e *directory.Error
	if _, err := s.Invite(ctx, a, "dana@", nil); !errors.As(err, &e) || e.Fields["Email"] == "" {
		t.Fatalf("a bad e-mail: %v", err)
	}
	u, err := s.Invite(ctx, a, "Dana@Example.com", nil)
	if err != nil || u.Email != "dana@example.com" || u.Status != "Invited" {
		t.Fatalf("invite: %+v %v", u, err)
	}
	out, err := db.ListOutbox(ctx, 10)
	if err != nil || len(out) != 1 {
		t.Fatalf("outbox: %v %v", out, err)
	}
	if m := out[0]; m.To != "dana@example.com" || !strings.Contains(m.Body, "root@example.com invited you") || !strings.Contains(m.Body, "https://directory.example/login") {
		t.Fatalf("message: %+v", m)
	}
	// It says what a Data Administrator may do and may not do.
	for _, want := range []string{"As a Data Administrator you may:", "import and export organisations", "authority claims (roles)",
		"Organisation Administrators", "change feed", "You may not:", "Reference Data", "only a Super User reactivates", "audit log with your e-mail"} {
		if !strings.Contains(out[0].Body, want) {
			t.Errorf("the message does not say %q:\n%s", want, out[0].Body)
		}
	}
	if _, err := s.Invite(ctx, a, "dana@example.com", nil); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("invited twice: %v", err)
	}
}
