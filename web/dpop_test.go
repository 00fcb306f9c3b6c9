package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestDPoPEndToEnd obtains a DPoP-bound token exactly as an external client
// would and presents it the right way and the wrong ways.
func TestDPoPEndToEnd(t *testing.T) {
	env := webtest.Start(t, nil)
	key := newDPoPSigner(t)
	tok := webtest.Token(t, env.URL, "admin@example.com", http.Header{"Dpop": {proof(t, key, "POST", env.URL+"/dev/idp/token", "", "")}})
	if tok.TokenType != "DPoP" {
		t.Fatalf("token_type %q", tok.TokenType)
	}
	cnf, _ := claimsOf(t, tok.AccessToken)["cnf"].(map[string]any)
	if cnf["jkt"] != key.Thumbprint() {
		t.Fatalf("cnf %v, want jkt %s", cnf, key.Thumbprint())
	}
	api := env.URL + "/api/users/super"
	p := proof(t, key, "GET", api, tok.AccessToken, "")
	if r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {p}}); r.StatusCode != 200 {
		t.Fatalf("with proof: %d %s", r.StatusCode, b)
	}
	r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {p}})
	if r.StatusCode != 401 || !strings.Contains(strings.Join(r.Header.Values("WWW-Authenticate"), " "), `DPoP realm="trustframe", algs=`) ||
		!strings.Contains(strings.Join(r.Header.Values("WWW-Authenticate"), " "), `error="invalid_dpop_proof"`) || !strings.Contains(b, "jti_replay") {
		t.Fatalf("replayed proof: %d %v %s", r.StatusCode, r.Header.Values("WWW-Authenticate"), b)
	}
	r, b = call(t, "GET", api, http.Header{"Authorization": {"Bearer " + tok.AccessToken}})
	if r.StatusCode != 401 || !strings.Contains(b, "DPoP-bound") || !strings.Contains(r.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("bound token as Bearer: %d %s", r.StatusCode, b)
	}
	other := newDPoPSigner(t)
	r, b = call(t, "GET", api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {proof(t, other, "GET", api, tok.AccessToken, "")}})
	if r.StatusCode != 401 || !strings.Contains(b, "cnf_jkt") {
		t.Fatalf("proof by another key: %d %s", r.StatusCode, b)
	}
	r, b = call(t, "GET", api, http.Header{"Authorization": {"DPoP " + tok.AccessToken, "Bearer " + tok.AccessToken}, "Dpop": {proof(t, key, "GET", api, tok.AccessToken, "")}})
	if r.StatusCode != 400 {
		t.Fatalf("both schemes: %d %s", r.StatusCode, b)
	}
	r, b = call(t, "GET", api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}})
	if r.StatusCode != 401 || !strings.Contains(b, "single_proof") {
		t.Fatalf("no proof: %d %s", r.StatusCode, b)
	}
	// A Bearer token presented with the DPoP scheme is refused.
	bearer := webtest.Token(t, env.URL, "admin@example.com", nil)
	r, b = call(t, "GET", api, http.Header{"Authorization": {"DPoP " + bearer.AccessToken}, "Dpop": {proof(t, key, "GET", api, bearer.AccessToken, "")}})
	if r.StatusCode != 401 || !strings.Contains(b, "not DPoP-bound") {
		t.Fatalf("unbound token as DPoP: %d %s", r.StatusCode, b)
	}
	// Anonymous: both challenges offered.
	r, _ = call(t, "GET", api, nil)
	ch := strings.Join(r.Header.Values("WWW-Authenticate"), " | ")
	if !strings.Contains(ch, "Bearer") || !strings.Contains(ch, "DPoP") || !strings.Contains(ch, "ES256") {
		t.Fatalf("challenges %q", ch)
	}
}

func TestTokenEndpointRefusesInvalidProof(t *testing.T) {
	env := webtest.Start(t, nil)
	key := newDPoPSigner(t)
	verifier, challenge := webtest.PKCE()
	redirect := "http://127.0.0.1:8765/cb"
	code := webtest.Authorize(t, env.URL, "admin@example.com", redirect, challenge)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {"trustframe-cli"}, "code_verifier": {verifier}}
	req, _ := http.NewRequest("POST", env.URL+"/dev/idp/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("DPoP", proof(t, key, "GET", env.URL+"/dev/idp/token", "", "")) // wrong htm
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]string
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 400 || body["error"] != "invalid_dpop_proof" {
		t.Fatalf("%d %v", resp.StatusCode, body)
	}
	var doc map[string]any
	r, b := call(t, "GET", env.URL+"/dev/idp/.well-known/openid-configuration", nil)
	json.Unmarshal([]byte(b), &doc)
	if r.StatusCode != 200 || doc["dpop_signing_alg_values_supported"] == nil {
		t.Fatalf("discovery: %s", b)
	}
}

