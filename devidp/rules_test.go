package devidp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// The rules of the provider, one test each, against its handlers with a
// clock of the test's own.

const (
	issuer    = "http://127.0.0.1:8080/dev/idp"
	webSecret = "web-secret-0123456789"
	webCB     = "http://127.0.0.1:8080/auth/callback"
	cliCB     = "http://127.0.0.1:53682/callback"
	audience  = "http://127.0.0.1:8080/api"
)

type idp struct {
	t   *testing.T
	p   *Provider
	mux *http.ServeMux
	clk *clock
	jkt string // what the proof binder returns
}

func newIdP(t *testing.T) *idp {
	t.Helper()
	e := &idp{t: t, clk: &clock{t: time.Unix(1_800_000_000, 0)}, mux: http.NewServeMux()}
	p, err := New(Config{Issuer: issuer, APIAudience: audience, WebRedirectURL: webCB, WebClientSecret: webSecret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: e.clk.now,
		ProofBinder: func(*http.Request) (string, error) { return e.jkt, nil }})
	if err != nil {
		t.Fatal(err)
	}
	e.p = p
	for route, h := range p.Routes() {
		method, path, _ := strings.Cut(route, " ")
		e.mux.HandleFunc(method+" /dev/idp"+path, h)
	}
	return e
}

func (e *idp) do(method, target string, form url.Values, hdr http.Header) *httptest.ResponseRecorder {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	return w
}

func pkce(seed string) (verifier, challenge string) {
	verifier = strings.Repeat(seed, 43/len(seed)+1)[:43]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authRequest is a valid authorization request of the CLI.
func authRequest(challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {CLIClientID}, "redirect_uri": {cliCB},
		"scope": {"openid email offline_access"}, "state": {"st-123"}, "nonce": {"n-0S6_WzA2Mj"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}}
}

// signIn posts the sign-in form for req and returns the redirect's query.
func (e *idp) signIn(req url.Values) url.Values {
	e.t.Helper()
	form := url.Values{"email": {"Ann@Example.com"}}
	for k, v := range req {
		form[k] = v
	}
	w := e.do("POST", "/dev/idp/authorize", form, nil)
	if w.Code != http.StatusSeeOther {
		e.t.Fatalf("sign-in: %d %s", w.Code, w.Body)
	}
	loc, err := url.Parse(w.Header().Get("Location"))
	if err != nil {
		e.t.Fatal(err)
	}
	return loc.Query()
}

func (e *idp) code(challenge string) string {
	e.t.Helper()
	q := e.signIn(authRequest(challenge))
	if q.Get("code") == "" {
		e.t.Fatalf("no code: %v", q)
	}
	return q.Get("code")
}

func exchange(code, verifier string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cliCB}, "client_id": {CLIClientID}, "code_verifier": {verifier}}
}

func refreshOf(rt string) url.Values {
	return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {CLIClientID}}
}

// tokenCall posts to the token endpoint and decodes the JSON answer.
func (e *idp) tokenCall(form url.Values, hdr http.Header) (int, map[string]any) {
	e.t.Helper()
	w := e.do("POST", "/dev/idp/token", form, hdr)
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		e.t.Fatalf("token answer %d is not JSON: %s", w.Code, w.Body)
	}
	return w.Code, m
}

func (e *idp) tokens(code, verifier string) map[string]any {
	e.t.Helper()
	st, m := e.tokenCall(exchange(code, verifier), nil)
	if st != 200 {
		e.t.Fatalf("exchange: %d %v", st, m)
	}
	return m
}

// authError is the error an authorization request was redirected with.
func (e *idp) authError(req url.Values) url.Values {
	e.t.Helper()
	w := e.do("GET", "/dev/idp/authorize?"+req.Encode(), nil, nil)
	if w.Code != http.StatusSeeOther {
		e.t.Fatalf("want a redirect with an error, got %d %s", w.Code, w.Body)
	}
	loc, _ := url.Parse(w.Header().Get("Location"))
	if !strings.HasPrefix(loc.String(), cliCB+"?") {
		e.t.Fatalf("redirected to %s", loc)
	}
	return loc.Query()
}

