package web

import (
	"context"
	"net/http"

	"github.com/alexedwards/scs/v2"
)

// flasher keeps flash messages in the session: one message and its kind
// (success, warning or error), shown once by the next page.
type flasher struct{ sm *scs.SessionManager }

func (f flasher) Put(ctx context.Context, msg string)    { f.put(ctx, "success", msg) }
func (f flasher) Warn(ctx context.Context, msg string)   { f.put(ctx, "warning", msg) }
func (f flasher) Refuse(ctx context.Context, msg string) { f.put(ctx, "error", msg) }

func (f flasher) put(ctx context.Context, kind, msg string) {
	f.sm.Put(ctx, "flash", msg)
	f.sm.Put(ctx, "flash_kind", kind)
}

// Pop returns the message and its kind, and forgets them. Outside the
// browser routes (no session loaded) there is none.
func (f flasher) Pop(ctx context.Context) (msg, kind string) {
	if ctx.Value(sessionLoadedKey{}) == nil {
		return "", ""
	}
	msg = f.sm.PopString(ctx, "flash")
	kind = f.sm.PopString(ctx, "flash_kind")
	if msg != "" && kind == "" {
		kind = "success"
	}
	return msg, kind
}

type sessionLoadedKey struct{}

// sessionLoaded marks a request whose session is loaded (after
// LoadAndSave), so that an anonymous page may show a flash.
func sessionLoaded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionLoadedKey{}, true)))
	})
}

// Stash keeps a wizard's value in the session ("stash:"+key).
func (f flasher) Stash(ctx context.Context, key, value string) { f.sm.Put(ctx, "stash:"+key, value) }

// Stashed reads a stashed value and leaves it, so Back and Forward show
// the step again.
func (f flasher) Stashed(ctx context.Context, key string) string {
	if ctx.Value(sessionLoadedKey{}) == nil {
		return ""
	}
	return f.sm.GetString(ctx, "stash:"+key)
}
