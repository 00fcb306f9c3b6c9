package web_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestUnsupportedSchemeIsABareChallenge: RFC 6750 §3.1, "If the request
// lacks any authentication information (e.g., ... attempted using an
// unsupported authentication method), the resource server SHOULD NOT
// include an error code": Basic credentials get the same 401 and bare
// Bearer and DPoP challenges as no credentials, not a 400 invalid_request.
func TestUnsupportedSchemeIsABareChallenge(t *testing.T) {
	env := webtest.Start(t, nil)
	for _, authz := range []string{"Basic dXNlcjpwYXNz", `Digest username="a", realm="b", nonce="c"`} {
		r, b := call(t, "GET", env.URL+"/api/users/super", http.Header{"Authorization": {authz}})
		ch := strings.Join(r.Header.Values("WWW-Authenticate"), " | ")
		if r.StatusCode != 401 || strings.Contains(ch, "error=") || !strings.Contains(ch, `Bearer realm="trustframe"`) || !strings.Contains(ch, "DPoP") {
			t.Fatalf("%s: %d %q %s", authz, r.StatusCode, ch, b)
		}
		scheme, _, _ := strings.Cut(authz, " ")
		if !strings.Contains(r.Header.Get("Content-Type"), "problem+json") || !strings.Contains(b, "unsupported authorization scheme "+scheme) {
			t.Fatalf("the body should say which scheme was not understood: %s", b)
		}
	}
	// Two Bearer tokens in one header are still a malformed request (400).
	r, b := call(t, "GET", env.URL+"/api/users/super", http.Header{"Authorization": {"Bearer a, Bearer b"}})
	if r.StatusCode != 400 || !strings.Contains(strings.Join(r.Header.Values("WWW-Authenticate"), " "), `error="invalid_request"`) {
		t.Fatalf("two tokens in one header: %d %s", r.StatusCode, b)
	}
}

// TestChallengeErrorDescriptionCharset: RFC 6750 §3, error_description
// "MUST NOT include characters outside the set %x20-21 / %x23-5B / %x5D-7E";
// what a client sent (here a token's typ) must not bring a backslash, a
// quote or a non-ASCII letter into the WWW-Authenticate header.
func TestChallengeErrorDescriptionCharset(t *testing.T) {
	env := webtest.Start(t, nil)
	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","typ":"x\"\\é\u0001"}`))
	raw := hdr + ".e30.c2ln"
	for _, scheme := range []string{"Bearer", "DPoP"} {
		r, b := call(t, "GET", env.URL+"/api/users/super", http.Header{"Authorization": {scheme + " " + raw}})
		if r.StatusCode != 401 {
			t.Fatalf("%s: %d %s", scheme, r.StatusCode, b)
		}
		found := false
		for _, v := range r.Header.Values("WWW-Authenticate") {
			_, desc, ok := strings.Cut(v, `error_description="`)
			if !ok {
				continue
			}
			found = true
			desc = strings.TrimSuffix(desc, `"`)
			for _, c := range []byte(desc) {
				if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
					t.Fatalf("%s: error_description holds %q: %q", scheme, c, desc)
				}
			}
		}
		if !found {
			t.Fatalf("%s: no error_description in %q", scheme, r.Header.Values("WWW-Authenticate"))
		}
	}
}