func wantGrantError(t *testing.T, what string, st int, m map[string]any, code string) {
	t.Helper()
	if st != http.StatusBadRequest || m["error"] != code {
		t.Fatalf("%s: %d %v, want 400 %s", what, st, m, code)
	}
}

func TestPKCEMissingIsRefused(t *testing.T) {
	e := newIdP(t)
	req := authRequest("")
	req.Del("code_challenge")
	if q := e.authError(req); q.Get("error") != "invalid_request" || !strings.Contains(q.Get("error_description"), "PKCE") {
		t.Fatalf("%v", q)
	}
}

func TestPKCEPlainIsRefused(t *testing.T) {
	e := newIdP(t)
	verifier, _ := pkce("plain")
	for _, method := range []string{"plain", ""} {
		req := authRequest(verifier) // plain: the challenge is the verifier
		req.Set("code_challenge_method", method)
		if method == "" {
			req.Del("code_challenge_method") // RFC 7636: absent means plain
		}
		if q := e.authError(req); q.Get("error") != "invalid_request" || !strings.Contains(q.Get("error_description"), "S256") {
			t.Fatalf("method %q: %v", method, q)
		}
	}
}

func TestPKCEWrongVerifierIsRefused(t *testing.T) {
	e := newIdP(t)
	_, challenge := pkce("right")
	code := e.code(challenge)
	other, _ := pkce("wrong")
	st, m := e.tokenCall(exchange(code, other), nil)
	wantGrantError(t, "wrong verifier", st, m, "invalid_grant")
	form := exchange(code, "")
	st, m = e.tokenCall(form, nil)
	wantGrantError(t, "no verifier", st, m, "invalid_request")
}

// A redirect URI that is not registered is never redirected to: the user
// sees a page (RFC 6749 §4.1.2.1); at the token endpoint another
// redirect_uri than the request's is invalid_grant.
func TestRedirectURIMismatchIsNotRedirectedTo(t *testing.T) {
	e := newIdP(t)
	_, challenge := pkce("redirect")
	for name, req := range map[string]url.Values{
		"web app, other URI":      {"client_id": {WebClientID}, "redirect_uri": {"http://127.0.0.1:8080/auth/callback/x"}},
		"web app, other host":     {"client_id": {WebClientID}, "redirect_uri": {"https://evil.example/auth/callback"}},
		"CLI, not loopback":       {"client_id": {CLIClientID}, "redirect_uri": {"http://evil.example:53682/callback"}},
		"CLI, https loopback":     {"client_id": {CLIClientID}, "redirect_uri": {"https://127.0.0.1:53682/callback"}},
		"CLI, no redirect URI":    {"client_id": {CLIClientID}},
		"CLI, fragment":           {"client_id": {CLIClientID}, "redirect_uri": {"http://127.0.0.1:53682/callback#x"}},
		"unknown client":          {"client_id": {"stranger"}, "redirect_uri": {cliCB}},
		"client_id more than one": {"client_id": {CLIClientID, WebClientID}, "redirect_uri": {cliCB}},
	} {
		full := authRequest(challenge)
		for k, v := range req {
			full[k] = v
		}
		if _, ok := req["redirect_uri"]; !ok {
			full.Del("redirect_uri")
		}
		for _, method := range []string{"GET", "POST"} {
			var w *httptest.ResponseRecorder
			if method == "GET" {
				w = e.do("GET", "/dev/idp/authorize?"+full.Encode(), nil, nil)
			} else {
				full.Set("email", "ann@example.com")
				w = e.do("POST", "/dev/idp/authorize", full, nil)
			}
			if w.Code != http.StatusBadRequest || w.Header().Get("Location") != "" || !strings.Contains(w.Body.String(), "refused") {
				t.Errorf("%s (%s): %d Location %q", name, method, w.Code, w.Header().Get("Location"))
			}
		}
	}
	verifier, challenge := pkce("redirect2")
	code := e.code(challenge)
	form := exchange(code, verifier)
	form.Set("redirect_uri", "http://127.0.0.1:1/other")
	st, m := e.tokenCall(form, nil)
	wantGrantError(t, "another redirect_uri at the token endpoint", st, m, "invalid_grant")
}

