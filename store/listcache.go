package store

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/trustframe/trustframe/directory"
)

// listCache keeps what makes the organisation list fast at scale: the
// total of each filter, and for each filter and sort a set of anchors —
// a (sort value, id) key and how many rows of the filter sort before it —
// so that a deep page seeks to the nearest anchor and skips fewer than
// about anchorStep rows instead of OFFSET-scanning from the start.
//
// A write to organisations does not throw them away: it reports the rows it
// changed (before and after) and the totals and anchor positions of every
// filter without a search term are adjusted in place (a search's entries
// are dropped: whether a row matches a search is the full-text index's
// business). Anchors that are missing are built in the background; until
// then a deep page uses a plain OFFSET. No request builds anchors
// (issue 19).
type listCache struct {
	mu       sync.Mutex
	gen      int64 // changes at the start and end of every write
	writing  int   // writes in progress
	counts   map[string]*countEntry
	anchors  map[string]*anchorSet
	building map[string]bool
	builds   sync.WaitGroup
}

const (
	anchorStep    = 500
	maxCacheItems = 512
)

type anchor struct {
	val, id string
	pos     int // rows of the filter that sort before (val, id)
}

type countEntry struct {
	f OrgFilter
	n int
}

type anchorSet struct {
	f    OrgFilter // Sort and Desc say the order
	list []anchor
}

// listRow is what the caches need to know of one organisation: its sort
// values, its status and its flags.
type listRow struct {
	id     string
	vals   map[string]string // by sort field (OrgSortColumns)
	status string
	flags  []string
}

// rowChange is one organisation as it was before a write (nil: created)
// and after it.
type rowChange struct{ old, new *listRow }

func (c *listCache) init() {
	if c.counts == nil || len(c.counts)+len(c.anchors) > maxCacheItems {
		c.counts, c.anchors = map[string]*countEntry{}, map[string]*anchorSet{}
	}
	if c.building == nil {
		c.building = map[string]bool{}
	}
}

// beginWrite marks a write to organisations in progress: nothing read
// from here until endWrite may be put into the cache (it could already
// hold the write, and then be adjusted for it a second time).
func (c *listCache) beginWrite() {
	c.mu.Lock()
	c.gen++
	c.writing++
	c.mu.Unlock()
}

// endWrite applies the committed changes (none when the write failed).
func (c *listCache) endWrite(changes []rowChange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.writing--
	c.init()
	for _, ch := range changes {
		c.apply(ch)
	}
}

// reset forgets everything (a bulk load).
func (c *listCache) reset() {
	c.mu.Lock()
	c.counts, c.anchors = nil, nil
	c.gen++
	c.mu.Unlock()
}

// endClaimsWrite ends a write to authority claims (err: its outcome): it
// changes no row the caches know, but which organisations a Role= or
// AuthorisationDomain= filter keeps, so those filters' entries are dropped
// (and rebuilt as any missing entry is) — unless the write was refused,
// which changed nothing.
func (c *listCache) endClaimsWrite(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.writing--
	c.init()
	if err != nil && refused(err) {
		return
	}
	for k, e := range c.counts {
		if byRole(e.f) {
			delete(c.counts, k)
		}
	}
	for k, s := range c.anchors {
		if byRole(s.f) {
			delete(c.anchors, k)
		}
	}
}

// refused reports whether err is a write's own refusal (a check that
// failed): its transaction was rolled back and nothing changed. Any other error, a failed commit among them, may hide a write
// that took effect, so a cache treats it as one.
func refused(err error) bool {
	var fe *FieldError
	var ce *ConflictError
	var de *directory.Error
	return errors.Is(err, ErrNotFound) || errors.As(err, &fe) || errors.As(err, &ce) || errors.As(err, &de)
}

// byRole reports whether f filters by authority claims, which a listRow
// does not carry, or by an Organisation Administrator's organisations
// (dropped on any change rather than followed).
func byRole(f OrgFilter) bool { return f.Role != "" || f.Domain != "" || f.Within != "" }

