package devidp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ory/fosite"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func request(id string) fosite.Requester {
	r := fosite.NewRequest()
	r.ID = id
	return r
}

// Everything a flow leaves behind is forgotten once it can no longer be
// used; until then it answers as fosite's MemoryStore would.
func TestSessionsForgetWhatExpired(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	s := newSessions(c.now, 5*time.Minute, 15*time.Minute, 24*time.Hour)
	for i, id := range []string{"r1", "r2", "r3"} {
		code := "code-" + id
		s.CreateAuthorizeCodeSession(ctx, code, request(id))
		s.CreatePKCERequestSession(ctx, code, request(id))
		s.CreateOpenIDConnectSession(ctx, code, request(id))
		s.CreateAccessTokenSession(ctx, "at-"+id, request(id))
		s.CreateRefreshTokenSession(ctx, "rt-"+id, "at-"+id, request(id))
		c.t = c.t.Add(time.Duration(i) * time.Second)
	}
	if err := s.InvalidateAuthorizeCodeSession(ctx, "code-r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetAuthorizeCodeSession(ctx, "code-r1", nil); !errors.Is(err, fosite.ErrInvalidatedAuthorizeCode) {
		t.Fatalf("used code: %v", err)
	}
	if _, err := s.GetAuthorizeCodeSession(ctx, "nope", nil); !errors.Is(err, fosite.ErrNotFound) {
		t.Fatalf("unknown code: %v", err)
	}
	if err := s.RotateRefreshToken(ctx, "r2", "rt-r2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetRefreshTokenSession(ctx, "rt-r2", nil); !errors.Is(err, fosite.ErrInactiveToken) {
		t.Fatalf("rotated refresh token: %v", err)
	}
	if _, err := s.GetAccessTokenSession(ctx, "at-r2", nil); !errors.Is(err, fosite.ErrNotFound) {
		t.Fatalf("access token of a rotated request: %v", err)
	}
	if _, err := s.GetRefreshTokenSession(ctx, "rt-r3", nil); err != nil {
		t.Fatalf("live refresh token: %v", err)
	}
	full := s.size()

	// After the code lifetime (and the grace): codes, PKCE and OIDC requests go.
	c.t = c.t.Add(5*time.Minute + grace + time.Minute)
	s.CreateAccessTokenSession(ctx, "at-x", request("x")) // a write prunes
	if _, err := s.GetAuthorizeCodeSession(ctx, "code-r3", nil); !errors.Is(err, fosite.ErrNotFound) {
		t.Fatalf("expired code: %v", err)
	}
	if _, err := s.GetPKCERequestSession(ctx, "code-r3", nil); !errors.Is(err, fosite.ErrNotFound) {
		t.Fatalf("expired PKCE request: %v", err)
	}
	if _, err := s.GetRefreshTokenSession(ctx, "rt-r3", nil); err != nil {
		t.Fatalf("refresh token before its lifetime: %v", err)
	}
	if s.size() >= full {
		t.Fatalf("nothing pruned: %d entries, %d before", s.size(), full)
	}
	// After the refresh token lifetime nothing is left but the newest token.
	c.t = c.t.Add(24*time.Hour + grace)
	s.CreateAccessTokenSession(ctx, "at-y", request("y"))
	if n := s.size(); n != 2 { // at-y and its request index
		t.Fatalf("%d entries left, want 2", n)
	}
}
