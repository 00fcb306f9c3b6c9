package web_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// userInfoOP is a standard OpenID Provider that follows OpenID Connect Core
// §5.4 strictly: its ID tokens and access tokens carry sub, never the
// e-mail, which only its UserInfo endpoint returns.
type userInfoOP struct {
	srv      *httptest.Server
	key      *rsa.PrivateKey
	audience string // aud of its access tokens

	mu       sync.Mutex
	email    string // what UserInfo says
	verified any    // email_verified in UserInfo (nil: absent)
	uiSub    string // when set, UserInfo answers with this sub instead of the token's
	uiStatus int    // when set, UserInfo fails with this status
	calls    map[string]int
	nonces   map[string]string // code -> nonce
	subs     map[string]string // code -> sub
	nextSub  string            // sub of the next sign-in
}

func newUserInfoOP(t *testing.T, audience string) *userInfoOP {
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	op := &userInfoOP{key: k, audience: audience, email: "admin@example.com", verified: true, calls: map[string]int{},
		nonces: map[string]string{}, subs: map[string]string{}, nextSub: "u1"}
	op.srv = httptest.NewServer(http.HandlerFunc(op.serve))
	t.Cleanup(op.srv.Close)
	return op
}

func (op *userInfoOP) serve(w http.ResponseWriter, r *http.Request) {
	base := op.srv.URL
	switch r.URL.Path {
	case "/.well-known/openid-configuration":
		json.NewEncoder(w).Encode(map[string]any{"issuer": base, "authorization_endpoint": base + "/auth", "token_endpoint": base + "/token",
			"jwks_uri": base + "/jwks", "userinfo_endpoint": base + "/userinfo", "id_token_signing_alg_values_supported": []string{"RS256"}})
	case "/jwks":
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &op.key.PublicKey, KeyID: "k", Algorithm: "RS256", Use: "sig"}}})
	case "/auth": // signs the person in at once and sends them back
		q := r.URL.Query()
		op.mu.Lock()
		code := "code-" + q.Get("state")
		op.nonces[code], op.subs[code] = q.Get("nonce"), op.nextSub
		op.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+url.QueryEscape(code)+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	case "/token":
		r.ParseForm()
		clientID, _, ok := r.BasicAuth()
		if !ok {
			clientID = r.PostForm.Get("client_id")
		}
		op.mu.Lock()
		nonce, sub := op.nonces[r.PostForm.Get("code")], op.subs[r.PostForm.Get("code")]
		op.mu.Unlock()
		idt := op.sign("JWT", map[string]any{"iss": base, "aud": clientID, "sub": sub, "nonce": nonce,
			"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": op.accessToken(sub, ""), "token_type": "Bearer", "id_token": idt, "expires_in": 3600})
	case "/userinfo":
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		op.mu.Lock()
		defer op.mu.Unlock()
		op.calls[tok]++
		var claims map[string]any
		if parsed, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.RS256}); err == nil {
			_ = parsed.Claims(&op.key.PublicKey, &claims)
		}
		if !ok || claims == nil {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if claims["cnf"] != nil {
			// RFC 9449 §7.1: a DPoP-bound token is no bearer token.
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if op.uiStatus != 0 {
			w.WriteHeader(op.uiStatus)
			return
		}
		sub := claims["sub"]
		if op.uiSub != "" {
			sub = op.uiSub
		}
		ans := map[string]any{"sub": sub, "email": op.email}
		if op.verified != nil {
			ans["email_verified"] = op.verified
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(ans)
	default:
		http.NotFound(w, r)
	}
}

func (op *userInfoOP) sign(typ string, claims map[string]any) string {
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: op.key, KeyID: "k"}}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	s, _ := jwt.Signed(sig).Claims(claims).Serialize()
	return s
}

