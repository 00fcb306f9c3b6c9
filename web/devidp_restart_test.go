package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestDevIdPRefreshTokenSurvivesRestart: a refresh token of the
// development identity provider issued before a restart is honoured after
// it (and its access token works); rotation still holds across the
// restart (the used token is refused next time), and a token revoked
// before a restart stays revoked.
func TestDevIdPRefreshTokenSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	// A restart keeps the base URL; the test servers get new ports, so the
	// audience is pinned instead.
	pin := func(c *web.Config) { c.APIAudience = "https://trustframe.test/api" }
	first := webtest.StartIn(t, dir, pin)
	rt := webtest.Token(t, first.URL, "admin@example.com", nil).RefreshToken
	revoked := webtest.Token(t, first.URL, "admin@example.com", nil).RefreshToken
	resp, err := http.PostForm(first.URL+"/dev/idp/revoke", url.Values{"token": {revoked}, "token_type_hint": {"refresh_token"}, "client_id": {"trustframe-cli"}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("revoke: %v %v", err, resp)
	}
	resp.Body.Close()
	if rt == "" {
		t.Fatal("no refresh token")
	}
	first.HTTP.Close()

	// The same data directory, a new process's worth of state.
	second := webtest.StartIn(t, dir, pin)
	refresh := func(base, tok string) (int, map[string]any) {
		return tokenForm(t, base, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok}, "client_id": {"trustframe-cli"}})
	}
	st, m := refresh(second.URL, rt)
	if st != 200 || m["access_token"] == nil || m["refresh_token"] == nil {
		t.Fatalf("refresh after a restart: %d %v", st, m)
	}
	req, _ := http.NewRequest("GET", second.URL+"/api/users/super", nil)
	req.Header.Set("Authorization", "Bearer "+m["access_token"].(string))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the refreshed access token: %v %v", err, resp)
	}
	if st, m := refresh(second.URL, revoked); st != 400 {
		t.Fatalf("a token revoked before the restart: %d %v", st, m)
	}
	second.HTTP.Close()

	third := webtest.StartIn(t, dir, pin)
	if st, m := refresh(third.URL, rt); st != 400 {
		t.Fatalf("a used refresh token after another restart: %d %v", st, m)
	}
}