// matches reports whether the row r is one f selects, r not searched by
// text nor by role.
func matches(f OrgFilter, r *listRow) bool {
	return r != nil && (f.Status == "" || r.status == f.Status) && (f.Flag == "" || slices.Contains(r.flags, f.Flag))
}

func (c *listCache) apply(ch rowChange) {
	for k, e := range c.counts {
		if e.f.Q != "" || byRole(e.f) {
			delete(c.counts, k)
			continue
		}
		e.n += b2i(matches(e.f, ch.new)) - b2i(matches(e.f, ch.old))
	}
	for k, s := range c.anchors {
		if s.f.Q != "" || byRole(s.f) {
			delete(c.anchors, k)
			continue
		}
		for i := range s.list {
			a := &s.list[i]
			a.pos += b2i(matches(s.f, ch.new) && s.before(ch.new, a)) - b2i(matches(s.f, ch.old) && s.before(ch.old, a))
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// before reports whether row r sorts before anchor a in the set's order,
// comparing as SQLite does (NOCASE folds ASCII letters only; the rest is
// bytewise), ties broken by id.
func (s *anchorSet) before(r *listRow, a *anchor) bool {
	v, av := r.vals[s.f.Sort], a.val
	if strings.Contains(OrgSortColumns[s.f.Sort], "NOCASE") {
		v, av = asciiLower(v), asciiLower(av)
	}
	c := strings.Compare(v, av)
	if c == 0 {
		c = strings.Compare(r.id, a.id)
	}
	if s.f.Desc {
		return c > 0
	}
	return c < 0
}

// asciiLower lower-cases the ASCII letters of s only (NormalizeEmail).
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// token returns what a reader must hand back to put what it read: a put
// succeeds only if no write began or ended in between.
func (c *listCache) token() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

func (c *listCache) putOK(tok int64) bool { return c.writing == 0 && c.gen == tok }

func (c *listCache) count(f OrgFilter) (int, bool, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	e, ok := c.counts[orgKey(f)]
	if !ok {
		return 0, false, c.gen
	}
	return e.n, true, c.gen
}

func (c *listCache) putCount(f OrgFilter, tok int64, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.putOK(tok) {
		c.init()
		c.counts[orgKey(f)] = &countEntry{f: f, n: n}
	}
}

func anchorKey(f OrgFilter) string {
	return orgKey(f) + "\x00" + f.Sort + "\x00" + map[bool]string{false: "asc", true: "desc"}[f.Desc]
}

// seek returns the anchor a page at offset starts from: the last one at or
// before it (ok false: none, or none cached).
func (c *listCache) seek(f OrgFilter, offset int) (anchor, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	s, ok := c.anchors[anchorKey(f)]
	if !ok {
		return anchor{}, false
	}
	i := sort.Search(len(s.list), func(i int) bool { return s.list[i].pos > offset }) - 1
	if i < 0 {
		return anchor{}, false
	}
	return s.list[i], true
}

// buildAnchors starts building the anchors of f in the background unless
// a build is running; build returns them, read after tok was taken.
func (c *listCache) buildAnchors(f OrgFilter, build func(context.Context) ([]anchor, error)) {
	key := anchorKey(f)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if c.building[key] {
		return
	}
	c.building[key] = true
	c.builds.Add(1)
	go func() {
		defer c.builds.Done()
		// A write during the build voids it; try a few times.
		for range 5 {
			tok := c.token()
			list, err := build(context.Background())
			c.mu.Lock()
			if err == nil && c.putOK(tok) {
				c.init()
				c.anchors[key] = &anchorSet{f: f, list: list}
				delete(c.building, key)
				c.mu.Unlock()
				return
			}
			c.mu.Unlock()
			if err != nil {
				break
			}
		}
		c.mu.Lock()
		delete(c.building, key)
		c.mu.Unlock()
	}()
}

// WaitBackground waits for the cache builds running in the background
// (tests; Close).
func (d *DB) WaitBackground() { d.lists.builds.Wait() }
