package web

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/federation/anchor"
	"github.com/trustframe/trustframe/handlers"
	"github.com/trustframe/trustframe/store"
)

// HEAD (docs/design.md §4, docs/decisions.md "HEAD"): every GET route
// answers HEAD with GET's status and headers and no body (net/http drops
// the body of an answer to HEAD). No route registers HEAD itself: headAsGet
// routes a HEAD as a GET, through the same middleware (authentication,
// conditional GET, security headers), so access is checked as for GET. The
// GET routes that write (an audit record, a signed SSA, a session) are
// registered through getOnly, which answers HEAD with 405 after those
// checks; headRefused names them for the Allow header.

type headKey struct{}

// isHead reports whether ctx is a HEAD request's.
func isHead(ctx context.Context) bool { return ctx.Value(headKey{}) != nil }

// headAsGet routes a HEAD request as a GET and marks its context, so that
// the session it loads is never saved (headSafeSessions). The request's
// method stays HEAD.
func headAsGet(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			if rctx := chi.RouteContext(r.Context()); rctx != nil {
				rctx.RouteMethod = http.MethodGet
			}
			r = r.WithContext(context.WithValue(r.Context(), headKey{}, true))
		}
		next.ServeHTTP(w, r)
	})
}

// headRefused are the GET routes (full patterns) whose handler writes:
// HEAD gets 405 there, and no Allow offers it. Each is registered with
// getOnly; TestHeadOnEveryGETRoute holds the list to the router.
var headRefused = map[string]bool{
	"/api/organisations/export.csv":                                   true, // audited download
	"/api/organisations/{orgID}/softwarestatements/{appID}/assertion": true, // signs an SSA, audited
	"/api/audit/export.csv":                                           true, // audited download
	"/organisations/export.csv":                                       true,
	"/organisations/{orgID}/softwarestatements/{appID}/assertion":     true,
	"/audit/export.csv":                                               true,
	"/login":                                                          true, // keeps the sign-in's state in the session
	"/auth/callback":                                                  true, // signs in
	"/federation/trust-mark":                                          true, // records the mark it signs
}

// getOnly serves GET with h and refuses HEAD with 405 (Allow: GET): h has
// a side effect that a HEAD must not cause.
func getOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Allow", http.MethodGet)
			msg := "HEAD is not allowed on " + r.URL.Path + ": a GET here writes (an audit record, a signature or a session); send GET."
			if strings.HasPrefix(r.URL.Path, "/federation/") { // the federation's own error shape (docs/design.md §13)
				anchor.WriteError(w, http.StatusMethodNotAllowed, "invalid_request", msg)
				return
			}
			handlers.WriteError(w, r, handlers.CodeMethodNotAllowed.New(msg))
			return
		}
		h(w, r)
	}
}

// headSafeSessions is the session store of scs: during a HEAD request it
// writes and deletes nothing, so a HEAD neither saves a session (a flash
// message taken, the last-seen time moved) nor ends one. The answer's
// cookie is GET's; only the store is left as it was.
type headSafeSessions struct{ *store.SessionStore }

func (s headSafeSessions) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if isHead(ctx) {
		return nil
	}
	return s.SessionStore.CommitCtx(ctx, token, b, expiry)
}

func (s headSafeSessions) DeleteCtx(ctx context.Context, token string) error {
	if isHead(ctx) {
		return nil
	}
	return s.SessionStore.DeleteCtx(ctx, token)
}
