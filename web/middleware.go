package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/trustframe/trustframe/handlers"
	"github.com/trustframe/trustframe/views"
	"golang.org/x/time/rate"
)

type requestIDKey struct{}

// requestID gives every request an id, echoed in X-Request-Id.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		id := hex.EncodeToString(b)
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// recoverer turns a panic into a logged 500 and keeps serving.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", "value", fmt.Sprint(v), "stack", string(debug.Stack()), "path", r.URL.Path)
				handlers.WriteError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests writes one line per request.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(handlers.WithLogger(r.Context(), s.log)))
		code := sw.status
		if code == 0 {
			code = http.StatusOK
		}
		s.metrics.observe(routeOf(r), r.Method, code, time.Since(start))
		lvl, msg := slog.LevelInfo, "http"
		if sw.status >= 500 {
			lvl = slog.LevelError
		}
		if r.Context().Err() != nil && (code == handlers.StatusClientClosedRequest || code >= 500) {
			// Not the server's failure: the client went away first.
			lvl, msg = slog.LevelInfo, "client disconnected"
		}
		// The record is made by hand: Logger.Log would walk the stack for a
		// source location that no handler here prints, on every request.
		if h := s.log.Handler(); h.Enabled(r.Context(), lvl) {
			rec := slog.NewRecord(time.Now(), lvl, msg, 0)
			rec.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", sw.status),
				slog.Int("bytes", sw.bytes), slog.Duration("dur", time.Since(start).Round(time.Microsecond)),
				slog.Any("id", r.Context().Value(requestIDKey{})), slog.String("client", s.clientAddr(r)))
			_ = h.Handle(r.Context(), rec)
		}
	})
}

// securityHeaders sets the headers of docs/design.md §11 on every response:
// pages get the browser's whole set; API answers (JSON under /api, never
// rendered as a document) get what matters to them — a CSP that loads
// nothing and cannot be framed, nosniff, and HSTS on https — and not the
// headers that only govern a rendered page (X-Frame-Options,
// Referrer-Policy, COOP, Permissions-Policy), which every API client would
// otherwise parse on every answer. The values are made once.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
	https := strings.HasPrefix(s.cfg.BaseURL, "https://")
	page, api := http.Header{}, http.Header{}
	for _, h := range []http.Header{page, api} {
		h.Set("X-Content-Type-Options", "nosniff")
		if https {
			h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
	}
	page.Set("X-Frame-Options", "DENY")
	page.Set("Referrer-Policy", "same-origin")
	page.Set("Cross-Origin-Opener-Policy", "same-origin")
	page.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	page.Set("Content-Security-Policy", csp+"; form-action 'self'")
	api.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	// The development sign-in form redirects to the client's (loopback)
	// redirect URI, which form-action 'self' would block in browsers.
	devIdP := page.Clone()
	devIdP.Set("Content-Security-Policy", csp)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		set := page
		switch {
		case handlers.IsAPI(r):
			set = api
		case strings.HasPrefix(r.URL.Path, "/dev/idp/"):
			set = devIdP
		}
		h := w.Header()
		for k, v := range set {
			h[k] = []string{v[0]} // keys canonical already; a slice of its own, so no answer can change another's
		}
		next.ServeHTTP(w, r)
	})
}

// noStore keeps authenticated answers out of shared caches.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// remoteDevIdPBanner marks every request so that every page warns that the
// development identity provider is open to remote clients.
func remoteDevIdPBanner(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(views.WithRemoteDevIdP(r.Context())))
	})
}

// loopbackOnly refuses non-loopback clients (the development identity
// provider) unless allowed.
func (s *Server) loopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.cfg.DevIdPAllowRemote {
			ip := net.ParseIP(s.clientAddr(r))
			if ip == nil || !ip.IsLoopback() {
				handlers.WriteError(w, r, handlers.CodeDevIDPLoopbackOnly.New("The development identity provider answers loopback clients only (--dev-idp-allow-remote to change)."))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// rateLimiter is a token bucket per key (client address, administrator),
// each bucket a golang.org/x/time/rate limiter: perMinute a minute, with a
// minute's worth as burst. Buckets unused for two minutes (full again) are
// dropped.
type rateLimiter struct {
	perMinute int
	now       func() time.Time
	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time
}

func newRateLimiter(perMinute int, now func() time.Time) *rateLimiter {
	return &rateLimiter{perMinute: perMinute, now: now, buckets: map[string]*bucket{}}
}

// allow takes a token for key; when there is none it says how long until
// there is.
func (l *rateLimiter) allow(key string) (bool, time.Duration) {
	if l.perMinute <= 0 {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	if now.Sub(l.lastSweep) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.last) > 2*time.Minute {
				delete(l.buckets, k)
			}
		}
		l.lastSweep = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)}
		l.buckets[key] = b
	}
	b.last = now
	l.mu.Unlock()
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// rateLimit applies the limiter to sign-in and token endpoints, one bucket
// per client (clientNet: an IPv4 address, an IPv6 /64; behind a trusted
// proxy, the address it forwards): past it, 429 with Retry-After and a
// problem body.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	return s.limited(next, func(w http.ResponseWriter, r *http.Request) {
		handlers.WriteError(w, r, handlers.CodeRateLimited.New("Too many sign-in or token requests; try again shortly."))
	})
}

