package handlers

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// rebuilt holds a value derived from the whole store (the participants
// list, the federation subordinates) that is too costly to derive per
// request. No request waits for a rebuild caused by someone else's write
// (docs/design.md §5): when the store has changed, or maxAge has passed
// (for changes made by another process), the value in hand is still
// returned and one rebuild runs in the background — at most one at a time,
// and the next one starts no sooner than five seconds, and three times as
// long as the last one took, after it started (so that a steady stream of
// writes keeps rebuilds to a small share of the machine: at 100,000
// organisations the participants list takes seconds to build) — whose
// result replaces it when done. Only the very
// first request, with nothing to return, waits for a build. A value is only
// ever replaced by one built from a newer (or the same) store version, so
// what is served never goes back.
type rebuilt[T any] struct {
	mu        sync.Mutex
	cur       *version[T]
	building  bool
	lastBuild time.Time     // start of the last rebuild
	lastTook  time.Duration // how long the last rebuild took
	built     chan struct{} // closed when the running rebuild ends
	lastErr   error         // of the last rebuild, for those waiting on the first
	now       func() time.Time
}

// A value may carry over what did not change from the one it replaces.
type carrier[T any] interface{ carryFrom(old T) }

// A value may be large enough for its build's garbage (several times its
// size) to be handed back to the operating system at once rather than
// kept until the next build.
type sizable interface{ large() bool }

// version is one built value and the store version it was built from.
type version[T any] struct {
	store int64
	at    time.Time // when it was built
	val   T
}

const (
	rebuiltMaxAge = 60 * time.Second
	rebuildEvery  = 5 * time.Second // the least time between two rebuilds' starts
	rebuildPace   = 3               // … and the least, in multiples of the last one's length
)

// due reports whether a rebuild may start now; the caller holds mu.
func (c *rebuilt[T]) due(now time.Time) bool {
	return !c.building && now.Sub(c.lastBuild) >= max(rebuildEvery, rebuildPace*c.lastTook)
}

func (c *rebuilt[T]) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// get returns the value to serve for the store at storeVersion; build reads
// the store (from a version at least that one).
func (c *rebuilt[T]) get(ctx context.Context, storeVersion int64, build func(context.Context) (T, error)) (*version[T], error) {
	c.mu.Lock()
	for {
		now := c.clock()
		if cur := c.cur; cur != nil {
			if (cur.store != storeVersion || now.Sub(cur.at) >= rebuiltMaxAge) && c.due(now) {
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
func (c *rebuilt[T]) startLocked(ctx context.Context, storeVersion int64, build func(context.Context) (T, error)) {
	start := c.clock()
	c.building, c.lastBuild, c.built = true, start, make(chan struct{})
	// The rebuild belongs to no request: a client that goes away must not
	// cancel it.
	ctx = context.WithoutCancel(ctx)
	go func() {
		val, err := build(ctx)
		end := c.clock()
		next := &version[T]{store: storeVersion, at: end, val: val}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.lastTook = end.Sub(start)
		c.lastErr = err
		if err == nil && (c.cur == nil || next.store >= c.cur.store) {
			if cv, ok := any(val).(carrier[T]); ok && c.cur != nil {
				cv.carryFrom(c.cur.val)
			}
			c.cur = next
		}
		c.building = false
		close(c.built)
		if sv, ok := any(val).(sizable); ok && err == nil && sv.large() {
			// Outside any request; costs one collection per rebuild.
			go debug.FreeOSMemory()
		}
	}()
}