func TestBadClientSecretIsRefused(t *testing.T) {
	e := newIdP(t)
	verifier, challenge := pkce("secret")
	req := authRequest(challenge)
	req.Set("client_id", WebClientID)
	req.Set("redirect_uri", webCB)
	q := func() url.Values {
		form := url.Values{"email": {"ann@example.com"}}
		for k, v := range req {
			form[k] = v
		}
		w := e.do("POST", "/dev/idp/authorize", form, nil)
		loc, _ := url.Parse(w.Header().Get("Location"))
		if !strings.HasPrefix(loc.String(), webCB+"?") {
			t.Fatalf("redirected to %s", loc)
		}
		return loc.Query()
	}()
	form := url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {webCB}, "code_verifier": {verifier}}
	basic := func(id, secret string) http.Header {
		r := httptest.NewRequest("POST", "/", nil)
		r.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
		return http.Header{"Authorization": r.Header["Authorization"]}
	}
	for name, c := range map[string]struct {
		form  url.Values
		hdr   http.Header
		basic bool
	}{
		"Basic, wrong secret": {form, basic(WebClientID, "wrong"), true},
		"Basic, no secret":    {form, basic(WebClientID, ""), true},
		"post, wrong secret":  {with(form, "client_id", WebClientID, "client_secret", "wrong"), nil, false},
		"post, no secret":     {with(form, "client_id", WebClientID), nil, false},
		"unknown client":      {with(form, "client_id", "stranger"), nil, false},
		"no client":           {form, nil, false},
		"client assertion": {with(form, "client_id", WebClientID, "client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
			"client_assertion", "e30.e30.sig"), nil, false},
	} {
		w := e.do("POST", "/dev/idp/token", c.form, c.hdr)
		var m map[string]any
		json.Unmarshal(w.Body.Bytes(), &m)
		if w.Code != http.StatusUnauthorized || m["error"] != "invalid_client" {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
		if got := w.Header().Get("WWW-Authenticate"); (got != "") != c.basic {
			t.Errorf("%s: WWW-Authenticate %q", name, got)
		}
	}
	// The code was not used up by the refused attempts.
	if w := e.do("POST", "/dev/idp/token", form, basic(WebClientID, webSecret)); w.Code != 200 {
		t.Fatalf("client_secret_basic: %d %s", w.Code, w.Body)
	}
	// The CLI is public: a secret is refused.
	verifier, challenge = pkce("public")
	st, m := e.tokenCall(with(exchange(e.code(challenge), verifier), "client_secret", "anything"), nil)
	if st != http.StatusUnauthorized || m["error"] != "invalid_client" {
		t.Fatalf("public client with a secret: %d %v", st, m)
	}
}

func with(v url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = vs
	}
	for i := 0; i < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}

// A code used again is refused, and the refresh token it gave is revoked
// (RFC 6749 §4.1.2).
func TestCodeReuseRevokesItsTokens(t *testing.T) {
	e := newIdP(t)
	verifier, challenge := pkce("reuse")
	code := e.code(challenge)
	first := e.tokens(code, verifier)
	st, m := e.tokenCall(exchange(code, verifier), nil)
	wantGrantError(t, "the code again", st, m, "invalid_grant")
	st, m = e.tokenCall(refreshOf(first["refresh_token"].(string)), nil)
	wantGrantError(t, "the refresh token of a reused code", st, m, "invalid_grant")
}