// accessToken is an RFC 9068 token with sub and no e-mail; jkt binds it to
// a DPoP key.
func (op *userInfoOP) accessToken(sub, jkt string) string {
	c := map[string]any{"iss": op.srv.URL, "aud": op.audience, "sub": sub, "client_id": "cli", "jti": randomID(),
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	if jkt != "" {
		c["cnf"] = map[string]any{"jkt": jkt}
	}
	return op.sign("at+jwt", c)
}

func (op *userInfoOP) set(f func(op *userInfoOP)) {
	op.mu.Lock()
	defer op.mu.Unlock()
	f(op)
}

func (op *userInfoOP) callsFor(tok string) int {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.calls[tok]
}

func (op *userInfoOP) totalCalls() int {
	op.mu.Lock()
	defer op.mu.Unlock()
	n := 0
	for _, c := range op.calls {
		n += c
	}
	return n
}

// userInfoSetups: the provider as the sign-in issuer (--oidc-issuer), and
// as an identity provider bound in Reference Data beside the development
// identity provider.
func userInfoSetups(t *testing.T) map[string]func(t *testing.T) (op *userInfoOP, env *webtest.Env, login string) {
	return map[string]func(t *testing.T) (*userInfoOP, *webtest.Env, string){
		"sign-in issuer": func(t *testing.T) (*userInfoOP, *webtest.Env, string) {
			op := newUserInfoOP(t, "trustframe-api")
			env := webtest.Start(t, func(c *web.Config) {
				c.OIDCIssuer, c.OIDCClientID, c.OIDCClientSecret = op.srv.URL, "console", "s3cret"
				c.APIAudience = "trustframe-api"
			})
			return op, env, "/login"
		},
		"bound identity provider": func(t *testing.T) (*userInfoOP, *webtest.Env, string) {
			op := newUserInfoOP(t, "automation")
			env := webtest.Start(t, nil)
			bindProvider(t, env, "partner", op.srv.URL, "automation", "console")
			return op, env, "/login?via=partner"
		},
	}
}

func signInThrough(t *testing.T, env *webtest.Env, login string) (int, string) {
	t.Helper()
	c := webtest.Browser()
	resp, err := c.Get(env.URL + login)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Issue 20: web sign-in with a provider that puts the e-mail only in
// UserInfo; UserInfo's sub must be the ID token's, and email_verified false
// there is refused.
func TestUserInfoWebSignIn(t *testing.T) {
	for name, setup := range userInfoSetups(t) {
		t.Run(name, func(t *testing.T) {
			op, env, login := setup(t)
			if code, body := signInThrough(t, env, login); code != 200 || !strings.Contains(body, `data-testid="current-user">admin@example.com<`) {
				t.Fatalf("sign-in with the e-mail in UserInfo only: %d %s", code, body)
			}
			if n := op.totalCalls(); n != 1 {
				t.Fatalf("%d UserInfo calls for one sign-in", n)
			}
			op.set(func(op *userInfoOP) { op.uiSub = "someone-else" })
			if code, body := signInThrough(t, env, login); code != 400 || !strings.Contains(body, "another subject") || strings.Contains(body, "current-user\">admin") {
				t.Fatalf("UserInfo about another subject: %d %s", code, body)
			}
			op.set(func(op *userInfoOP) { op.uiSub, op.verified = "", false })
			if code, body := signInThrough(t, env, login); code != 400 || !strings.Contains(body, "not verified") {
				t.Fatalf("email_verified false in UserInfo: %d %s", code, body)
			}
			op.set(func(op *userInfoOP) { op.verified, op.uiStatus = true, http.StatusBadGateway })
			if code, body := signInThrough(t, env, login); code != 400 || !strings.Contains(body, "UserInfo endpoint of") || !strings.Contains(body, "HTTP 502") {
				t.Fatalf("UserInfo failing: %d %s", code, body)
			}
		})
	}
}

// Issue 20: API access tokens without the e-mail: a Bearer token costs one
// UserInfo call for its lifetime, concurrent first uses included; a
// differing sub and email_verified false are refused (and not asked again).
func TestUserInfoAPIBearerTokens(t *testing.T) {
	for name, setup := range userInfoSetups(t) {
		t.Run(name, func(t *testing.T) {
			op, env, _ := setup(t)
			api := env.URL + "/api/users/super"
			tok := op.accessToken("u1", "")
			var wg sync.WaitGroup
			codes := make(chan int, 8)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, _ := do(t, "GET", api, tok, "")
					codes <- r.StatusCode
				}()
			}
			wg.Wait()
			close(codes)
			for c := range codes {
				if c != 200 {
					t.Fatalf("a Bearer token with the e-mail in UserInfo only: %d", c)
				}
			}
			if r, b := do(t, "GET", api, tok, ""); r.StatusCode != 200 || !strings.Contains(b, "admin@example.com") {
				t.Fatalf("again: %d %s", r.StatusCode, b)
			}
			if n := op.callsFor(tok); n != 1 {
				t.Fatalf("%d UserInfo calls for one token", n)
			}

			op.set(func(op *userInfoOP) { op.uiSub = "someone-else" })
			other := op.accessToken("u1", "")
			for i := 0; i < 2; i++ {
				if r, b := do(t, "GET", api, other, ""); r.StatusCode != 401 || !strings.Contains(b, "another subject") {
					t.Fatalf("UserInfo about another subject: %d %s", r.StatusCode, b)
				}
			}
			if n := op.callsFor(other); n != 1 {
				t.Fatalf("a refused token was asked about %d times", n)
			}

			op.set(func(op *userInfoOP) { op.uiSub, op.verified = "", false })
			unverified := op.accessToken("u1", "")
			if r, b := do(t, "GET", api, unverified, ""); r.StatusCode != 401 || !strings.Contains(b, "not verified") {
				t.Fatalf("email_verified false in UserInfo: %d %s", r.StatusCode, b)
			}

			op.set(func(op *userInfoOP) { op.verified, op.uiStatus = true, http.StatusServiceUnavailable })
			failing := op.accessToken("u1", "")
			if r, b := do(t, "GET", api, failing, ""); r.StatusCode != 401 || !strings.Contains(b, "HTTP 503") || !strings.Contains(b, op.srv.URL) {
				t.Fatalf("UserInfo failing: %d %s", r.StatusCode, b)
			}
			// A passing outage is asked about again.
			op.set(func(op *userInfoOP) { op.uiStatus = 0 })
			if r, b := do(t, "GET", api, failing, ""); r.StatusCode != 200 {
				t.Fatalf("after the outage: %d %s", r.StatusCode, b)
			}
		})
	}
}

