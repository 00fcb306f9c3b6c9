package anchor

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/clientlimit"
)

// TestResolveBudgetPerClientAndInAll: the standalone anchor bounds the
// resolves under way per client (the TCP peer; an IPv6 client by its /64)
// and in all; past either, 429 temporarily_unavailable with Retry-After,
// without a fetch; once the fetches end, resolves are served again
// (docs/design.md §8 and §13).
func TestResolveBudgetPerClientAndInAll(t *testing.T) {
	leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Leaf"}}, anchorID)
	s := anchorServer(t, "  - {entity_id: "+leaf.id()+", jwks_file: "+jwksFile(t, leaf)+"}\n")
	s.resolves = clientlimit.NewInFlight(3, 2)
	leaf.hold = make(chan struct{})
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(leaf.hold) }) })

	resolve := func(peer string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID, nil)
		r.RemoteAddr = peer
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	var held sync.WaitGroup
	hold := func(peer string) {
		t.Helper()
		want := leaf.hits.Load() + 1
		held.Add(1)
		go func() {
			defer held.Done()
			if w := resolve(peer); w.Code != http.StatusOK {
				t.Errorf("held resolve from %s: %d %s", peer, w.Code, w.Body)
			}
		}()
		for deadline := time.Now().Add(5 * time.Second); leaf.hits.Load() < want; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the resolve from %s never reached the leaf", peer)
			}
		}
	}
	refused := func(peer, why string) {
		t.Helper()
		before := leaf.hits.Load()
		w := resolve(peer)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), `"temporarily_unavailable"`) {
			t.Fatalf("%s (%s): %d %v %s", peer, why, w.Code, w.Header(), w.Body)
		}
		if leaf.hits.Load() != before {
			t.Fatalf("%s (%s): a refused resolve fetched", peer, why)
		}
	}

	hold("[2001:db8:1:2::1]:40001")
	hold("[2001:db8:1:2::2]:40002")
	refused("[2001:db8:1:2::3]:40003", "a third from the same /64")
	hold("[2001:db8:1:3::1]:40004") // another /64: its own budget
	refused("203.0.113.7:40005", "three under way in all")

	release.Do(func() { close(leaf.hold) })
	held.Wait()
	if w := resolve("203.0.113.7:40005"); w.Code != http.StatusOK {
		t.Fatalf("after the fetches ended: %d %s", w.Code, w.Body)
	}
}

// TestResolveFetchesAtMostACap: a resolve looks through every intermediate
// for one that vouches for the subject, fetching as it goes; it makes at
// most a fixed number of fetches, and a chain that needs more is 400
// invalid_trust_chain saying so, without a fetch past the cap
// (docs/design.md §8).
func TestResolveFetchesAtMostACap(t *testing.T) {
	inter := newEntity(t, nil, anchorID)
	leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Leaf"}}, inter.id())
	inter.subs[leaf.id()] = map[string]any{"jwks": leaf.jwks()}
	// Through the intermediate: its configuration, its statement about
	// the leaf and the leaf's configuration, three fetches.
	s := anchorServer(t, "  - {entity_id: "+inter.id()+", jwks_file: "+jwksFile(t, inter)+"}\n")
	resolve := func(sub string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/resolve?sub="+sub+"&trust_anchor="+anchorID, nil))
		return w
	}
	s.maxResolveFetches = 2
	if w := resolve(leaf.id()); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"invalid_trust_chain"`) || !strings.Contains(w.Body.String(), "within 2 fetches") {
		t.Fatalf("a chain of three fetches, at most two allowed: %d %s", w.Code, w.Body)
	}
	if leaf.hits.Load() != 0 {
		t.Fatalf("the leaf was fetched past the cap")
	}
	s.maxResolveFetches = 3
	if w := resolve(leaf.id()); w.Code != http.StatusOK {
		t.Fatalf("a chain of three fetches, three allowed: %d %s", w.Code, w.Body)
	}

	// A stranger is looked for below every subordinate: one fetch each.
	var subs strings.Builder
	var all []*entity
	for range 5 {
		e := newEntity(t, map[string]any{}, anchorID)
		all = append(all, e)
		subs.WriteString("  - {entity_id: " + e.id() + ", jwks_file: " + jwksFile(t, e) + "}\n")
	}
	s = anchorServer(t, subs.String())
	s.maxResolveFetches = 4
	if w := resolve("https://stranger.example"); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "within 4 fetches") {
		t.Fatalf("five subordinates to look below, four fetches allowed: %d %s", w.Code, w.Body)
	}
	var hits int64
	for _, e := range all {
		hits += e.hits.Load()
	}
	if hits != 4 {
		t.Fatalf("the resolve made %d fetches, want the cap, 4", hits)
	}
	s.maxResolveFetches = 5
	if w := resolve("https://stranger.example"); w.Code != http.StatusNotFound {
		t.Fatalf("five subordinates to look below, five fetches allowed: %d %s", w.Code, w.Body)
	}
}