// A refresh token is rotated; the used one coming back revokes the grant,
// the newer token included (RFC 9700 §4.14.2).
func TestRefreshTokenReuseRevokesTheGrant(t *testing.T) {
	e := newIdP(t)
	verifier, challenge := pkce("refresh")
	old := e.tokens(e.code(challenge), verifier)["refresh_token"].(string)
	st, second := e.tokenCall(refreshOf(old), nil)
	if st != 200 || second["refresh_token"] == old || second["refresh_token"] == nil {
		t.Fatalf("refresh: %d %v", st, second)
	}
	st, m := e.tokenCall(refreshOf(old), nil)
	wantGrantError(t, "a used refresh token", st, m, "invalid_grant")
	st, m = e.tokenCall(refreshOf(second["refresh_token"].(string)), nil)
	wantGrantError(t, "the newer refresh token after a reuse", st, m, "invalid_grant")
}

func TestExpiredCodeIsRefused(t *testing.T) {
	e := newIdP(t)
	verifier, challenge := pkce("expired")
	code := e.code(challenge)
	e.clk.t = e.clk.t.Add(codeTTL + time.Second)
	st, m := e.tokenCall(exchange(code, verifier), nil)
	wantGrantError(t, "an expired code", st, m, "invalid_grant")
}

func TestExpiredRefreshTokenIsRefused(t *testing.T) {
	e := newIdP(t)
	verifier, challenge := pkce("expiredrt")
	rt := e.tokens(e.code(challenge), verifier)["refresh_token"].(string)
	e.clk.t = e.clk.t.Add(refreshTTL + time.Second)
	st, m := e.tokenCall(refreshOf(rt), nil)
	wantGrantError(t, "an expired refresh token", st, m, "invalid_grant")
}

// A refresh may narrow the scope of its access token, never widen it; the
// grant keeps its scope.
func TestRefreshScopeNarrowsOnly(t *testing.T) {
	e := newIdP(t)
	verifier, challenge := pkce("scope")
	rt := e.tokens(e.code(challenge), verifier)["refresh_token"].(string)
	st, m := e.tokenCall(with(refreshOf(rt), "scope", "openid profile"), nil)
	wantGrantError(t, "a wider scope", st, m, "invalid_scope")
	st, m = e.tokenCall(with(refreshOf(rt), "scope", "email"), nil)
	if st != 200 || m["scope"] != "email" || m["id_token"] != nil {
		t.Fatalf("a narrower scope: %d %v", st, m)
	}
	if claims := payload(t, m["access_token"].(string)); claims["scope"] != "email" {
		t.Fatalf("access token scope %v", claims["scope"])
	}
	st, m = e.tokenCall(refreshOf(m["refresh_token"].(string)), nil)
	if st != 200 || m["scope"] != "openid email offline_access" {
		t.Fatalf("the next refresh, without scope: %d %v", st, m)
	}
}

func TestUnsupportedGrantAndResponseTypes(t *testing.T) {
	e := newIdP(t)
	for _, g := range []string{"password", "client_credentials", "implicit", "urn:ietf:params:oauth:grant-type:device_code"} {
		st, m := e.tokenCall(url.Values{"grant_type": {g}, "client_id": {CLIClientID}}, nil)
		wantGrantError(t, g, st, m, "unsupported_grant_type")
	}
	st, m := e.tokenCall(url.Values{"client_id": {CLIClientID}}, nil)
	wantGrantError(t, "no grant_type", st, m, "invalid_request")
	_, challenge := pkce("types")
	for _, rt := range []string{"token", "id_token", "code id_token", "code token"} {
		if q := e.authError(with(authRequest(challenge), "response_type", rt)); q.Get("error") != "unsupported_response_type" {
			t.Errorf("response_type %q: %v", rt, q)
		}
	}
	for k, code := range map[string]string{"response_mode": "invalid_request", "request": "request_not_supported", "request_uri": "request_uri_not_supported", "scope": "invalid_scope", "prompt": "login_required"} {
		v := map[string]string{"response_mode": "fragment", "request": "e30.e30.", "request_uri": "urn:x", "scope": "openid admin", "prompt": "none"}[k]
		if q := e.authError(with(authRequest(challenge), k, v)); q.Get("error") != code {
			t.Errorf("%s=%s: %v", k, v, q)
		}
	}
}

