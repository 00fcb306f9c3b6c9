package web_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web/webtest"
)

// downReplay is a store of seen proofs that cannot be reached.
type downReplay struct{}

func (downReplay) Add(string, time.Time) (bool, error) { return false, errors.New("database gone") }

// TestDPoPReplayStoreDownIsA503: when the proofs already seen cannot be
// checked (the shared database does not answer), a request with a good
// proof is answered 503 with Retry-After — at the API and at the token
// endpoint — not 401 jti_replay: the client did nothing wrong and may try
// again.
func TestDPoPReplayStoreDownIsA503(t *testing.T) {
	t.Run("api", func(t *testing.T) {
		env := webtest.Start(t, nil)
		env.Server.SetDPoPReplay(downReplay{}, nil)
		key := newDPoPSigner(t)
		tok := webtest.Token(t, env.URL, "admin@example.com", http.Header{"Dpop": {proof(t, key, "POST", env.URL+"/dev/idp/token", "", "")}})
		api := env.URL + "/api/users/super"
		r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {proof(t, key, "GET", api, tok.AccessToken, "")}})
		if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || strings.Contains(b, "jti_replay") ||
			!strings.Contains(r.Header.Get("Content-Type"), "problem+json") {
			t.Fatalf("replay store down: %d %v %s", r.StatusCode, r.Header, b)
		}
	})
	t.Run("token endpoint", func(t *testing.T) {
		env := webtest.Start(t, nil)
		env.Server.SetDPoPReplay(nil, downReplay{})
		key := newDPoPSigner(t)
		verifier, challenge := webtest.PKCE()
		redirect := "http://127.0.0.1:53682/callback"
		code := webtest.Authorize(t, env.URL, "admin@example.com", redirect, challenge)
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
			"client_id": {"trustframe-cli"}, "code_verifier": {verifier}}
		req, _ := http.NewRequest("POST", env.URL+"/dev/idp/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("DPoP", proof(t, key, "POST", env.URL+"/dev/idp/token", "", ""))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("token endpoint, replay store down: %d %v", resp.StatusCode, resp.Header)
		}
	})
}
