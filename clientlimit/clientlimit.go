// Package clientlimit holds what the limits per client share: the key a
// client address is counted under, and a count of requests under way in
// all and per client (docs/design.md §13). Both the directory and the
// standalone trust anchor use it.
package clientlimit

import (
	"net/netip"
	"sync"
)

// Block is the key a per-client limit counts addr under: an IPv4 address
// itself, an IPv6 address its /64 (the block one subscriber is usually
// given, in which a client may take any address it likes). A value that
// is not an address is its own key.
func Block(addr string) string {
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

// InFlight counts requests under way, in all and per key. A count under
// way bounds goroutines and sockets directly, where a rate would not.
type InFlight struct {
	all, perKey int
	mu          sync.Mutex
	total       int
	byKey       map[string]int
}

// NewInFlight allows all requests under way in all and perKey per key.
func NewInFlight(all, perKey int) *InFlight {
	return &InFlight{all: all, perKey: perKey, byKey: map[string]int{}}
}

// Acquire takes a place for key, or reports false when there is none;
// every place taken is given back with Release.
func (l *InFlight) Acquire(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total >= l.all || l.byKey[key] >= l.perKey {
		return false
	}
	l.total++
	l.byKey[key]++
	return true
}

// Release gives back a place Acquire took for key.
func (l *InFlight) Release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if l.byKey[key]--; l.byKey[key] <= 0 {
		delete(l.byKey, key)
	}
}
