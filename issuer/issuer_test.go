package issuer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func server(t *testing.T, handler func(base string) http.HandlerFunc) string {
	var base string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler(base)(w, r) }))
	t.Cleanup(s.Close)
	base = s.URL
	return base
}

func TestGoodIssuer(t *testing.T) {
	base := server(t, func(base string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/.well-known/openid-configuration" {
				w.Write([]byte(`{"issuer":"` + base + `"}`))
				return
			}
			http.NotFound(w, r)
		}
	})
	v := &Validator{AllowPrivate: true}
	if p := v.Check(context.Background(), base, ""); len(p) != 0 {
		t.Fatal(p)
	}
}

func TestIssuerProblems(t *testing.T) {
	other := server(t, func(string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"issuer":"https://someone-else.example"}`))
		}
	})
	notJSON := server(t, func(string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`<html>`)) }
	})
	huge := server(t, func(string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"issuer":"` + strings.Repeat("x", 600<<10) + `"}`))
		}
	})
	var loop string
	loop = server(t, func(string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, loop+r.URL.Path+"x", http.StatusFound)
		}
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String()
	ln.Close()
	v := &Validator{AllowPrivate: true}
	cases := map[string]struct {
		issuer, discovery, want string
	}{
		"mismatch":        {other, "", "names issuer"},
		"not JSON":        {notJSON, "", "not JSON"},
		"too large":       {huge, "", "larger than"},
		"redirect loop":   {loop, "", "redirects"},
		"unreachable":     {dead, "", "refused the connection"},
		"prefix":          {other, "https://elsewhere.example/.well-known/openid-configuration", "does not start with the issuer"},
		"not a URL":       {"ftp://x", "", "https URL"},
		"query in issuer": {"https://a.example/?x=1", "", "https URL"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := v.Check(context.Background(), c.issuer, c.discovery)
			if !strings.Contains(strings.Join(p, " "), c.want) {
				t.Fatalf("problems %q, want %q", p, c.want)
			}
		})
	}
}

