package store

import (
	"sync"
	"sync/atomic"
	"time"
)

// RoleCacheAge is how long a role read from the database is used without
// reading it again. Changes made through this process's store are seen at
// once (every administrator change empties the cache); the age only bounds
// how late a change made by another process on the same file is seen.
const RoleCacheAge = 5 * time.Second

const maxCachedRoles = 10_000

// roleCache keeps the role of each e-mail that made a request recently:
// the role lookup ran on every request (issue 19).
type roleCache struct {
	gen     atomic.Int64 // bumped by every administrator change
	mu      sync.Mutex
	seenGen int64
	m       map[string]cachedRole
}

type cachedRole struct {
	role Role
	at   time.Time
}

// invalidate forgets every cached role; call it after an administrator
// change commits.
func (c *roleCache) invalidate() { c.gen.Add(1) }

// get returns a cached role younger than RoleCacheAge, and the generation
// to put a freshly read one with.
func (c *roleCache) get(email string, now time.Time) (Role, bool, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.gen.Load()
	if g != c.seenGen {
		c.seenGen, c.m = g, nil
	}
	e, ok := c.m[email]
	if !ok || now.Sub(e.at) >= RoleCacheAge || now.Before(e.at) {
		return "", false, g
	}
	return e.role, true, g
}

// put caches a role read at generation gen; a change that committed since
// (a newer generation) makes it void.
func (c *roleCache) put(email string, gen int64, role Role, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	if c.seenGen != gen {
		c.seenGen, c.m = gen, nil
	}
	if c.m == nil || len(c.m) >= maxCachedRoles {
		c.m = map[string]cachedRole{}
	}
	c.m[email] = cachedRole{role: role, at: now}
}
