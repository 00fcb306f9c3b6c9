package web

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/trustframe/trustframe/handlers"
)

// go-oidc's refusals are said in the API's words; keys that cannot be
// fetched are the issuer's trouble (503 idp_unavailable), not the token's.
func TestVerifyProblem(t *testing.T) {
	exp := time.Date(2026, 11, 23, 17, 6, 21, 0, time.UTC)
	for _, c := range []struct {
		err  error
		want string
	}{
		{&oidc.TokenExpiredError{Expiry: exp}, "it expired at 2026-11-23 17:06:21 UTC; get a new one"},
		{errors.New("oidc: malformed jwt: go-jose/go-jose: compact JWS format must have three parts"), "it is not a signed JWT"},
		{errors.New("failed to verify signature: failed to verify id token signature"), "its signature does not verify"},
		{errors.New(`oidc: expected audience "https://d.example/api" got ["https://x.example"]`), `it is not for this API: its aud ["https://x.example"] does not name "https://d.example/api"`},
		// go-oidc v3.21's words for a token signed with an algorithm its issuer does not use.
		{errors.New(`oidc: malformed jwt: unexpected signature algorithm "HS256"; expected ["RS256"]`), `its alg "HS256" is not one its issuer signs with (["RS256"])`},
		{errors.New(`oidc: current time 2026-11-23 before the nbf (not before) time: 2026-11-24`), `current time 2026-11-23 before the nbf (not before) time`},
	} {
		got := verifyProblem(c.err)
		var he *handlers.Error
		if errors.As(got, &he) || !strings.Contains(got.Error(), c.want) || strings.Contains(got.Error(), "oidc:") || strings.Contains(got.Error(), "id token") {
			t.Errorf("%v: %v", c.err, got)
		}
	}
	for _, err := range []error{fmt.Errorf("fetching keys %w", io.ErrUnexpectedEOF), errors.New("oidc: get keys failed: 502 Bad Gateway")} {
		var he *handlers.Error
		if got := verifyProblem(err); !errors.As(got, &he) || he.Status != 503 || he.Code != handlers.CodeIDPUnavailable.Name {
			t.Errorf("%v: %v", err, got)
		}
	}
}
