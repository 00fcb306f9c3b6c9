package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// The development identity provider's codes and refresh tokens follow
// OAuth: a code works once, a refresh token is rotated, a revoked refresh
// token is refused.
func TestDevIdPCodeAndRefreshTokenRules(t *testing.T) {
	env := webtest.Start(t, nil)
	verifier, challenge := webtest.PKCE()
	redirect := "http://127.0.0.1:8765/cb"
	code := webtest.Authorize(t, env.URL, "admin@example.com", redirect, challenge)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {"trustframe-cli"}, "code_verifier": {verifier}}
	st, first := tokenForm(t, env.URL, form)
	if st != 200 || first["refresh_token"] == nil {
		t.Fatalf("exchange: %d %v", st, first)
	}
	if st, m := tokenForm(t, env.URL, form); st != 400 || m["error"] != "invalid_grant" {
		t.Fatalf("the same code twice: %d %v", st, m)
	}
	refreshForm := func(rt string) url.Values {
		return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"trustframe-cli"}}
	}
	// A replayed code revokes what it gave (RFC 6749 §4.1.2).
	if st, m := tokenForm(t, env.URL, refreshForm(first["refresh_token"].(string))); st != 400 {
		t.Fatalf("refresh token of a replayed code: %d %v", st, m)
	}

	old := webtest.Token(t, env.URL, "admin@example.com", nil).RefreshToken
	st, second := tokenForm(t, env.URL, refreshForm(old))
	if st != 200 || second["refresh_token"] == old {
		t.Fatalf("refresh: %d %v", st, second)
	}
	if st, m := tokenForm(t, env.URL, refreshForm(old)); st != 400 {
		t.Fatalf("a used refresh token again: %d %v", st, m)
	}
	// Revocation (RFC 7009), then the revoked token is refused.
	newer := second["refresh_token"].(string)
	resp, err := http.PostForm(env.URL+"/dev/idp/revoke", url.Values{"token": {newer}, "token_type_hint": {"refresh_token"}, "client_id": {"trustframe-cli"}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("revoke: %v %v", err, resp)
	}
	resp.Body.Close()
	if st, m := tokenForm(t, env.URL, refreshForm(newer)); st != 400 || !strings.Contains(toJSON(t, m), "invalid") {
		t.Fatalf("a revoked refresh token: %d %v", st, m)
	}
}

// A grant the development provider does not give is unsupported_grant_type
// (RFC 6749 §5.2) saying what it gives; fosite answered invalid_request.
// A request without grant_type stays invalid_request.
func TestDevIdPUnsupportedGrant(t *testing.T) {
	env := webtest.Start(t, nil)
	for _, g := range []string{"client_credentials", "password", "urn:ietf:params:oauth:grant-type:jwt-bearer"} {
		st, m := tokenForm(t, env.URL, url.Values{"grant_type": {g}, "client_id": {"trustframe-cli"}})
		if st != 400 || m["error"] != "unsupported_grant_type" || !strings.Contains(m["error_description"].(string), "authorization_code") {
			t.Fatalf("%s: %d %v", g, st, m)
		}
	}
	if st, m := tokenForm(t, env.URL, url.Values{"client_id": {"trustframe-cli"}}); st != 400 || m["error"] != "invalid_request" {
		t.Fatalf("no grant_type: %d %v", st, m)
	}
}
