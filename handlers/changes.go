package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/trustframe/trustframe/changefeed"
	"github.com/trustframe/trustframe/store"
)

// Changes serves GET /api/changes, the change feed (docs/design.md §15):
// every audit record in commit order after an opaque cursor, and a long
// poll that is answered as soon as a change commits (changefeed).
type Changes struct {
	*Base
	Feed *changefeed.Feed
}

// Default bounds of the long polls held at once, for the flags that
// change them (changefeed.Feed).
const (
	DefaultMaxPolls             = changefeed.DefaultMaxPolls
	DefaultMaxPollsPerPrincipal = changefeed.DefaultMaxPollsPerPrincipal
)

// Limits of the change feed's parameters.
const (
	ChangesDefaultLimit = 100
	ChangesMaxLimit     = 1000
	ChangesMaxWait      = 60
)

// paramError refuses the query parameter field: code is
// CodeInvalidParameter (not a number, not a cursor: 400),
// CodeValidationFailed (out of range: 422) or CodeCursorGone (410).
func paramError(code Code, field, msg string) *Error {
	return code.New(msg).WithFields(FieldError{Field: field, Code: "invalid", Message: msg})
}

// List answers GET /api/changes?after=&limit=&wait=.
func (h *Changes) List(w http.ResponseWriter, r *http.Request) {
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
		// A long poll outlives the server's write timeout: give this
		// answer its own deadline (the wait and some room).
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Duration(wait)*time.Second + 30*time.Second))
	}
	page, err := h.Feed.Read(r.Context(), PrincipalFrom(r.Context()).Email, q.Get("after"), limit, time.Duration(wait)*time.Second)
	if err != nil {
		WriteError(w, r, feedError(err))
		return
	}
	WriteJSON(w, http.StatusOK, page)
}

// feedError is the refusal of the feed's err: a cursor that is not one is
// 400, one this log cannot continue 410, a long poll past the bounds 429.
func feedError(err error) error {
	var many *changefeed.TooManyPolls
	switch {
	case errors.Is(err, store.ErrCursorMalformed):
		return paramError(CodeInvalidParameter, "after",
			"after is not a cursor of this feed: send the nextCursor (or a Cursor) of an earlier answer as it was, leave it out to read from the start, or send after=now to read only what changes from now on.")
	case errors.Is(err, store.ErrCursorGone):
		return paramError(CodeCursorGone, "after",
			"This cursor cannot be continued: it was made by another database or points past the end of this log (the directory was restored from a backup, or moved). Read the current state again (GET /api/organisations, GET /api/participants), then follow GET /api/changes?after=now.")
	case errors.As(err, &many):
		return CodeRateLimited.New("Too many long polls of the change feed at once (at most " + strconv.Itoa(many.PerPrincipal) +
			" per administrator, " + strconv.Itoa(many.All) + " in all); retry shortly, or follow the feed with one poll.").WithHeader(http.Header{"Retry-After": {"5"}})
	}
	return err
}