func TestPrivateAddressesRefused(t *testing.T) {
	base := server(t, func(base string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"issuer":"` + base + `"}`)) }
	})
	v := &Validator{}
	// http is refused outright without AllowPrivate; try the https form of a loopback host too.
	if p := v.Check(context.Background(), base, ""); len(p) == 0 {
		t.Fatal("loopback http issuer accepted")
	}
	if p := v.Check(context.Background(), "https://127.0.0.1:1", ""); !strings.Contains(strings.Join(p, " "), "not public") {
		t.Fatalf("loopback https issuer: %q", p)
	}
	for ip, want := range map[string]bool{"8.8.8.8": true, "10.1.2.3": false, "192.168.1.1": false, "169.254.169.254": false, "100.64.1.1": false, "::1": false, "fd00::1": false, "2001:4860:4860::8888": true} {
		if Public(net.ParseIP(ip)) != want {
			t.Errorf("%s public=%v", ip, !want)
		}
	}
}

func TestCheckProviderNeedsJWKSURI(t *testing.T) {
	for name, c := range map[string]struct {
		jwks string // %s is the server's base URL
		ok   bool
	}{
		"names its keys":     {jwks: "%s/jwks", ok: true},
		"no jwks_uri":        {jwks: ""},
		"jwks_uri not a URL": {jwks: "keys"},
		"jwks_uri over ftp":  {jwks: "ftp://example.com/jwks"},
	} {
		t.Run(name, func(t *testing.T) {
			base := server(t, func(base string) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					j := strings.ReplaceAll(c.jwks, "%s", base)
					w.Write([]byte(`{"issuer":"` + base + `","jwks_uri":"` + j + `"}`))
				}
			})
			v := &Validator{AllowPrivate: true}
			got, problems := v.CheckProvider(context.Background(), base)
			if c.ok && (len(problems) != 0 || got != base+"/jwks") {
				t.Fatalf("%q %v", got, problems)
			}
			if !c.ok && (len(problems) != 1 || !strings.Contains(problems[0], "jwks_uri") || got != "") {
				t.Fatalf("%q %v", got, problems)
			}
		})
	}
	// Problems of the issuer itself come first and stop the check.
	v := &Validator{AllowPrivate: true}
	if _, p := v.CheckProvider(context.Background(), "ftp://x"); len(p) != 1 || !strings.Contains(p[0], "https URL") {
		t.Fatal(p)
	}
}

// Issue 14 point 10: every reserved IPv4 block is refused, and the error
// says only that the address is not public, never what a name resolved to.
func TestReservedBlocksRefusedAndResolvedAddressNotShown(t *testing.T) {
	for _, ip := range []string{"0.0.0.0", "0.1.2.3", "0.255.255.255", "240.0.0.1", "255.255.255.254", "255.255.255.255", "::ffff:0.1.2.3", "::ffff:240.0.0.1",
		"::", "::ffff:127.0.0.1", "::127.0.0.1", "::10.0.0.1", "64:ff9b::a00:1", "64:ff9b:1::a00:1", "100::1"} {
		if Public(net.ParseIP(ip)) {
			t.Errorf("%s is public", ip)
		}
	}
	for _, ip := range []string{"8.8.8.8", "::ffff:8.8.8.8", "2001:4860:4860::8888", "2a00:1450:4001:82a::200e"} {
		if !Public(net.ParseIP(ip)) {
			t.Errorf("%s is not public", ip)
		}
	}
	v := &Validator{}
	p := strings.Join(v.Check(context.Background(), "https://localhost:1", ""), " ")
	if !strings.Contains(p, "address is not public") || strings.Contains(p, "127.0.0.1") || strings.Contains(p, "::1") {
		t.Fatalf("problems %q", p)
	}
	// The keys client says the same.
	_, err := v.HTTPClient().Get("https://localhost:1/jwks")
	if err == nil || !strings.Contains(err.Error(), "address is not public") || strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), "[::1]") {
		t.Fatalf("client error %v", err)
	}
}

// TestClientCapsAnswers: the guarded client stops reading an answer past
// MaxResponse (go-oidc, handed this client for identity providers, reads a
// discovery document whole), and reads one of exactly that size.
func TestClientCapsAnswers(t *testing.T) {
	base := server(t, func(string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			n := MaxResponse
			if r.URL.Path == "/big" {
				n = 64 << 20
			}
			w.Write(bytes.Repeat([]byte("a"), n))
		}
	})
	c := (&Validator{AllowPrivate: true}).HTTPClient()
	resp, err := c.Get(base + "/big")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, ErrTooLarge) || len(b) > MaxResponse {
		t.Fatalf("read %d bytes, err %v", len(b), err)
	}
	resp, err = c.Get(base + "/exact")
	if err != nil {
		t.Fatal(err)
	}
	b, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(b) != MaxResponse {
		t.Fatalf("exactly MaxResponse: %d bytes, err %v", len(b), err)
	}
}

// TestPublicRefusesTunnelAndTranslationForms: an IPv6 address that reaches
// an IPv4 one through a tunnel or a translator, or a deprecated scope, is
// not public: one case per form, each with an embedded loopback or private
// address and (where the form may carry one) a public one, since the whole
// range is refused (docs/decisions.md).
func TestPublicRefusesTunnelAndTranslationForms(t *testing.T) {
	for form, ips := range map[string][]string{
		"6to4 (2002::/16)":                     {"2002:7f00:1::", "2002:a00:1::1", "2002:808:808::1"},
		"Teredo (2001::/32)":                   {"2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1"},
		"site-local (fec0::/10)":               {"fec0::1", "feff:ffff::1"},
		"IPv4-translated (::ffff:0:0:0/96)":    {"::ffff:0:7f00:1", "::ffff:0:a00:1", "::ffff:0:808:808"},
		"NAT64 well-known (64:ff9b::/96)":      {"64:ff9b::7f00:1", "64:ff9b::808:808"},
		"NAT64 local-use (64:ff9b:1::/48)":     {"64:ff9b:1::a00:1"},
		"IPv4-compatible (::/96)":              {"::7f00:1", "::808:808"},
		"IPv4-mapped, private (::ffff:0:0/96)": {"::ffff:127.0.0.1", "::ffff:10.0.0.1"},
	} {
		t.Run(form, func(t *testing.T) {
			for _, ip := range ips {
				if Public(net.ParseIP(ip)) {
					t.Errorf("%s is public", ip)
				}
			}
		})
	}
	// Neighbours of those ranges stay public.
	for _, ip := range []string{"2001:4860:4860::8888", "2003::1", "2001:200::1", "::ffff:8.8.8.8", "2a00:1450:4001:82a::200e"} {
		if !Public(net.ParseIP(ip)) {
			t.Errorf("%s is not public", ip)
		}
	}
}

// TestPublishedKeys: the keys at the discovery document's jwks_uri, or one
// problem in words when there is no jwks_uri, the key set cannot be read
// or is not a JWK set.
func TestPublishedKeys(t *testing.T) {
	for name, c := range map[string]struct {
		jwks, body string
		keys       int
		problem    string
	}{
		"two keys":      {jwks: "%s/jwks", body: `{"keys":[{"kty":"oct"},{"kty":"oct"}]}`, keys: 2},
		"no jwks_uri":   {jwks: "", problem: "names no https jwks_uri"},
		"not found":     {jwks: "%s/missing", problem: "could not be read"},
		"not a key set": {jwks: "%s/jwks", body: `[1,2]`, problem: "is not a JWK set"},
	} {
		t.Run(name, func(t *testing.T) {
			base := server(t, func(base string) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					switch r.URL.Path {
					case "/.well-known/openid-configuration":
						w.Write([]byte(`{"issuer":"` + base + `","jwks_uri":"` + strings.ReplaceAll(c.jwks, "%s", base) + `"}`))
					case "/jwks":
						w.Write([]byte(c.body))
					default:
						http.NotFound(w, r)
					}
				}
			})
			keys, problems := (&Validator{AllowPrivate: true}).PublishedKeys(context.Background(), base, "")
			if c.problem == "" && (len(problems) != 0 || len(keys) != c.keys) {
				t.Fatalf("%d keys, %v", len(keys), problems)
			}
			if c.problem != "" && (len(problems) != 1 || !strings.Contains(problems[0], c.problem) || keys != nil) {
				t.Fatalf("%d keys, %v", len(keys), problems)
			}
		})
	}
}
