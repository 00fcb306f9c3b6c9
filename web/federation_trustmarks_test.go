package web_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// The directory's trust mark endpoints through the router (docs/design.md
// §17): their refusals in the federation error shape, and the status of a
// mark the directory did not sign. Issuing and the statuses of recorded
// marks are tested in federation/anchor against the store's contract.

// fedPostForm posts form to path and answers the status, Content-Type,
// Cache-Control and body.
func fedPostForm(t *testing.T, base, path string, form url.Values) (int, string, string, string) {
	t.Helper()
	resp, err := http.PostForm(base+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"), string(b)
}

// fedErrorIs checks a federation error answer: its status, JSON shape and code.
func fedErrorIs(t *testing.T, what string, code int, ctype, body string, wantCode int, wantError string) {
	t.Helper()
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if code != wantCode || ctype != "application/json" || json.Unmarshal([]byte(body), &e) != nil || e.Error != wantError || e.Description == "" {
		t.Errorf("%s: %d %s %s, want %d %s", what, code, ctype, body, wantCode, wantError)
	}
}

// TestFederationTrustMarkStatusWithoutAJWT: a status request without a JWT
// in trust_mark (none, empty, not a JWT, or a JSON body) is 400
// invalid_request.
func TestFederationTrustMarkStatusWithoutAJWT(t *testing.T) {
	env, _, _ := specEnv(t)
	for name, form := range map[string]url.Values{"none": {}, "empty": {"trust_mark": {""}}, "not a JWT": {"trust_mark": {"abc"}}} {
		code, ctype, _, body := fedPostForm(t, env.URL, "/federation/trust-mark-status", form)
		fedErrorIs(t, name, code, ctype, body, 400, "invalid_request")
	}
	resp, err := http.Post(env.URL+"/federation/trust-mark-status", "application/json", strings.NewReader(`{"trust_mark":"a.b.c"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fedErrorIs(t, "JSON body", resp.StatusCode, resp.Header.Get("Content-Type"), string(b), 400, "invalid_request")
}

// TestFederationTrustMarkStatusInvalidForAnotherKey: a mark naming the
// directory as its issuer but signed by another key is answered
// "invalid" in a status response the directory signed (typ, kid and
// signature checked against its published keys), never cached.
func TestFederationTrustMarkStatusInvalidForAnotherKey(t *testing.T) {
	env, leaf, keys := specEnv(t)
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k, KeyID: keys.Keys[0].KeyID}},
		(&jose.SignerOptions{}).WithType("trust-mark+jwt"))
	now := time.Now()
	b, _ := json.Marshal(map[string]any{"iss": env.URL, "sub": leaf.srv.URL, "trust_mark_type": env.URL + "/trust-marks/x",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "forged"})
	jws, _ := sig.Sign(b)
	mark, _ := jws.CompactSerialize()
	code, ctype, cache, body := fedPostForm(t, env.URL, "/federation/trust-mark-status", url.Values{"trust_mark": {mark}})
	if code != 200 || ctype != "application/trust-mark-status-response+jwt" || cache != "no-store" {
		t.Fatalf("%d %s %s %s", code, ctype, cache, body)
	}
	c := fedClaims(t, body, "trust-mark-status-response+jwt", &keys)
	if c["status"] != "invalid" || c["iss"] != env.URL || c["trust_mark"] != mark || c["iat"] == nil {
		t.Fatalf("status response %v", c)
	}
}

// TestFederationTrustMarkRefusals: a trust mark or a list of a type the
// directory does not issue is 404 not_found; a request without the
// parameters 400 invalid_request; GET on the status endpoint 405 naming
// POST.
func TestFederationTrustMarkRefusals(t *testing.T) {
	env, leaf, _ := specEnv(t)
	typ := url.QueryEscape(env.URL + "/trust-marks/unknown")
	sub := url.QueryEscape(leaf.srv.URL)
	for path, want := range map[string]struct {
		code int
		err  string
	}{
		"/federation/trust-mark?trust_mark_type=" + typ + "&sub=" + sub: {404, "not_found"},
		"/federation/trust-mark?sub=" + sub:                             {400, "invalid_request"},
		"/federation/trust-mark?trust_mark_type=" + typ:                 {400, "invalid_request"},
		"/federation/trust-marked-entities?trust_mark_type=" + typ:      {404, "not_found"},
		"/federation/trust-marked-entities":                             {400, "invalid_request"},
	} {
		code, ctype, body := fedGet(t, env, path)
		fedErrorIs(t, path, code, ctype, body, want.code, want.err)
	}
	resp, err := http.Get(env.URL + "/federation/trust-mark-status")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fedErrorIs(t, "GET status", resp.StatusCode, resp.Header.Get("Content-Type"), string(b), 405, "invalid_request")
	if allow := resp.Header.Get("Allow"); allow != "POST" {
		t.Errorf("Allow %q", allow)
	}
}

// TestFederationEntityConfigurationNamesTrustMarkEndpoints: the entity
// configuration names the trust mark, status, list and historical keys
// endpoints.
func TestFederationEntityConfigurationNamesTrustMarkEndpoints(t *testing.T) {
	env, _, keys := specEnv(t)
	_, _, ec := fedGet(t, env, "/.well-known/openid-federation")
	fe := fedClaims(t, ec, "entity-statement+jwt", &keys)["metadata"].(map[string]any)["federation_entity"].(map[string]any)
	for claim, path := range map[string]string{
		"federation_trust_mark_endpoint":        "/federation/trust-mark",
		"federation_trust_mark_status_endpoint": "/federation/trust-mark-status",
		"federation_trust_mark_list_endpoint":   "/federation/trust-marked-entities",
		"federation_historical_keys_endpoint":   "/federation/historical-keys",
	} {
		if fe[claim] != env.URL+path {
			t.Errorf("%s = %v, want %s", claim, fe[claim], env.URL+path)
		}
	}
}
