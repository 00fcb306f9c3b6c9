package web

import (
	"net/http"
	"time"
)

// Idle expiry of a signed-in session without a write per request.
//
// scs's own IdleTimeout re-saves the session on every request, so every
// page view would commit (and fsync) a row. Instead the session carries the
// time it was last seen; a request that finds it older than
// sessionIdleTimeout ends the session, and the time is brought forward at
// most once per sessionTouchEvery, so a page view is a pure read
// (docs/decisions.md, "Reads never write").
const (
	sessionIdleTimeout = 2 * time.Hour
	sessionTouchEvery  = time.Minute
	sessionSeenKey     = "seen"
)

// sessionIdle enforces the idle timeout; it runs inside LoadAndSave.
func (s *Server) sessionIdle(next http.Handler) http.Handler {
	sm := s.sessions
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if sm.Exists(ctx, "email") {
			now := s.cfg.Now()
			seen := time.Unix(sm.GetInt64(ctx, sessionSeenKey), 0)
			switch {
			case sm.Exists(ctx, sessionSeenKey) && now.Sub(seen) > sessionIdleTimeout:
				if err := sm.Destroy(ctx); err != nil {
					s.sessions.ErrorFunc(w, r, err)
					return
				}
			case now.Sub(seen) >= sessionTouchEvery:
				sm.Put(ctx, sessionSeenKey, now.Unix())
			}
		}
		next.ServeHTTP(w, r)
	})
}
