// Package changefeed reads the change feed (docs/design.md §15): every
// audit record in commit order after an opaque cursor, and a long poll
// that is answered as soon as a change commits, with a bound on the long
// polls held at once. Reading the request and writing the answer are the
// handler's.
package changefeed

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/trustframe/trustframe/store"
)

// Store is what the feed reads.
type Store interface {
	FeedEpoch(ctx context.Context) (string, error)
	ResolveCursor(ctx context.Context, cursor string) (int64, error)
	LastChangeID(ctx context.Context) (int64, error)
	ChangesAfter(ctx context.Context, after int64, limit int) ([]store.AuditRecord, error)
	NextCommit() <-chan struct{}
}

// Default bounds of the long polls held at once (docs/design.md §15).
const (
	DefaultMaxPolls             = 256
	DefaultMaxPollsPerPrincipal = 4
)

// Feed is the change feed of one store.
type Feed struct {
	Store Store
	// Poll is the longest a long poll waits before it reads again when no
	// commit of this process woke it (changes committed by another
	// instance on the same database); default 1 s.
	Poll time.Duration
	// Stopping is closed when the server begins to shut down: a long poll
	// then ends at once, empty with its cursor, so that the shutdown does
	// not wait for it (the client asks again).
	Stopping <-chan struct{}
	// MaxPolls and MaxPollsPerPrincipal bound the long polls held at once,
	// in all and per administrator (0: DefaultMaxPolls,
	// DefaultMaxPollsPerPrincipal): each holds a goroutine and a connection.
	MaxPolls, MaxPollsPerPrincipal int

	polls pollCount
}

// Page is one answer of the feed.
type Page struct {
	Content    []store.Change `json:"content"`
	NextCursor string         `json:"nextCursor"`
}

// TooManyPolls refuses a long poll that would pass the bounds.
type TooManyPolls struct {
	PerPrincipal, All int // the bounds
}

func (e *TooManyPolls) Error() string {
	return fmt.Sprintf("changefeed: too many long polls (at most %d per principal, %d in all)", e.PerPrincipal, e.All)
}

// Read returns at most limit changes after the cursor after: "" reads
// from the start of the log, "now" from its end, anything else is the
// NextCursor of an earlier page (store.ErrCursorMalformed when it is not
// one, store.ErrCursorGone when this log cannot continue it). With wait
// and no change yet, it waits up to wait for one, as a long poll of who
// (*TooManyPolls when that would pass the bounds). An empty page keeps
// the cursor it was asked with.
func (f *Feed) Read(ctx context.Context, who, after string, limit int, wait time.Duration) (Page, error) {
	if wait > 0 {
		maxAll, maxPer := cmp.Or(f.MaxPolls, DefaultMaxPolls), cmp.Or(f.MaxPollsPerPrincipal, DefaultMaxPollsPerPrincipal)
		if !f.polls.enter(who, maxAll, maxPer) {
			return Page{}, &TooManyPolls{PerPrincipal: maxPer, All: maxAll}
		}
		defer f.polls.leave(who)
	}
	epoch, err := f.Store.FeedEpoch(ctx)
	if err != nil {
		return Page{}, err
	}
	var from int64
	switch after {
	case "":
		// From the start of the log.
	case "now":
		from, err = f.Store.LastChangeID(ctx)
	default:
		from, err = f.Store.ResolveCursor(ctx, after)
	}
	if err != nil {
		return Page{}, err
	}
	recs, err := f.wait(ctx, from, limit, wait)
	if err != nil {
		return Page{}, err
	}
	page := Page{Content: make([]store.Change, 0, len(recs)), NextCursor: store.EncodeCursor(epoch, from)}
	for _, rec := range recs {
		c := store.ChangeOf(epoch, rec)
		page.Content = append(page.Content, c)
		page.NextCursor = c.Cursor
	}
	return page, nil
}

// wait reads the changes after after; when there are none it waits up to
// d for a commit (or, for other instances' commits, the poll interval)
// and reads again.
func (f *Feed) wait(ctx context.Context, after int64, limit int, d time.Duration) ([]store.AuditRecord, error) {
	poll := f.Poll
	if poll <= 0 {
		poll = time.Second
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		commit := f.Store.NextCommit()
		recs, err := f.Store.ChangesAfter(ctx, after, limit)
		if err != nil || len(recs) > 0 || d <= 0 {
			return recs, err
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-deadline.C:
			t.Stop()
			return nil, nil
		case <-f.Stopping:
			t.Stop()
			return nil, nil
		case <-commit:
		case <-t.C:
		}
		t.Stop()
	}
}
