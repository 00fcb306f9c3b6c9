package web_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web"
)

// TestResolveBudgetPerClientAndInAll: resolves under way are bounded per
// client (an IPv6 client by its /64) and in all; past either, 429
// temporarily_unavailable with Retry-After, without a fetch; once the
// fetches end, resolves are served again (docs/design.md §13).
func TestResolveBudgetPerClientAndInAll(t *testing.T) {
	env, leaf, _ := specEnv(t, func(c *web.Config) {
		c.ResolvesInFlight, c.ResolvesInFlightPerClient = 3, 2
		c.TrustedProxies, _ = web.ParseTrustedProxies("127.0.0.1, ::1")
	})
	leaf.hold = make(chan struct{})
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(leaf.hold) }) })

	resolve := func(client string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, env.URL+resolvePath(env, leaf.srv.URL), nil)
		req.Header.Set("X-Forwarded-For", client)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return nil
		}
		resp.Body.Close()
		return resp
	}
	var held sync.WaitGroup
	hold := func(client string) {
		want := leaf.hits.Load() + 1
		held.Add(1)
		go func() {
			defer held.Done()
			if resp := resolve(client); resp != nil && resp.StatusCode != 200 {
				t.Errorf("held resolve from %s: %d", client, resp.StatusCode)
			}
		}()
		for deadline := time.Now().Add(5 * time.Second); leaf.hits.Load() < want; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the resolve from %s never reached the leaf", client)
			}
		}
	}
	refused := func(client, why string) {
		t.Helper()
		before := leaf.hits.Load()
		resp := resolve(client)
		if resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s (%s): %v", client, why, resp)
		}
		if leaf.hits.Load() != before {
			t.Fatalf("%s (%s): a refused resolve fetched", client, why)
		}
	}

	hold("2001:db8:1:2::1")
	hold("2001:db8:1:2::2")
	refused("2001:db8:1:2::3", "a third from the same /64")
	hold("2001:db8:1:3::1") // another /64: its own budget
	refused("203.0.113.7", "three under way in all")

	release.Do(func() { close(leaf.hold) })
	held.Wait()
	if resp := resolve("203.0.113.7"); resp == nil || resp.StatusCode != 200 {
		t.Fatalf("after the fetches ended: %v", resp)
	}
}
