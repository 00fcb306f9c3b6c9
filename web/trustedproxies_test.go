package web_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// signInStatus asks for /login (rate limited per client address) with
// the given X-Forwarded-For values, not following the redirect.
func signInStatus(t *testing.T, base string, xff ...string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/login", nil)
	for _, v := range xff {
		req.Header.Add("X-Forwarded-For", v)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestTrustedProxyClientBuckets: behind a trusted proxy (the test's
// client, 127.0.0.1, is the proxy) each client named by X-Forwarded-For
// has its own sign-in bucket, and the access log names that client. The
// rightmost address that is not a trusted proxy is the client: what a
// client writes to the left of it changes nothing.
func TestTrustedProxyClientBuckets(t *testing.T) {
	var logs webtest.LogBuffer
	env := webtest.Start(t, func(c *web.Config) {
		c.RateLimit = 2
		c.TrustedProxies = proxies(t, "127.0.0.1, 10.0.0.0/8")
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	// Client A spends its bucket; client B, through the same proxy, still signs in.
	for i, want := range []int{302, 302, 429} {
		if got := signInStatus(t, env.URL, "203.0.113.1"); got != want {
			t.Fatalf("client A, request %d: %d, want %d", i+1, got, want)
		}
	}
	if got := signInStatus(t, env.URL, "203.0.113.2"); got != 302 {
		t.Fatalf("client B after A's bucket ran out: %d", got)
	}
	// A through a second trusted proxy (10.1.2.3, another hop) is still A.
	if got := signInStatus(t, env.URL, "203.0.113.1, 10.1.2.3"); got != 429 {
		t.Fatalf("client A through two proxies: %d", got)
	}
	// What client C writes before its own address does not give it new buckets.
	for i, want := range []int{302, 302, 429} {
		if got := signInStatus(t, env.URL, "198.51.100."+string(rune('1'+i))+", 203.0.113.3"); got != want {
			t.Fatalf("client C with a forged prefix, request %d: %d, want %d", i+1, got, want)
		}
	}
	// Several header lines are one list.
	if got := signInStatus(t, env.URL, "198.51.100.9", "203.0.113.3"); got != 429 {
		t.Fatalf("client C over two header lines: %d", got)
	}
	if !strings.Contains(logs.String(), "client=203.0.113.2") || !strings.Contains(logs.String(), "client=203.0.113.3") {
		t.Fatalf("the access log does not name the forwarded client:\n%s", logs.String())
	}
}

// TestSignInRateLimitCountsIPv6PerSlash64: an IPv6 client is one bucket
// per /64 (one subscriber's block, in which it may take any address), so
// a new address in the same /64 does not bring a new bucket; another /64
// does. IPv4 clients stay one bucket per address.
func TestSignInRateLimitCountsIPv6PerSlash64(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) {
		c.RateLimit = 2
		c.TrustedProxies = proxies(t, "127.0.0.1")
	})
	for i, want := range []int{302, 302, 429, 429} {
		addr := "2001:db8:1:2::" + string(rune('a'+i))
		if got := signInStatus(t, env.URL, addr); got != want {
			t.Fatalf("request %d from %s: %d, want %d", i+1, addr, got, want)
		}
	}
	if got := signInStatus(t, env.URL, "[2001:db8:1:2:ffff::1]:443"); got != 429 {
		t.Fatalf("the same /64 with a port: %d", got)
	}
	if got := signInStatus(t, env.URL, "2001:db8:1:3::a"); got != 302 {
		t.Fatalf("another /64: %d", got)
	}
	for i, want := range []int{302, 302, 302} {
		addr := "203.0.113." + string(rune('1'+i))
		if got := signInStatus(t, env.URL, addr); got != want {
			t.Fatalf("IPv4 %s: %d, want %d", addr, got, want)
		}
	}
}

// TestUntrustedPeerForwardedForIgnored: a peer that is not a trusted
// proxy cannot choose its bucket by writing X-Forwarded-For (spoofing):
// every request counts against its own address, and the log names it.
func TestUntrustedPeerForwardedForIgnored(t *testing.T) {
	for name, trusted := range map[string]string{"nobody trusted": "", "another proxy trusted": "192.0.2.0/24"} {
		t.Run(name, func(t *testing.T) {
			var logs webtest.LogBuffer
			env := webtest.Start(t, func(c *web.Config) {
				c.RateLimit = 2
				c.TrustedProxies = proxies(t, trusted)
				c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			})
			for i, want := range []int{302, 302, 429, 429} {
				if got := signInStatus(t, env.URL, "203.0.113."+string(rune('1'+i))); got != want {
					t.Fatalf("request %d with a forged X-Forwarded-For: %d, want %d", i+1, got, want)
				}
			}
			if strings.Contains(logs.String(), "client=203.0.113.") || !strings.Contains(logs.String(), "client=127.0.0.1") {
				t.Fatalf("the access log took the forged address:\n%s", logs.String())
			}
		})
	}
}

// TestMalformedForwardedForIgnored: values that are not IP addresses are
// not keys: a client cannot make a new bucket per request by writing
// garbage. A malformed element ends the walk from the right: the client
// is the nearest hop that could be told (here the proxy itself).
func TestMalformedForwardedForIgnored(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) {
		c.RateLimit = 2
		c.TrustedProxies = proxies(t, "127.0.0.1")
	})
	for i, xff := range []string{"not-an-ip", "203.0.113.9, unknown", "", "fe80::1%eth0"} {
		want := 302
		if i >= 2 {
			want = 429
		}
		if got := signInStatus(t, env.URL, xff); got != want {
			t.Fatalf("X-Forwarded-For %q (request %d): %d, want %d", xff, i+1, got, want)
		}
	}
	// A malformed value to the left of a good one: the good one is the client.
	if got := signInStatus(t, env.URL, "garbage, 203.0.113.5"); got != 302 {
		t.Fatalf("a garbage prefix: %d", got)
	}
	// With a port, as some proxies write it.
	if got := signInStatus(t, env.URL, "[2001:db8::1]:4711"); got != 302 {
		t.Fatalf("an address with a port: %d", got)
	}
}

// TestDevIdPLoopbackBehindProxy: behind a trusted proxy on this machine
// the development identity provider's loopback check looks at the
// forwarded client, so a remote client is not taken for a local one.
func TestDevIdPLoopbackBehindProxy(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.TrustedProxies = proxies(t, "127.0.0.1") })
	get := func(xff string) int {
		req, _ := http.NewRequest("GET", env.URL+"/dev/idp/jwks", nil)
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get(""); got != 200 {
		t.Fatalf("the proxy itself: %d", got)
	}
	if got := get("203.0.113.1"); got != 403 {
		t.Fatalf("a remote client through the proxy: %d", got)
	}
}

func TestParseTrustedProxies(t *testing.T) {
	p, err := web.ParseTrustedProxies(" 10.0.0.0/8, 192.0.2.7 ,fd00::/8,,::ffff:198.51.100.1")
	if err != nil || len(p) != 4 || p[1].String() != "192.0.2.7/32" || p[3].String() != "198.51.100.1/32" {
		t.Fatalf("%v %v", p, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.example", "10.0.0.1/8/2", "300.1.1.1"} {
		if _, err := web.ParseTrustedProxies(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
