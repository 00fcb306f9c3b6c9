package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store/storetest"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestDPoPAcrossInstances: two instances of one directory (same database,
// same data directory, so the same KEK and base URL, as behind a load
// balancer). A DPoP proof used on one is refused on the other, and a
// server nonce made by one is accepted by the other (docs/design.md §2.1).
func TestDPoPAcrossInstances(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("several instances share a database on PostgreSQL (TRUSTFRAME_TEST_POSTGRES, set by .ci/test); one SQLite file is one process's")
	}
	dir := t.TempDir()
	a := webtest.StartIn(t, dir, func(c *web.Config) { c.DPoPNonce = true })
	b := webtest.StartOn(t, dir, webtest.Database(t, dir), func(c *web.Config) { c.DPoPNonce = true; c.BaseURL = a.URL })
	key := newDPoPSigner(t)
	api := "/api/users/super"

	// A token from A's token endpoint (which asks for a nonce first).
	tokURL := a.URL + "/dev/idp/token"
	verifier, challenge := webtest.PKCE()
	redirect := "http://127.0.0.1:8765/cb"
	code := webtest.Authorize(t, a.URL, "admin@example.com", redirect, challenge)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {"trustframe-cli"}, "code_verifier": {verifier}}
	post := func(nonce string) (*http.Response, map[string]any) {
		req, _ := http.NewRequest("POST", tokURL, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("DPoP", proof(t, key, "POST", tokURL, "", nonce))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp, m
	}
	resp, _ := post("")
	resp, m := post(resp.Header.Get("DPoP-Nonce"))
	if resp.StatusCode != 200 {
		t.Fatalf("token: %d %v", resp.StatusCode, m)
	}
	tok := struct{ AccessToken string }{m["access_token"].(string)}
	r, _ := call(t, "GET", a.URL+api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {proof(t, key, "GET", a.URL+api, tok.AccessToken, "")}})
	nonce := r.Header.Get("DPoP-Nonce")
	if r.StatusCode != 401 || nonce == "" {
		t.Fatalf("A without a nonce: %d", r.StatusCode)
	}
	// A's nonce on B: accepted. The htu is the shared base URL (A's).
	p := proof(t, key, "GET", a.URL+api, tok.AccessToken, nonce)
	if r, body := call(t, "GET", b.URL+api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {p}}); r.StatusCode != 200 {
		t.Fatalf("B with A's nonce: %d %s", r.StatusCode, body)
	}
	// The same proof again, on A: a replay.
	r, body := call(t, "GET", a.URL+api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {p}})
	if r.StatusCode != 401 || !strings.Contains(body, "jti_replay") {
		t.Fatalf("the proof used on B, again on A: %d %s", r.StatusCode, body)
	}
}
