package devidp

import (
	"context"
	"errors"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// Everything a flow leaves behind is forgotten once it can no longer be
// used; until then a used code and a rotated refresh token are kept,
// inactive, so that their reuse is recognised.
func TestSessionsForgetWhatExpired(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	s := newSessions(c.now, 5*time.Minute, 24*time.Hour)
	for i, id := range []string{"r1", "r2", "r3"} {
		g := &grant{ID: id, ClientID: CLIClientID, Email: "a@example.com"}
		s.saveCode(ctx, "code-"+id, g)
		s.saveRefresh(ctx, "rt-"+id, g)
		c.t = c.t.Add(time.Duration(i) * time.Second)
	}
	if used, err := s.claimCode(ctx, "code-r1"); !used || err != nil {
		t.Fatalf("first use of a code: %v %v", used, err)
	}
	if used, _ := s.claimCode(ctx, "code-r1"); used {
		t.Fatal("a code used twice")
	}
	if _, active, err := s.findCode(ctx, "code-r1"); active || err != nil {
		t.Fatalf("used code: active %v, %v", active, err)
	}
	if _, _, err := s.findCode(ctx, "nope"); !errors.Is(err, errNotFound) {
		t.Fatalf("unknown code: %v", err)
	}
	if used, err := s.claimRefresh(ctx, "rt-r2"); !used || err != nil {
		t.Fatalf("first use of a refresh token: %v %v", used, err)
	}
	if _, active, err := s.findRefresh(ctx, "rt-r2"); active || err != nil {
		t.Fatalf("rotated refresh token: active %v, %v", active, err)
	}
	if _, active, err := s.findRefresh(ctx, "rt-r3"); !active || err != nil {
		t.Fatalf("live refresh token: %v %v", active, err)
	}
	full := s.size()

	// After the code lifetime (and the grace): codes go.
	c.t = c.t.Add(5*time.Minute + grace + time.Minute)
	s.saveRefresh(ctx, "rt-x", &grant{ID: "x"}) // a write prunes
	if _, _, err := s.findCode(ctx, "code-r3"); !errors.Is(err, errNotFound) {
		t.Fatalf("expired code: %v", err)
	}
	if _, _, err := s.findRefresh(ctx, "rt-r3"); err != nil {
		t.Fatalf("refresh token before its lifetime: %v", err)
	}
	if s.size() >= full {
		t.Fatalf("nothing pruned: %d entries, %d before", s.size(), full)
	}
	// After the refresh token lifetime nothing is left but the newest token.
	c.t = c.t.Add(24*time.Hour + grace + time.Minute)
	s.saveRefresh(ctx, "rt-y", &grant{ID: "y"})
	if n := s.size(); n != 2 { // rt-y and its grant index
		t.Fatalf("%d entries left, want 2", n)
	}
}
