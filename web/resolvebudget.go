package web

import (
	"net/http"
	"net/netip"
	"sync"

	"github.com/trustframe/trustframe/federation/anchor"
)

// A resolve is public and fetches the subject's entity configuration (one
// outbound fetch per resolve, up to 10 s): without a bound, anyone could
// hold as many outbound fetches open as they hold requests. The budget
// counts resolves under way, in all and per client (an IPv6 client per
// /64); past either, 429 with Retry-After (docs/design.md §13).
const (
	defaultResolvesInFlight          = 32
	defaultResolvesInFlightPerClient = 4
)

// inFlight counts requests under way, in all and per key.
type inFlight struct {
	all, perKey int
	mu          sync.Mutex
	total       int
	byKey       map[string]int
}

func newInFlight(all, perKey int) *inFlight {
	return &inFlight{all: all, perKey: perKey, byKey: map[string]int{}}
}

// acquire takes a place for key, or reports false when there is none.
func (l *inFlight) acquire(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total >= l.all || l.byKey[key] >= l.perKey {
		return false
	}
	l.total++
	l.byKey[key]++
	return true
}

func (l *inFlight) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if l.byKey[key]--; l.byKey[key] <= 0 {
		delete(l.byKey, key)
	}
}

// resolveBudget answers 429 temporarily_unavailable, in the federation's
// error shape, to a resolve past the budget of resolves under way.
func (s *Server) resolveBudget(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := clientBlock(s.clientAddr(r))
		if !s.resolves.acquire(key) {
			w.Header().Set("Retry-After", "1")
			anchor.WriteError(w, http.StatusTooManyRequests, "temporarily_unavailable", "too many resolve requests are under way; try again in a second")
			return
		}
		defer s.resolves.release(key)
		next.ServeHTTP(w, r)
	})
}

// clientBlock is the key a per-client limit counts a client address under:
// an IPv4 address itself, an IPv6 address its /64 (one subscriber's
// network, which holds more addresses than anyone can count).
func clientBlock(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}
