// Package rebuild keeps a value derived from the whole store (the public
// participants list, the federation subordinates) that is too costly to
// derive per request, and rebuilds it in the background after the store
// changes (docs/design.md §5).
package rebuild

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// Cache holds one derived value. No request waits for a rebuild caused by
// someone else's write: when the store has changed, or MaxAge has passed
// (for changes made by another process), the value in hand is still
// returned and one rebuild runs in the background — at most one at a time,
// and the next one starts no sooner than five seconds, and three times as
// long as the last one took, after it started (so that a steady stream of
// writes keeps rebuilds to a small share of the machine: at 100,000
// organisations the participants list takes seconds to build) — whose
// result replaces it when done. Only the very first request, with nothing
// to return, waits for a build. A value is only ever replaced by one built
// from a newer (or the same) store version, so what is served never goes
// back. The zero Cache is ready to use.
type Cache[T any] struct {
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu        sync.Mutex
	cur       *Version[T]
	building  bool
	lastBuild time.Time     // start of the last rebuild
	lastTook  time.Duration // how long the last rebuild took
	built     chan struct{} // closed when the running rebuild ends
	lastErr   error         // of the last rebuild, for those waiting on the first
}

// Carrier is a value that carries over what did not change from the one
// it replaces.
type Carrier[T any] interface{ CarryFrom(old T) }

// Sizable is a value that may be large enough for its build's garbage
// (several times its size) to be handed back to the operating system at
// once rather than kept until the next build.
type Sizable interface{ Large() bool }

// Version is one built value and the store version it was built from.
type Version[T any] struct {
	Store int64
	At    time.Time // when it was built
	Val   T
}

// The pace of rebuilds.
const (
	MaxAge = 60 * time.Second
	every  = 5 * time.Second // the least time between two rebuilds' starts
	pace   = 3               // … and the least, in multiples of the last one's length
)

// due reports whether a rebuild may start now; the caller holds mu.
func (c *Cache[T]) due(now time.Time) bool {
	return !c.building && now.Sub(c.lastBuild) >= max(every, pace*c.lastTook)
}

// Clock is the time now by the cache's clock.
func (c *Cache[T]) Clock() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Get returns the value to serve for the store at storeVersion; build reads
// the store (from a version at least that one).
func (c *Cache[T]) Get(ctx context.Context, storeVersion int64, build func(context.Context) (T, error)) (*Version[T], error) {
	c.mu.Lock()
	for {
		now := c.Clock()
		if cur := c.cur; cur != nil {
			if (cur.Store != storeVersion || now.Sub(cur.At) >= MaxAge) && c.due(now) {
				c.startLocked(ctx, storeVersion, build)
			}
			c.mu.Unlock()
			return cur, nil
		}
		// Nothing to serve yet: wait for the first build.
		if !c.building {
			c.startLocked(ctx, storeVersion, build)
		}
		done := c.built
		c.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		c.mu.Lock()
		if c.cur == nil && c.lastErr != nil {
			err := c.lastErr
			c.mu.Unlock()
			return nil, err
		}
	}
}

// startLocked starts a rebuild; the caller holds mu.
func (c *Cache[T]) startLocked(ctx context.Context, storeVersion int64, build func(context.Context) (T, error)) {
	start := c.Clock()
	c.building, c.lastBuild, c.built = true, start, make(chan struct{})
	// The rebuild belongs to no request: a client that goes away must not
	// cancel it.
	ctx = context.WithoutCancel(ctx)
	go func() {
		val, err := build(ctx)
		end := c.Clock()
		next := &Version[T]{Store: storeVersion, At: end, Val: val}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.lastTook = end.Sub(start)
		c.lastErr = err
		if err == nil && (c.cur == nil || next.Store >= c.cur.Store) {
			if cv, ok := any(val).(Carrier[T]); ok && c.cur != nil {
				cv.CarryFrom(c.cur.Val)
			}
			c.cur = next
		}
		c.building = false
		close(c.built)
		if sv, ok := any(val).(Sizable); ok && err == nil && sv.Large() {
			// Outside any request; costs one collection per rebuild.
			go debug.FreeOSMemory()
		}
	}()
}
