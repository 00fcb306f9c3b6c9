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
// ones back (load), and the server's Close writes the last ones down.
type keptAssertions struct {
	mem *dpop.ReplayCache
	db  *store.DB
	log *slog.Logger
	now func() time.Time

	flushing sync.Mutex // one write at a time, so a flush waits for the one under way

	mu      sync.Mutex // guards what follows
	pending []store.UsedAssertion
	timer   *time.Timer // the write due; nil: none
	closed  bool        // no write is scheduled any more
}

func newKeptAssertions(db *store.DB, log *slog.Logger, now func() time.Time) *keptAssertions {
	return &keptAssertions{mem: dpop.NewReplayCache(1_000_000, now), db: db, log: log, now: now}
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

// schedule writes the pending ones after d, unless a write is due already
// or the log is closed. Called with mu held.
func (k *keptAssertions) schedule(d time.Duration) {
	if k.timer != nil || k.closed {
		return
	}
	k.timer = time.AfterFunc(d, func() {
		if err := k.flush(context.Background()); err != nil {
			k.log.Warn("client assertions not written down yet; trying again in a second", "error", err)
		}
	})
}

// flush writes the pending assertions down now, after any write under
// way. On failure those not expired stay pending and a write is tried
// again a second later (unless closed).
func (k *keptAssertions) flush(ctx context.Context) error {
	k.flushing.Lock()
	defer k.flushing.Unlock()
	k.mu.Lock()
	batch := k.pending
	k.pending = nil
	if k.timer != nil {
		k.timer.Stop()
		k.timer = nil
	}
	k.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := k.db.KeepClientAssertions(ctx, batch)
	if err != nil {
		now := k.now()
		k.mu.Lock()
		var live []store.UsedAssertion
		for _, u := range batch {
			if u.Expires.After(now) {
				live = append(live, u)
			}
		}
		k.pending = append(live, k.pending...)
		if len(k.pending) > 0 {
			k.schedule(time.Second)
		}
		k.mu.Unlock()
	}
	return err
}

// close writes the last assertions down and schedules no more writes.
func (k *keptAssertions) close(ctx context.Context) error {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
	return k.flush(ctx)
}

// FlushClientAssertions writes down now the client assertions used and not
// yet written (after a write under way).
func (s *Server) FlushClientAssertions(ctx context.Context) error {
	if k, ok := s.clients.Used.(*keptAssertions); ok {
		return k.flush(ctx)
	}
	return nil
}

// Close ends what the server does in the background of its requests: the
// client assertions used are written down, and nothing more is scheduled.
// serve calls it when it stops, before the database is closed.
func (s *Server) Close(ctx context.Context) error {
	if k, ok := s.clients.Used.(*keptAssertions); ok {
		return k.close(ctx)
	}
	return nil
}
