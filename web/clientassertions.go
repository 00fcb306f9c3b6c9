package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/trustframe/trustframe/dpop"
	"github.com/trustframe/trustframe/store"
)

// writeBehind is how long a used client assertion waits in memory before
// it is written down: a crash forgets at most that long's.
const writeBehind = 100 * time.Millisecond

// keptAssertions is the log of used client assertions of a single instance
// (SQLite, docs/design.md §20). Memory answers whether one was used, so a
// token request waits for no write; each used one is written behind, within
// writeBehind, so that a restart still refuses it: NewServer loads the live
// ones back (load).
type keptAssertions struct {
	mem       *dpop.ReplayCache
	db        *store.DB
	log       *slog.Logger
	mu        sync.Mutex
	pending   []store.UsedAssertion
	scheduled bool // a write is due
}

func newKeptAssertions(db *store.DB, log *slog.Logger, now func() time.Time) *keptAssertions {
	return &keptAssertions{mem: dpop.NewReplayCache(1_000_000, now), db: db, log: log}
}

// load puts the assertions written down by an earlier run back in memory.
func (k *keptAssertions) load(ctx context.Context) error {
	live, err := k.db.LiveClientAssertions(ctx)
	if err != nil {
		return err
	}
	for _, u := range live {
		if _, err := k.mem.Add(u.Key, u.Expires); err != nil {
			return err
		}
	}
	return nil
}

// Add reports whether key is new (false: a replay) and, when it is,
// writes it behind.
func (k *keptAssertions) Add(key string, exp time.Time) (bool, error) {
	fresh, err := k.mem.Add(key, exp)
	if !fresh || err != nil {
		return fresh, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pending = append(k.pending, store.UsedAssertion{Key: key, Expires: exp})
	k.schedule(writeBehind)
	return true, nil
}

// schedule writes the pending ones after d, unless a write is due already.
// Called with mu held.
func (k *keptAssertions) schedule(d time.Duration) {
	if !k.scheduled {
		k.scheduled = true
		time.AfterFunc(d, func() {
			if err := k.flush(context.Background()); err != nil {
				k.log.Warn("client assertions not written down yet; trying again", "error", err)
			}
		})
	}
}

// flush writes the pending assertions down now. On failure they stay
// pending and a write is tried again a second later.
func (k *keptAssertions) flush(ctx context.Context) error {
	k.mu.Lock()
	batch := k.pending
	k.pending, k.scheduled = nil, false
	k.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := k.db.KeepClientAssertions(ctx, batch)
	if err != nil {
		k.mu.Lock()
		k.pending = append(batch, k.pending...)
		k.schedule(time.Second)
		k.mu.Unlock()
	}
	return err
}

// FlushClientAssertions writes down the client assertions used and not yet
// written: serve calls it once it has stopped serving.
func (s *Server) FlushClientAssertions(ctx context.Context) error {
	if k, ok := s.clients.Used.(*keptAssertions); ok {
		return k.flush(ctx)
	}
	return nil
}
