package web

import (
	"testing"
	"time"
)

// An e-mail learned for a subject stands in for DPoP-bound tokens for a
// web session's lifetime, per issuer and subject, and no longer.
func TestLearnedEmailsExpireAndStayPerIssuer(t *testing.T) {
	var l learnedEmails
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	l.learn("https://op.example", "u1", "a@example.com", t0)
	l.learn("https://op.example", "", "nobody@example.com", t0) // no subject: nothing learned
	if got := l.lookup("https://op.example", "u1", t0.Add(11*time.Hour)); got != "a@example.com" {
		t.Fatalf("within the lifetime: %q", got)
	}
	if got := l.lookup("https://other.example", "u1", t0); got != "" {
		t.Fatalf("another issuer's subject u1: %q", got)
	}
	if got := l.lookup("https://op.example", "", t0); got != "" {
		t.Fatalf("empty subject: %q", got)
	}
	if got := l.lookup("https://op.example", "u1", t0.Add(learnedEmailTTL)); got != "" {
		t.Fatalf("after the lifetime: %q", got)
	}
}