func TestRefreshTokenStaysBoundToTheKey(t *testing.T) {
	env := webtest.Start(t, nil)
	key := newDPoPSigner(t)
	tokURL := env.URL + "/dev/idp/token"
	tok := webtest.Token(t, env.URL, "admin@example.com", http.Header{"Dpop": {proof(t, key, "POST", tokURL, "", "")}})
	if st, m := refresh(t, env.URL, tok.RefreshToken, nil); st != 400 || m["error"] != "invalid_dpop_proof" {
		t.Fatalf("refresh without proof: %d %v", st, m)
	}
	if st, m := refresh(t, env.URL, tok.RefreshToken, http.Header{"Dpop": {proof(t, newDPoPSigner(t), "POST", tokURL, "", "")}}); st != 400 {
		t.Fatalf("refresh with another key: %d %v", st, m)
	}
	st, m := refresh(t, env.URL, tok.RefreshToken, http.Header{"Dpop": {proof(t, key, "POST", tokURL, "", "")}})
	if st != 200 || m["token_type"] != "DPoP" {
		t.Fatalf("refresh with the key: %d %v", st, m)
	}
	cnf, _ := claimsOf(t, m["access_token"].(string))["cnf"].(map[string]any)
	if cnf["jkt"] != key.Thumbprint() {
		t.Fatalf("refreshed token bound to %v", cnf)
	}
}

func TestDPoPServerNonces(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.DPoPNonce = true })
	key := newDPoPSigner(t)
	post := tokenPoster(t, env.URL, key)
	resp, m := post("")
	nonce := resp.Header.Get("DPoP-Nonce")
	if resp.StatusCode != 400 || m["error"] != "use_dpop_nonce" || nonce == "" {
		t.Fatalf("without nonce: %d %v %q", resp.StatusCode, m, nonce)
	}
	resp, m = post(nonce)
	if resp.StatusCode != 200 {
		t.Fatalf("with nonce: %d %v", resp.StatusCode, m)
	}
	at := m["access_token"].(string)
	api := env.URL + "/api/users/super"
	r, _ := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + at}, "Dpop": {proof(t, key, "GET", api, at, "")}})
	n2 := r.Header.Get("DPoP-Nonce")
	if r.StatusCode != 401 || !strings.Contains(strings.Join(r.Header.Values("WWW-Authenticate"), " "), `error="use_dpop_nonce"`) || n2 == "" {
		t.Fatalf("API without nonce: %d %v", r.StatusCode, r.Header)
	}
	if r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + at}, "Dpop": {proof(t, key, "GET", api, at, n2)}}); r.StatusCode != 200 {
		t.Fatalf("API with nonce: %d %s", r.StatusCode, b)
	}
}

// TestDPoPBehindAProxy: htu is computed from --base-url, not from the Host
// the server happens to see.
func TestDPoPBehindAProxy(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.BaseURL, c.DevIdPAllowRemote = "https://directory.example", true })
	key := newDPoPSigner(t)
	tok := webtest.Token(t, env.URL, "admin@example.com", http.Header{"Dpop": {proof(t, key, "POST", "https://directory.example/dev/idp/token", "", "")}})
	if tok.TokenType != "DPoP" {
		t.Fatal(tok.TokenType)
	}
	if r, b := call(t, "GET", env.URL+"/api/users/super", http.Header{"Authorization": {"DPoP " + tok.AccessToken},
		"Dpop": {proof(t, key, "GET", env.URL+"/api/users/super", tok.AccessToken, "")}}); r.StatusCode != 401 || !strings.Contains(b, "htu") {
		t.Fatalf("htu of the inner address: %d %s", r.StatusCode, b)
	}
	if r, b := call(t, "GET", env.URL+"/api/users/super", http.Header{"Authorization": {"DPoP " + tok.AccessToken},
		"Dpop": {proof(t, key, "GET", "https://directory.example/api/users/super", tok.AccessToken, "")}}); r.StatusCode != 200 {
		t.Fatalf("htu of the public address: %d %s", r.StatusCode, b)
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	env := webtest.Start(t, nil)
	r, b := call(t, "GET", env.URL+"/.well-known/oauth-protected-resource", nil)
	var m map[string]any
	json.Unmarshal([]byte(b), &m)
	if r.StatusCode != 200 || m["resource"] != env.URL+"/api" || m["authorization_servers"].([]any)[0] != env.URL+"/dev/idp" {
		t.Fatalf("%d %s", r.StatusCode, b)
	}
}

// TestDPoPNonceChallengeCarriesOneNonce: RFC 9449 §8 gives DPoP-Nonce one
// value. The API's use_dpop_nonce refusal carried the header twice (the
// API group's fresh nonce and the refusal's own), which a client library
// joins into "n, n" — a nonce the next proof then fails with.
func TestDPoPNonceChallengeCarriesOneNonce(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.DPoPNonce = true })
	key := newDPoPSigner(t)
	post := tokenPoster(t, env.URL, key)
	resp, _ := post("")
	resp, m := post(resp.Header.Get("DPoP-Nonce"))
	if resp.StatusCode != 200 {
		t.Fatalf("token: %d %v", resp.StatusCode, m)
	}
	at := m["access_token"].(string)
	api := env.URL + "/api/users/super"
	for _, tc := range []struct{ name, nonce string }{{"no nonce", ""}, {"stale nonce", "not-a-nonce"}} {
		r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + at}, "Dpop": {proof(t, key, "GET", api, at, tc.nonce)}})
		vs := r.Header.Values("DPoP-Nonce")
		if r.StatusCode != 401 || !strings.Contains(b, "use_dpop_nonce") || len(vs) != 1 {
			t.Fatalf("%s: %d, DPoP-Nonce %q (want exactly one), %s", tc.name, r.StatusCode, vs, b)
		}
		// The one value is a nonce the next proof succeeds with.
		if r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + at}, "Dpop": {proof(t, key, "GET", api, at, strings.Join(vs, ", "))}}); r.StatusCode != 200 {
			t.Fatalf("%s: retry with the header's value: %d %s", tc.name, r.StatusCode, b)
		}
	}
}
