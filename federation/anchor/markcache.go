package anchor

import (
	"context"
	"sync"
	"time"

	"github.com/trustframe/trustframe/store"
)

// markCache keeps, per (trust mark type, subject), the mark last answered
// to a trust mark request, so that a repeat (the steady state: a subject
// or relying party asking again) is answered without reading the store.
// An entry holds only while the store's directory version is the one it
// was read at (every write that can end an entitlement, revoke a mark,
// change a type or a federation key bumps it; recording a mark does not),
// while the mark is unexpired and within its reuse window, and for at most
// store.ReadCacheAge (a change made by another process on the same SQLite
// file bumps no version here; on PostgreSQL Sync sees every instance's).
type markCache struct {
	mu      sync.Mutex
	version int64
	m       map[[2]string]cachedMark
}

type cachedMark struct {
	tok        string
	reuseUntil time.Time // the mark's iat plus a tenth of its lifetime
	exp        time.Time
	at         time.Time // when it was read or issued
}

const maxCachedMarks = 10_000

// versionedStore is what of the trust mark store the cache needs: the
// directory version (and, on PostgreSQL, Sync to see other instances'
// writes). A store without it is not cached.
type versionedStore interface {
	DirectoryVersion() int64
}

type syncedStore interface {
	Sync(ctx context.Context)
}

// markVersion is the store's directory version after Sync, and whether
// the trust mark store has one.
func (d *Directory) markVersion(ctx context.Context) (int64, bool) {
	v, ok := d.TrustMarks.(versionedStore)
	if !ok {
		return 0, false
	}
	if s, ok := d.TrustMarks.(syncedStore); ok {
		s.Sync(ctx)
	}
	return v.DirectoryVersion(), true
}

// get is the cached mark of (typeURL, sub) when it may answer at now.
func (c *markCache) get(version int64, typeURL, sub string, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		c.version, c.m = version, nil
		return "", false
	}
	e, ok := c.m[[2]string{typeURL, sub}]
	if !ok || now.Before(e.at) || now.Sub(e.at) >= store.ReadCacheAge || !now.Before(e.reuseUntil) || !now.Before(e.exp) {
		return "", false
	}
	return e.tok, true
}

// put keeps a mark answered at now from what was read at version, unless
// a write committed since (current is the version after the answer).
func (c *markCache) put(version, current int64, typeURL, sub string, e cachedMark) {
	if current != version {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		if c.version > version {
			return
		}
		c.version, c.m = version, nil
	}
	if c.m == nil || len(c.m) >= maxCachedMarks {
		c.m = map[[2]string]cachedMark{}
	}
	c.m[[2]string{typeURL, sub}] = e
}