// RFC 6749 §4.1.2.1: an authorization error is a redirect to the client
// with error, error_description and state (and iss, RFC 9207); §5.2: a
// token error is JSON, 400 (401 for client authentication), not cached.
func TestErrorShapes(t *testing.T) {
	e := newIdP(t)
	_, challenge := pkce("shapes")
	q := e.authError(with(authRequest(challenge), "response_type", "token"))
	if q.Get("error") == "" || q.Get("error_description") == "" || q.Get("state") != "st-123" || q.Get("iss") != issuer || q.Get("code") != "" {
		t.Fatalf("authorization error: %v", q)
	}
	for name, c := range map[string]struct {
		form   url.Values
		status int
	}{
		"invalid_request":        {url.Values{"client_id": {CLIClientID}}, 400},
		"unsupported_grant_type": {url.Values{"grant_type": {"password"}}, 400},
		"invalid_grant":          {refreshOf("nope"), 400},
		"invalid_client":         {url.Values{"grant_type": {"refresh_token"}, "client_id": {"stranger"}}, 401},
	} {
		w := e.do("POST", "/dev/idp/token", c.form, nil)
		var m map[string]any
		err := json.Unmarshal(w.Body.Bytes(), &m)
		if w.Code != c.status || err != nil || m["error"] != name || m["error_description"] == "" ||
			w.Header().Get("Content-Type") != "application/json" || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d %v %s", name, w.Code, w.Header(), w.Body)
		}
	}
	// Parameters more than once are invalid_request.
	w := e.do("POST", "/dev/idp/token", url.Values{"grant_type": {"refresh_token", "refresh_token"}, "client_id": {CLIClientID}}, nil)
	if w.Code != 400 || !strings.Contains(w.Body.String(), "invalid_request") {
		t.Errorf("grant_type twice: %d %s", w.Code, w.Body)
	}
}

