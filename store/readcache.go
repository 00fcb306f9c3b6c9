package store

import (
	"context"
	"sync"
	"time"
)

// ReadCacheAge bounds how long an answer of a readCache is used. Writes
// made through this store (and, on PostgreSQL, by any instance: Sync) void
// it at once; the age only bounds how late a change made by another process
// on the same SQLite file (a command run beside the server) is seen.
const ReadCacheAge = time.Second

const maxCachedReads = 10_000

// readCache keeps answers of hot point reads (the current signing key of
// an algorithm, the subject of an SSA) while the directory is unchanged:
// the first write that may change the directory empties it (issue 19).
// Audit-only commits (SSA issuance itself, sign-ins) leave it.
type readCache[K comparable, V any] struct {
	mu      sync.Mutex
	version int64 // the DirectoryVersion the entries were read at
	m       map[K]cachedRead[V]
}

type cachedRead[V any] struct {
	v  V
	at time.Time
}

// cached answers read(k) from the cache when it holds a young enough
// answer read at the current directory version, and otherwise reads it and
// keeps it unless a write committed while it was read.
func cached[K comparable, V any](ctx context.Context, d *DB, c *readCache[K, V], k K, read func() (V, error)) (V, error) {
	d.Sync(ctx)
	now := d.now()
	version := d.DirectoryVersion()
	c.mu.Lock()
	if c.version != version {
		c.version, c.m = version, nil
	}
	e, ok := c.m[k]
	c.mu.Unlock()
	if ok && now.Sub(e.at) < ReadCacheAge && !now.Before(e.at) {
		return e.v, nil
	}
	v, err := read()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d.DirectoryVersion() != version || c.version != version {
		return v, nil // a write committed meanwhile: do not keep what may predate it
	}
	if c.m == nil || len(c.m) >= maxCachedReads {
		c.m = map[K]cachedRead[V]{}
	}
	c.m[k] = cachedRead[V]{v: v, at: now}
	return v, nil
}

// forget drops every kept answer (a read found one of them out of date).
func (c *readCache[K, V]) forget() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}