// oauthRateLimit is rateLimit for token endpoints (/oauth/token, the
// development identity provider's /token and /revoke), whose clients read
// RFC 6749 §5.2 error bodies. §5.2 has no code for "too many": the 429
// carries temporarily_unavailable, the code RFC 6749 gives the
// authorization endpoint for a server that cannot answer now.
func (s *Server) oauthRateLimit(next http.Handler) http.Handler {
	return s.limited(next, func(w http.ResponseWriter, _ *http.Request) {
		handlers.OAuthError(w, http.StatusTooManyRequests, "temporarily_unavailable",
			"too many token requests from this address; try again after the seconds in Retry-After")
	})
}

func (s *Server) limited(next http.Handler, refuse http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := s.limiter.allow(s.clientNet(r)); !ok {
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
			refuse(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// conditionalGET answers 304 Not Modified to a GET whose If-None-Match
// names the ETag the handler set on its 200 answer (RFC 9110 §13.1.2), so
// automation that polls a resource moves no body when nothing changed.
func conditionalGET(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inm := r.Header.Get("If-None-Match")
		if inm == "" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&condWriter{ResponseWriter: w, ifNoneMatch: inm}, r)
	})
}

type condWriter struct {
	http.ResponseWriter
	ifNoneMatch string
	wrote       bool
	suppressed  bool
}

func (w *condWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if et := w.Header().Get("ETag"); code == http.StatusOK && et != "" && etagMatches(w.ifNoneMatch, et) {
		w.suppressed = true
		w.Header().Del("Content-Type")
		w.Header().Del("Content-Length")
		w.ResponseWriter.WriteHeader(http.StatusNotModified)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *condWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.suppressed {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *condWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// etagMatches is the weak comparison of If-None-Match: any listed tag, W/
// or not, equal to etag, or "*".
func etagMatches(header, etag string) bool {
	strip := func(s string) string { return strings.TrimPrefix(strings.TrimSpace(s), "W/") }
	for _, t := range strings.Split(header, ",") {
		if strings.TrimSpace(t) == "*" || strip(t) == strip(etag) {
			return true
		}
	}
	return false
}

// apiRateLimit limits each administrator's API requests (--api-rate-limit
// per minute, with a minute's worth as burst): a runaway script slows
// down, the others do not notice.
func (s *Server) apiRateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := s.apiLimiter.allow(handlers.PrincipalFrom(r.Context()).Email); !ok {
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
			handlers.WriteError(w, r, handlers.CodeRateLimited.New(fmt.Sprintf("More than %d API requests a minute from this administrator; slow down.", s.cfg.APIRateLimit)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sessionGuard is the writer scs's LoadAndSave writes to. When the session
// cannot be saved (a full disk), scs answers the error (sessionFailed) and
// then lets the handler's own response through as well: a redirect's
// Location header and body under the error's status. After the error the
// guard drops the rest, so the answer is the error alone.
type sessionGuard struct {
	http.ResponseWriter
	failed bool
}

func (g *sessionGuard) WriteHeader(code int) {
	if !g.failed {
		g.ResponseWriter.WriteHeader(code)
	}
}

func (g *sessionGuard) Write(b []byte) (int, error) {
	if g.failed {
		return len(b), nil
	}
	return g.ResponseWriter.Write(b)
}

func (g *sessionGuard) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// guardSessions wraps the writer of the session middleware (see sessionGuard).
func guardSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&sessionGuard{ResponseWriter: w}, r)
	})
}

// sessionFailed answers an error of the session store (scs's ErrorFunc).
// The handler may already have set a redirect: its Location goes, so that
// no client follows it without the session it needed (and is then told
// its sign-in is stale).
func sessionFailed(w http.ResponseWriter, r *http.Request, err error) {
	for _, h := range []string{"Location", "HX-Redirect", "HX-Location", "Set-Cookie"} {
		w.Header().Del(h)
	}
	handlers.WriteError(w, r, err)
	if g, ok := w.(*sessionGuard); ok {
		g.failed = true
	}
}

// loopbackHosts: while the development identity provider signs anyone in
// behind a loopback base URL (a developer's machine), a request must name
// a loopback host. A web page elsewhere can point a name of its own at
// 127.0.0.1 (DNS rebinding) and reach this server as its own origin, that
// sign-in for anyone included; the Host it sends is that name, and is
// refused here (docs/design.md §3). With a real identity provider, or
// behind any other base URL, nothing is checked (a proxy or a container
// network may send its own Host).
func (s *Server) loopbackHosts(next http.Handler) http.Handler {
	bu, err := url.Parse(s.cfg.BaseURL)
	if err != nil || !IsLoopbackHost(bu.Hostname()) || s.idp == nil || s.cfg.DevIdPAllowRemote {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		// No Host at all (HTTP/1.0) names nothing to refuse; a browser
		// always sends one.
		if host != "" && !IsLoopbackHost(strings.Trim(host, "[]")) {
			handlers.WriteError(w, r, handlers.CodeMisdirected.New("This server answers for "+bu.Host+" (a loopback address) only, not for the host this request names."))
			return
		}
		next.ServeHTTP(w, r)
	})
}
