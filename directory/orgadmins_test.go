package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
)

// refusingMailer refuses every message.
type refusingMailer struct{ sent int }

func (m *refusingMailer) Send(context.Context, string, string, string) error {
	m.sent++
	return errors.New("550 mailbox unavailable")
}

// An organisation's administrator is invited with a message that names
// the organisation and says what they may and may not do; the invitation
// stands when the mail server refuses it (the message stays in the outbox,
// tried again); a repeat invitation of the same person is a conflict, a
// bad e-mail names the field and writes nothing.
func TestOrgAdminInvite(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	org := mustOrg(t, db, "Acme Bank")
	mail := &refusingMailer{}
	s := &directory.OrgAdministrators{Store: db, BaseURL: "https://directory.example", Mailer: mail}
	a := directory.Actor{Actor: "dana@example.com"}

	if _, err := s.Invite(ctx, a, org, "olga@", nil); fieldOf(err) != "Email" {
		t.Fatalf("a bad e-mail: %v", err)
	}
	if _, err := s.Invite(ctx, a, org, "\u212Aate@example.com", nil); fieldOf(err) != "Email" {
		t.Fatalf("a look-alike e-mail: %v", err)
	}
	if list, _ := s.List(ctx, a, org); len(list) != 0 {
		t.Fatalf("a refused invitation was written: %v", list)
	}
	u, err := s.Invite(ctx, a, org, "Olga@Example.com", nil)
	if err != nil || u.Email != "olga@example.com" || u.Status != "Invited" || u.OrganisationID != org || u.InvitedBy != "dana@example.com" {
		t.Fatalf("invite: %+v %v", u, err)
	}
	out, err := db.ListOutbox(ctx, 10)
	if err != nil || len(out) != 1 || mail.sent != 1 {
		t.Fatalf("outbox: %v %v (sent %d)", out, err, mail.sent)
	}
	m := out[0]
	if m.To != "olga@example.com" || !strings.Contains(m.Subject, "Acme Bank") || m.Delivered || m.Attempts != 1 {
		t.Fatalf("message: %+v", m)
	}
	for _, want := range []string{"dana@example.com invited you", "Organisation Administrator of Acme Bank", "You may not:",
		"contacts", "Active or Inactive (an application also Suspended", "certificate signing request", "software statement assertions", "authority claims (roles) or flags",
		"any other organisation", "your own status", "Reference Data", "https://directory.example/login"} {
		if !strings.Contains(m.Body, want) {
			t.Errorf("the message does not say %q:\n%s", want, m.Body)
		}
	}
	if _, err := s.Invite(ctx, a, org, "olga@example.com", nil); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("invited twice: %v", err)
	}
	if _, err := s.Invite(ctx, a, "no-such-org", "ivan@example.com", nil); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("unknown organisation: %v", err)
	}
	if got, err := s.Get(ctx, a, org, "OLGA@example.com"); err != nil || got.Email != "olga@example.com" {
		t.Fatalf("get: %+v %v", got, err)
	}
	if _, err := s.Get(ctx, a, org, "nobody@example.com"); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("get of nobody: %v", err)
	}
	if _, err := s.List(ctx, a, "no-such-org"); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("list of an unknown organisation: %v", err)
	}
}

// An Organisation Administrator manages the other administrators of their
// organisation, never themselves (403), and nothing of another
// organisation (404, as if it did not exist); a status is Active or
// Inactive only; If-Match runs on the stored record.
func TestOrgAdminStatusRules(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	acme, other := mustOrg(t, db, "Acme"), mustOrg(t, db, "Other")
	s := &directory.OrgAdministrators{Store: db}
	data := directory.Actor{Actor: "dana@example.com"}
	for _, e := range []string{"olga@example.com", "omar@example.com"} {
		if _, err := s.Invite(ctx, data, acme, e, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Invite(ctx, data, other, "ben@example.com", nil); err != nil {
		t.Fatal(err)
	}
	olga := directory.Actor{Actor: "olga@example.com", Within: []string{acme}}

	// Themselves: refused, nothing changed.
	_, err := s.SetStatus(ctx, olga, acme, "Olga@example.com", "Inactive", nil, nil)
	if e := refusal(err); e.Code != directory.CodeForbidden || !strings.Contains(e.Message, "your own status") {
		t.Fatalf("deactivating themselves: %v", err)
	}
	if u, _ := s.Get(ctx, data, acme, "olga@example.com"); u.Status != "Invited" {
		t.Fatalf("changed: %+v", u)
	}
	// Another organisation: not found, even for reading, even inviting.
	if _, err := s.SetStatus(ctx, olga, other, "ben@example.com", "Inactive", nil, nil); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("another organisation's administrator: %v", err)
	}
	if _, err := s.List(ctx, olga, other); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("another organisation's list: %v", err)
	}
	if _, err := s.Invite(ctx, olga, other, "eve@example.com", nil); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("inviting into another organisation: %v", err)
	}
	// A bad status names the field.
	if _, err := s.SetStatus(ctx, olga, acme, "omar@example.com", "Suspended", nil, nil); fieldOf(err) != "Status" {
		t.Fatalf("a bad status: %v", err)
	}
	if _, err := s.SetStatus(ctx, olga, acme, "omar@example.com", "Invited", nil, nil); fieldOf(err) != "Status" {
		t.Fatalf("Invited set by hand: %v", err)
	}
	// A failed check changes nothing.
	stale := errors.New("stale")
	if _, err := s.SetStatus(ctx, olga, acme, "omar@example.com", "Inactive", nil,
		func(directory.OrganisationAdministrator) error { return stale }); !errors.Is(err, stale) {
		t.Fatalf("check: %v", err)
	}
	// The others: deactivated and reactivated.
	u, err := s.SetStatus(ctx, olga, acme, "omar@example.com", "Inactive", nil, nil)
	if err != nil || u.Status != "Inactive" {
		t.Fatalf("deactivate another: %+v %v", u, err)
	}
	if u, err = s.SetStatus(ctx, olga, acme, "omar@example.com", "Active", nil, nil); err != nil || u.Status != "Active" {
		t.Fatalf("reactivate another: %+v %v", u, err)
	}
	if _, err := s.SetStatus(ctx, olga, acme, "nobody@example.com", "Active", nil, nil); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("nobody: %v", err)
	}
	if _, err := s.SetStatus(ctx, data, "no-such-org", "omar@example.com", "Active", nil, nil); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("unknown organisation: %v", err)
	}
	// A Data Administrator may change anyone, an administrator's own record
	// included (it is not theirs).
	if u, err := s.SetStatus(ctx, data, acme, "olga@example.com", "Inactive", nil, nil); err != nil || u.Status != "Inactive" {
		t.Fatalf("a Data Administrator: %+v %v", u, err)
	}
	// Audited with the organisation.
	recs, _, err := db.ListAudit(ctx, directory.AuditFilter{OrganisationID: acme, Action: "status", SubjectType: "OrganisationAdministrator", Size: 50})
	if err != nil || len(recs) != 3 {
		t.Fatalf("audit: %v %v", recs, err)
	}
}
