package store

import (
	"sync"
	"sync/atomic"
)

// listCache keeps what makes the organisation list fast at scale: the
// total of each filter, and for each filter and sort an anchor (sort value
// and id) every anchorStep rows, so that a deep page seeks to its anchor
// and skips fewer than anchorStep rows instead of OFFSET-scanning from the
// start. Everything is tagged with a generation that every write to
// organisations bumps; a stale entry is never used.
type listCache struct {
	gen     atomic.Int64
	mu      sync.Mutex
	seenGen int64
	counts  map[string]int
	anchors map[string][]anchor
}

const (
	anchorStep    = 500
	maxCacheItems = 512
)

type anchor struct {
	val, id string
}

func (c *listCache) invalidate() { c.gen.Add(1) }

// sync drops entries of an older generation; the caller holds mu.
func (c *listCache) sync() int64 {
	g := c.gen.Load()
	if g != c.seenGen || c.counts == nil || len(c.counts)+len(c.anchors) > maxCacheItems {
		c.seenGen, c.counts, c.anchors = g, map[string]int{}, map[string][]anchor{}
	}
	return g
}

func (c *listCache) count(key string) (int, bool, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.sync()
	n, ok := c.counts[key]
	return n, ok, g
}

func (c *listCache) putCount(key string, gen int64, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sync() == gen {
		c.counts[key] = n
	}
}

func (c *listCache) anchorsFor(key string) ([]anchor, bool, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.sync()
	a, ok := c.anchors[key]
	return a, ok, g
}

func (c *listCache) putAnchors(key string, gen int64, a []anchor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sync() == gen {
		c.anchors[key] = a
	}
}