// The sign-in and what it gives: an RFC 9068 access token, an ID token with
// the nonce and at_hash, a DPoP binding with the proof's key and dpop_jkt.
func TestTokensCarryTheirClaims(t *testing.T) {
	e := newIdP(t)
	w := e.do("GET", "/dev/idp/authorize?"+with(authRequest("x"), "code_challenge", strings.Repeat("c", 43), "login_hint", "ann@example.com").Encode(), nil, nil)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `name="email"`) || !strings.Contains(w.Body.String(), "ann@example.com") || !strings.Contains(w.Body.String(), "development") {
		t.Fatalf("sign-in form: %d %s", w.Code, w.Body)
	}
	verifier, challenge := pkce("claims")
	e.jkt = strings.Repeat("k", 43)
	req := with(authRequest(challenge), "dpop_jkt", e.jkt)
	q := e.signIn(req)
	if q.Get("state") != "st-123" || q.Get("iss") != issuer {
		t.Fatalf("authorization response: %v", q)
	}
	m := e.tokens(q.Get("code"), verifier)
	if m["token_type"] != "DPoP" || m["expires_in"] != float64(900) {
		t.Fatalf("token response: %v", m)
	}
	at := m["access_token"].(string)
	if typ := header(t, at)["typ"]; typ != "at+jwt" {
		t.Fatalf("access token typ %v", typ)
	}
	c := payload(t, at)
	for k, want := range map[string]any{"iss": issuer, "sub": "ann@example.com", "email": "ann@example.com", "client_id": CLIClientID,
		"scope": "openid email offline_access", "aud": []any{audience}} {
		if b1, b2 := toJSON(c[k]), toJSON(want); b1 != b2 {
			t.Errorf("access token %s = %s, want %s", k, b1, b2)
		}
	}
	if c["exp"] != float64(e.clk.t.Add(15*time.Minute).Unix()) || c["iat"] != float64(e.clk.t.Unix()) || c["jti"] == "" {
		t.Errorf("access token times/jti: %v", c)
	}
	if cnf, _ := c["cnf"].(map[string]any); cnf["jkt"] != e.jkt {
		t.Errorf("cnf %v", c["cnf"])
	}
	id := payload(t, m["id_token"].(string))
	sum := sha256.Sum256([]byte(at))
	if id["nonce"] != "n-0S6_WzA2Mj" || id["aud"] != CLIClientID || id["at_hash"] != base64.RawURLEncoding.EncodeToString(sum[:16]) || id["email_verified"] != true {
		t.Errorf("ID token %v", id)
	}
	// Signed with the published key.
	var set jose.JSONWebKeySet
	json.Unmarshal(e.do("GET", "/dev/idp/jwks", nil, nil).Body.Bytes(), &set)
	jws, err := jose.ParseSignedCompact(at, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil || len(set.Keys) != 1 || jws.Signatures[0].Header.KeyID != set.Keys[0].KeyID {
		t.Fatalf("jwks %v, %v", set, err)
	}
	if _, err := jws.Verify(set.Keys[0].Key); err != nil {
		t.Fatal(err)
	}
	// dpop_jkt: a proof by another key (or none) is refused, the code kept.
	verifier, challenge = pkce("dpopjkt")
	code := e.signIn(with(authRequest(challenge), "dpop_jkt", strings.Repeat("k", 43))).Get("code")
	e.jkt = strings.Repeat("o", 43)
	st, m2 := e.tokenCall(exchange(code, verifier), nil)
	wantGrantError(t, "a proof by another key than dpop_jkt", st, m2, "invalid_dpop_proof")
	e.jkt = ""
	// Refresh tokens of a bound grant stay bound.
	st, m2 = e.tokenCall(refreshOf(m["refresh_token"].(string)), nil)
	wantGrantError(t, "refresh of a bound grant without a proof", st, m2, "invalid_dpop_proof")
}

// RFC 7009: revoking a refresh token revokes its grant; an unknown token
// is 200; another client's token is refused.
func TestRevocation(t *testing.T) {
	e := newIdP(t)
	verifier, challenge := pkce("revoke")
	rt := e.tokens(e.code(challenge), verifier)["refresh_token"].(string)
	if w := e.do("POST", "/dev/idp/revoke", url.Values{"token": {"unknown"}, "client_id": {CLIClientID}}, nil); w.Code != 200 {
		t.Fatalf("an unknown token: %d %s", w.Code, w.Body)
	}
	w := e.do("POST", "/dev/idp/revoke", url.Values{"token": {rt}, "client_id": {WebClientID}, "client_secret": {webSecret}}, nil)
	if w.Code != 400 || !strings.Contains(w.Body.String(), "unauthorized_client") {
		t.Fatalf("another client's token: %d %s", w.Code, w.Body)
	}
	if w := e.do("POST", "/dev/idp/revoke", url.Values{"token": {rt}, "token_type_hint": {"refresh_token"}, "client_id": {CLIClientID}}, nil); w.Code != 200 {
		t.Fatalf("revoke: %d %s", w.Code, w.Body)
	}
	st, m := e.tokenCall(refreshOf(rt), nil)
	wantGrantError(t, "a revoked refresh token", st, m, "invalid_grant")
	if w := e.do("POST", "/dev/idp/revoke", url.Values{"client_id": {CLIClientID}}, nil); w.Code != 400 || !strings.Contains(w.Body.String(), "invalid_request") {
		t.Fatalf("no token: %d %s", w.Code, w.Body)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func part(t *testing.T, jwt string, i int) map[string]any {
	t.Helper()
	parts := strings.Split(jwt, ".")
	b, err := base64.RawURLEncoding.DecodeString(parts[i])
	var m map[string]any
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func header(t *testing.T, jwt string) map[string]any  { return part(t, jwt, 0) }
func payload(t *testing.T, jwt string) map[string]any { return part(t, jwt, 1) }