// Issue 20 and RFC 9449 §7: a DPoP-bound token cannot be presented to
// UserInfo by this service (it lacks the client's key), so its e-mail is
// the one a web sign-in or a Bearer token of the same subject established.
func TestUserInfoAPIDPoPTokens(t *testing.T) {
	for name, setup := range userInfoSetups(t) {
		t.Run(name, func(t *testing.T) {
			op, env, login := setup(t)
			api := env.URL + "/api/users/super"
			key := newDPoPSigner(t)
			dpopGet := func(tok string) (*http.Response, string) {
				return call(t, "GET", api, http.Header{"Authorization": {"DPoP " + tok}, "Dpop": {proof(t, key, "GET", api, tok, "")}})
			}
			tok := op.accessToken("u1", key.Thumbprint())
			if r, b := dpopGet(tok); r.StatusCode != 401 || !strings.Contains(b, "RFC 9449") || !strings.Contains(b, "Sign in to the web console") {
				t.Fatalf("DPoP token of an unknown subject: %d %s", r.StatusCode, b)
			}
			if n := op.totalCalls(); n != 0 {
				t.Fatalf("UserInfo was called %d times with a DPoP-bound token", n)
			}
			// The person signs in to the web console: the subject's e-mail is known.
			if code, body := signInThrough(t, env, login); code != 200 {
				t.Fatalf("sign-in: %d %s", code, body)
			}
			if r, b := dpopGet(tok); r.StatusCode != 200 || !strings.Contains(b, "admin@example.com") {
				t.Fatalf("DPoP token after the subject signed in: %d %s", r.StatusCode, b)
			}
			// A Bearer token of another subject teaches its e-mail too.
			op.set(func(op *userInfoOP) { op.email = "admin@example.com" })
			bearer := op.accessToken("u2", "")
			if r, _ := do(t, "GET", api, bearer, ""); r.StatusCode != 200 {
				t.Fatalf("Bearer token of u2: %d", r.StatusCode)
			}
			calls := op.totalCalls()
			if r, b := dpopGet(op.accessToken("u2", key.Thumbprint())); r.StatusCode != 200 {
				t.Fatalf("DPoP token of u2 after its Bearer token: %d %s", r.StatusCode, b)
			}
			if op.totalCalls() != calls {
				t.Fatal("a DPoP-bound token made a UserInfo call")
			}
		})
	}
}
