package participants

import (
	"context"
	"sync"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/rebuild"
)

// VersionedStore is a Store that tells its version, which any change
// moves on: the answers are rebuilt when it moves.
type VersionedStore interface {
	Store
	DirectoryVersion() int64
}

// Cache holds the answers of the list, ready to send: the whole list, and
// one per AuthorisationDomain= and Role= filter. There are as many filters
// as roles; their map is emptied should it ever grow past maxFiltered.
// Each answer is rebuilt in the background after the store changes (at
// most a minute old otherwise; rebuild.Cache), its previous one served
// until then. The zero Cache is ready to use.
type Cache struct {
	all answers
	mu  sync.Mutex
	by  map[string]*answers
}

const maxFiltered = 256

// answers is one answer, rebuilt.
type answers struct{ rebuild.Cache[*Answer] }

// Get is the answer of the list with domain and role (see Read) for st as
// it is now, its statuses in vocab's words.
func (c *Cache) Get(ctx context.Context, st VersionedStore, domain, role string, vocab lifecycle.Vocabulary) (*Answer, error) {
	return c.of(domain, role).get(ctx, st.DirectoryVersion(), func(ctx context.Context) ([]byte, error) {
		l, err := Read(ctx, st, domain, role, vocab)
		if err != nil {
			return nil, err
		}
		return l.JSON(), nil
	})
}

// of is the answer of a filter.
func (c *Cache) of(domain, role string) *answers {
	if domain == "" && role == "" {
		return &c.all
	}
	key := domain + "\x00" + role
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil || len(c.by) >= maxFiltered {
		c.by = map[string]*answers{}
	}
	a, ok := c.by[key]
	if !ok {
		a = &answers{}
		c.by[key] = a
	}
	return a
}

// get returns the answer to serve for the store at version; build reads
// the store (from a version at least that one) and writes the body.
func (c *answers) get(ctx context.Context, version int64, build func(context.Context) ([]byte, error)) (*Answer, error) {
	v, err := c.Cache.Get(ctx, version, func(ctx context.Context) (*Answer, error) {
		began := c.Clock() // Last-Modified (NewAnswer says why)
		body, err := build(ctx)
		if err != nil {
			return nil, err
		}
		return NewAnswer(version, began, body), nil
	})
	if err != nil {
		return nil, err
	}
	return v.Val, nil
}
