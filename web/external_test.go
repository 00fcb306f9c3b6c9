package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

func TestExternalIssuerAPITokensWithKeyRotationAndEmailClaim(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, func(c *web.Config) {
		c.OIDCIssuer, c.OIDCClientID = op.srv.URL, "trustframe"
		c.APIAudience = "trustframe-api"
		c.EmailClaim = "upn"
		c.TokenTypes = []string{"at+jwt", "JWT"}
		c.JWKSRefreshInterval = time.Nanosecond // the rotation below comes at once
	})
	claims := func() map[string]any {
		return map[string]any{"iss": op.srv.URL, "aud": "trustframe-api", "sub": "1", "upn": "admin@example.com",
			"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	}
	api := env.URL + "/api/users/super"
	if r, b := do(t, "GET", api, op.token(t, "JWT", claims()), ""); r.StatusCode != 200 {
		t.Fatalf("token of the external issuer: %d %s", r.StatusCode, b)
	}
	hits := op.hits()
	if r, _ := do(t, "GET", api, op.token(t, "JWT", claims()), ""); r.StatusCode != 200 || op.hits() != hits {
		t.Fatalf("the JWKS is not cached: %d hits", op.hits()-hits)
	}
	op.rotate("k2")
	if r, b := do(t, "GET", api, op.token(t, "at+jwt", claims()), ""); r.StatusCode != 200 {
		t.Fatalf("after key rotation: %d %s", r.StatusCode, b)
	}
	c := claims()
	delete(c, "upn")
	c["email"] = "admin@example.com"
	if r, b := do(t, "GET", api, op.token(t, "JWT", c), ""); r.StatusCode != 401 || !strings.Contains(b, "upn") {
		t.Fatalf("token without the configured e-mail claim: %d %s", r.StatusCode, b)
	}
	c = claims()
	c["aud"] = "someone-else"
	if r, _ := do(t, "GET", api, op.token(t, "JWT", c), ""); r.StatusCode != 401 {
		t.Fatalf("other audience: %d", r.StatusCode)
	}
}

// TestExternalIssuerWebSignIn signs in to one trustframe through another
// trustframe's identity provider, an OpenID Provider reached over HTTP.
func TestExternalIssuerWebSignIn(t *testing.T) {
	idp := webtest.Start(t, nil)
	env := webtest.Start(t, func(c *web.Config) {
		c.OIDCIssuer, c.OIDCClientID = idp.URL+"/dev/idp", "trustframe-cli"
		c.APIAudience = idp.URL + "/api"
	})
	c := webtest.Browser()
	resp := webtest.SignIn(t, c, env.URL, "admin@example.com")
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Host != strings.TrimPrefix(env.URL, "http://") {
		t.Fatalf("%d %s", resp.StatusCode, resp.Request.URL)
	}
	r, err := c.Get(env.URL + "/references/super-users")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("signed in through the external issuer, then %d", r.StatusCode)
	}
	tok := webtest.Token(t, idp.URL, "admin@example.com", nil)
	if r, b := do(t, "GET", env.URL+"/api/users/super", tok.AccessToken, ""); r.StatusCode != 200 {
		t.Fatalf("API: %d %s", r.StatusCode, b)
	}
	if r, _ := http.Get(env.URL + "/dev/idp/.well-known/openid-configuration"); r.StatusCode != 404 {
		t.Fatalf("the development identity provider must be off with an external issuer: %d", r.StatusCode)
	}
}

// Tokens naming keys the issuer does not have cannot make this service
// fetch the issuer's keys at will: at most once per refresh interval.
func TestUnknownKeyIDsDoNotHammerTheIssuer(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, func(c *web.Config) {
		c.OIDCIssuer, c.OIDCClientID = op.srv.URL, "trustframe"
		c.APIAudience = "trustframe-api"
		c.TokenTypes = []string{"at+jwt", "JWT"}
		c.JWKSRefreshInterval = time.Hour
	})
	claims := map[string]any{"iss": op.srv.URL, "aud": "trustframe-api", "sub": "1", "email": "admin@example.com",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	api := env.URL + "/api/users/super"
	if r, b := do(t, "GET", api, op.token(t, "JWT", claims), ""); r.StatusCode != 200 {
		t.Fatalf("a good token: %d %s", r.StatusCode, b)
	}
	hits := op.hits()
	// Forged tokens: signed by a key the issuer never published, each with
	// another key ID.
	forger := newFakeOP(t)
	for i := 0; i < 30; i++ {
		forger.rotate(fmt.Sprintf("made-up-%d", i))
		if r, _ := do(t, "GET", api, forger.token(t, "JWT", claims), ""); r.StatusCode != 401 {
			t.Fatalf("forged token %d: %d", i, r.StatusCode)
		}
	}
	if n := op.hits() - hits; n > 1 {
		t.Fatalf("30 forged tokens made %d fetches of the issuer's keys", n)
	}
	// The good token still works from the keys in hand.
	if r, _ := do(t, "GET", api, op.token(t, "JWT", claims), ""); r.StatusCode != 200 {
		t.Fatalf("a good token after the forgeries: %d", r.StatusCode)
	}
}

// TestSignInIssuerAnswerIsCapped: the sign-in issuer's discovery document
// is read through a client that stops past issuer.MaxResponse (go-oidc
// reads it whole): a 5 MiB document is refused, not held in memory, and
// sign-in says the issuer is unavailable instead of sending the user on.
func TestSignInIssuerAnswerIsCapped(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/auth",
			"token_endpoint": srv.URL + "/token", "jwks_uri": srv.URL + "/jwks", "padding": strings.Repeat("x", 5<<20)})
	}))
	defer srv.Close()
	env := webtest.Start(t, func(c *web.Config) { c.OIDCIssuer, c.OIDCClientID = srv.URL, "trustframe" })
	c := webtest.Browser()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(env.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusFound && strings.HasPrefix(resp.Header.Get("Location"), srv.URL) {
		t.Fatalf("a 5 MiB discovery document was read whole and sign-in went on to %s", resp.Header.Get("Location"))
	}
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("sign-in with the issuer's answer refused: %d, want 503", resp.StatusCode)
	}
}
