package web_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestStolenDPoPTokenWithCapturedProof: whoever holds a DPoP-bound token
// and a proof the client made, but not the client's key, gets nothing the
// proof was not made for, through the real router: another method (htm),
// another path (htu), another token of the same key (ath), and the proof
// once the client has used it (jti_replay). A query on the request is not
// part of htu (RFC 9449 §4.3).
func TestStolenDPoPTokenWithCapturedProof(t *testing.T) {
	env := webtest.Start(t, nil)
	key := newDPoPSigner(t)
	tok := func() string {
		return webtest.Token(t, env.URL, "admin@example.com", http.Header{"Dpop": {proof(t, key, "POST", env.URL+"/dev/idp/token", "", "")}}).AccessToken
	}
	t1, t2 := tok(), tok()
	api := env.URL + "/api/users/super"
	refused := func(name, method, u, token, p, rule string) {
		t.Helper()
		r, b := call(t, method, u, http.Header{"Authorization": {"DPoP " + token}, "Dpop": {p}})
		if r.StatusCode != http.StatusUnauthorized || !strings.Contains(b, `"dpopRule":"`+rule+`"`) ||
			!strings.Contains(strings.Join(r.Header.Values("WWW-Authenticate"), " "), `error="invalid_dpop_proof"`) {
			t.Errorf("%s: %d %s", name, r.StatusCode, b)
		}
	}
	captured := proof(t, key, "GET", api, t1, "")
	refused("another method", "POST", api, t1, captured, "htm")
	refused("another path", "GET", env.URL+"/api/users/data-administrators", t1, captured, "htu")
	refused("another token of the key", "GET", api, t2, captured, "ath")
	if r, b := call(t, "GET", api+"?size=1", http.Header{"Authorization": {"DPoP " + t1}, "Dpop": {captured}}); r.StatusCode != 200 {
		t.Fatalf("the proof with a query on the request: %d %s", r.StatusCode, b)
	}
	refused("used once already", "GET", api, t1, captured, "jti_replay")
}

// TestDPoPProofTooOld: a proof older than the window (--dpop-window, 60 s)
// is refused through the real router, and one from the future beyond the
// skew (--dpop-skew, 5 s) too.
func TestDPoPProofTooOld(t *testing.T) {
	var offset atomic.Int64
	env := webtest.Start(t, func(c *web.Config) {
		c.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	})
	key := newDPoPSigner(t)
	api := env.URL + "/api/users/super"
	bound := webtest.Token(t, env.URL, "admin@example.com", http.Header{"Dpop": {proof(t, key, "POST", env.URL+"/dev/idp/token", "", "")}})
	for _, c := range []struct {
		name  string
		shift time.Duration
	}{{"two minutes old", 2 * time.Minute}, {"a minute ahead", -time.Minute}} {
		offset.Store(int64(c.shift))
		r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + bound.AccessToken}, "Dpop": {proof(t, key, "GET", api, bound.AccessToken, "")}})
		if r.StatusCode != http.StatusUnauthorized || !strings.Contains(b, `"dpopRule":"iat"`) {
			t.Errorf("a proof %s: %d %s", c.name, r.StatusCode, b)
		}
	}
	offset.Store(0)
	if r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + bound.AccessToken}, "Dpop": {proof(t, key, "GET", api, bound.AccessToken, "")}}); r.StatusCode != 200 {
		t.Fatalf("a fresh proof: %d %s", r.StatusCode, b)
	}
}
