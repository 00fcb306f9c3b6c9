package issuer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Why a discovery document could not be read is said in plain words with
// what to check, never the library's text: no "dial tcp", no resolver
// address (":53"), no "context deadline exceeded", no "x509:".
func TestDiscoveryProblemsInPlainWords(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	}))
	defer slow.Close()
	selfSigned := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) }))
	defer selfSigned.Close()
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	v := &Validator{AllowPrivate: true, Timeout: 300 * time.Millisecond}
	raw := []string{"dial tcp", ":53", "context deadline exceeded", "x509:", "tls:", "Client.Timeout", "lookup "}
	for name, c := range map[string]struct{ issuer, want string }{
		"no such host": {"https://no-such-host.invalid", "does not exist (no DNS record)"},
		"timeout":      {slow.URL, "did not answer within 300ms"},
		"certificate":  {selfSigned.URL, "TLS certificate is not trusted"},
		"status":       {missing.URL, "answered HTTP 404"},
	} {
		t.Run(name, func(t *testing.T) {
			p := strings.Join(v.Check(context.Background(), c.issuer, ""), " ")
			// A sandbox without DNS fails the lookup otherwise: plain too.
			if name == "no such host" && strings.Contains(p, "could not be looked up") {
				c.want = "could not be looked up"
			}
			if !strings.Contains(p, c.want) {
				t.Fatalf("problems %q, want %q", p, c.want)
			}
			for _, r := range raw {
				if strings.Contains(p, r) {
					t.Errorf("problems %q hold the raw %q", p, r)
				}
			}
		})
	}
}
