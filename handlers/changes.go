package handlers

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/trustframe/trustframe/store"
)

type changeStore interface {
	FeedEpoch(ctx context.Context) (string, error)
	ResolveCursor(ctx context.Context, cursor string) (int64, error)
	LastChangeID(ctx context.Context) (int64, error)
	ChangesAfter(ctx context.Context, after int64, limit int) ([]store.AuditRecord, error)
	NextCommit() <-chan struct{}
}

// Changes serves GET /api/changes, the change feed (docs/design.md §15):
// every audit record in commit order after an opaque cursor, and a long
// poll that is answered as soon as a change commits.
type Changes struct {
	*Base
	Store changeStore
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

// Default bounds of the long polls held at once (docs/design.md §15).
const (
	DefaultMaxPolls             = 256
	DefaultMaxPollsPerPrincipal = 4
)

// pollCount counts the long polls being held, in all and per principal.
type pollCount struct {
	mu  sync.Mutex
	all int
	per map[string]int
}

// enter counts a long poll of who, or reports false when that would pass
// maxAll or maxPer.
func (c *pollCount) enter(who string, maxAll, maxPer int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.all >= maxAll || c.per[who] >= maxPer {
		return false
	}
	if c.per == nil {
		c.per = map[string]int{}
	}
	c.all++
	c.per[who]++
	return true
}

// leave ends a long poll entered by who.
func (c *pollCount) leave(who string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all--
	if c.per[who]--; c.per[who] <= 0 {
		delete(c.per, who)
	}
}

// Limits of the change feed's parameters.
const (
	ChangesDefaultLimit = 100
	ChangesMaxLimit     = 1000
	ChangesMaxWait      = 60
)

// changesPage is the answer of GET /api/changes.
type changesPage struct {
	Content    []store.Change `json:"content"`
	NextCursor string         `json:"nextCursor"`
}

// paramError refuses the query parameter field: code is
// CodeInvalidParameter (not a number, not a cursor: 400),
// CodeValidationFailed (out of range: 422) or CodeCursorGone (410).
func paramError(code Code, field, msg string) *Error {
	return code.New(msg).WithFields(FieldError{Field: field, Code: "invalid", Message: msg})
}

// List answers GET /api/changes?after=&limit=&wait=.
func (h *Changes) List(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	limit, wait := ChangesDefaultLimit, 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			WriteError(w, r, paramError(CodeInvalidParameter, "limit", "limit must be a whole number from 1 to 1000 (default 100)."))
			return
		}
		if n < 1 || n > ChangesMaxLimit {
			WriteError(w, r, paramError(CodeValidationFailed, "limit", "limit must be from 1 to 1000 (default 100)."))
			return
		}
		limit = n
	}
	if v := q.Get("wait"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			WriteError(w, r, paramError(CodeInvalidParameter, "wait", "wait must be a whole number of seconds from 0 to 60."))
			return
		}
		if n < 0 || n > ChangesMaxWait {
			WriteError(w, r, paramError(CodeValidationFailed, "wait", "wait must be from 0 to 60 seconds."))
			return
		}
		wait = n
	}
	if wait > 0 {
		who := PrincipalFrom(ctx).Email
		maxAll, maxPer := cmp.Or(h.MaxPolls, DefaultMaxPolls), cmp.Or(h.MaxPollsPerPrincipal, DefaultMaxPollsPerPrincipal)
		if !h.polls.enter(who, maxAll, maxPer) {
			WriteError(w, r, CodeRateLimited.New("Too many long polls of the change feed at once (at most "+itoa(maxPer)+
				" per administrator, "+itoa(maxAll)+" in all); retry shortly, or follow the feed with one poll.").WithHeader(http.Header{"Retry-After": {"5"}}))
			return
		}
		defer h.polls.leave(who)
	}
	epoch, err := h.Store.FeedEpoch(ctx)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	var after int64
	switch cur := q.Get("after"); cur {
	case "":
		// From the start of the log.
	case "now":
		if after, err = h.Store.LastChangeID(ctx); err != nil {
			WriteError(w, r, err)
			return
		}
	default:
		after, err = h.Store.ResolveCursor(ctx, cur)
		switch {
		case errors.Is(err, store.ErrCursorMalformed):
			WriteError(w, r, paramError(CodeInvalidParameter, "after",
				"after is not a cursor of this feed: send the nextCursor (or a Cursor) of an earlier answer as it was, leave it out to read from the start, or send after=now to read only what changes from now on."))
			return
		case errors.Is(err, store.ErrCursorGone):
			WriteError(w, r, paramError(CodeCursorGone, "after",
				"This cursor cannot be continued: it was made by another database or points past the end of this log (the directory was restored from a backup, or moved). Read the current state again (GET /api/organisations, GET /api/participants), then follow GET /api/changes?after=now."))
			return
		case err != nil:
			WriteError(w, r, err)
			return
		}
	}
	if wait > 0 {
		// A long poll outlives the server's write timeout: give this
		// answer its own deadline (the wait and some room).
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Duration(wait)*time.Second + 30*time.Second))
	}
	recs, err := h.wait(ctx, after, limit, time.Duration(wait)*time.Second)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	page := changesPage{Content: make([]store.Change, 0, len(recs)), NextCursor: store.EncodeCursor(epoch, after)}
	for _, rec := range recs {
		c := store.ChangeOf(epoch, rec)
		page.Content = append(page.Content, c)
		page.NextCursor = c.Cursor
	}
	WriteJSON(w, http.StatusOK, page)
}

// wait reads the changes after after; when there are none it waits up to
// d for a commit (or, for other instances' commits, the poll interval)
// and reads again.
func (h *Changes) wait(ctx context.Context, after int64, limit int, d time.Duration) ([]store.AuditRecord, error) {
	poll := h.Poll
	if poll <= 0 {
		poll = time.Second
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		commit := h.Store.NextCommit()
		recs, err := h.Store.ChangesAfter(ctx, after, limit)
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
		case <-h.Stopping:
			t.Stop()
			return nil, nil
		case <-commit:
		case <-t.C:
		}
		t.Stop()
	}
}
