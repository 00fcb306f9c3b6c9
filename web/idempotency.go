package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/handlers"
	"github.com/trustframe/trustframe/store"
)

// idempotencyBodyLimit is the largest body remembered for a fingerprint
// (attachments are up to 10 MiB); a larger one goes through unkeyed and is
// refused by its handler.
const idempotencyBodyLimit = 11 << 20

// replayedHeaders are the headers of a first answer that a retry gets again.
var replayedHeaders = []string{"Location", "Content-Type", "ETag", "HX-Redirect", "HX-Push-Url"}

// idempotent makes a POST sent with an Idempotency-Key (the API's header,
// or the IdempotencyKey field every console form carries) run once per
// administrator and key: a retry with the same key and the same request
// (method, path and query, Content-Type, body) gets the first answer again
// (status, Location, body) and changes nothing; a retry while the first
// still runs waits for it. A failed first attempt (4xx or 5xx) is not
// kept, so a retry runs again. Keys are kept 24 hours
// (store.IdempotencyTTL). The same key for another request is 422.
// It runs last before the handler (keyedPosts), after the route's role
// check: a stored answer is given only to whom the route admits now.
func (s *Server) idempotent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor := handlers.PrincipalFrom(r.Context()).Email
		key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		if actor == "" || (key == "" && ct != "application/x-www-form-urlencoded") {
			next.ServeHTTP(&hideSecretMember{ResponseWriter: w}, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, idempotencyBodyLimit+1))
		if err != nil || len(body) > idempotencyBodyLimit {
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
			next.ServeHTTP(&hideSecretMember{ResponseWriter: w}, r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if key == "" {
			// A console form posted without htmx (which sends the header):
			// its field, found without decoding the rest of the form,
			// which is the handler's to read.
			key = formField(body, "IdempotencyKey")
		}
		if key == "" {
			next.ServeHTTP(&hideSecretMember{ResponseWriter: w}, r)
			return
		}
		if len(key) > 255 {
			handlers.WriteError(w, r, handlers.CodeBadIdempotencyKey.New("Idempotency-Key is longer than 255 characters"))
			return
		}
		fp := fingerprint(r, body, handlers.PrincipalFrom(r.Context()).IsSuperUser())
		ctx := r.Context()
		deadline := time.Now().Add(15 * time.Second)
		for {
			res, started, err := s.db.BeginIdempotent(ctx, actor, key, fp)
			switch {
			case errors.Is(err, store.ErrIdempotencyMismatch):
				handlers.WriteError(w, r, handlers.CodeIdempotencyKeyReused.New("This Idempotency-Key was used for another request, or by you with other rights; send a new key for a new request."))
				return
			case err != nil:
				handlers.WriteError(w, r, err)
				return
			case res != nil:
				for k, v := range res.Headers {
					w.Header().Set(k, v)
				}
				w.Header().Set("Idempotent-Replayed", "true")
				w.WriteHeader(res.Status)
				_, _ = w.Write(res.Body)
				return
			}
			if started {
				break
			}
			if time.Now().After(deadline) {
				handlers.WriteError(w, r, handlers.CodeIdempotencyInProgress.New("A request with this Idempotency-Key is still running; retry in a moment.").WithHeader(http.Header{"Retry-After": {"1"}}))
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
		rec := &recordingWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			// Keep or forget the claim even when the client has gone.
			bg := context.WithoutCancel(ctx)
			if p := recover(); p != nil {
				_ = s.db.AbandonIdempotent(bg, actor, key)
				panic(p)
			}
			if rec.status >= 400 {
				if err := s.db.AbandonIdempotent(bg, actor, key); err != nil {
					s.log.Error("idempotency: abandon", "err", err)
				}
				return
			}
			h := map[string]string{}
			for _, k := range replayedHeaders {
				if v := w.Header().Get(k); v != "" {
					h[k] = v
				}
			}
			body, ct := rec.kept(h["Content-Type"])
			if ct != "" {
				h["Content-Type"] = ct
			}
			if err := s.db.FinishIdempotent(bg, actor, key, store.IdempotentResult{Status: rec.status, Headers: h, Body: body}); err != nil {
				s.log.Error("idempotency: finish", "err", err)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// fingerprint tells one request from another under the same key: its
// method, path and query, Content-Type and body, and whether the caller
// is a Super User. The route's role check runs before a replay, but some
// handlers check the Super User role themselves (reactivation): a caller
// who has lost it sends another request, refused as such, and never gets
// the answer given to the Super User they were.
func fingerprint(r *http.Request, body []byte, superUser bool) string {
	h := sha256.New()
	role := "administrator"
	if superUser {
		role = "super user"
	}
	h.Write([]byte(r.Method + " " + r.URL.RequestURI() + "\n" + r.Header.Get("Content-Type") + "\n" + role + "\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// formField is the first value of the field name in a URL-encoded form
// body, trimmed ("" when absent or badly escaped), found by a scan that
// decodes nothing else.
func formField(body []byte, name string) string {
	prefix := []byte(name + "=")
	for len(body) > 0 {
		var pair []byte
		pair, body, _ = bytes.Cut(body, []byte("&"))
		if v, ok := bytes.CutPrefix(pair, prefix); ok {
			s, err := url.QueryUnescape(string(v))
			if err != nil {
				return ""
			}
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// keyedPosts is a router whose POST routes run idempotent last, after
// every middleware the route has (its role check among them), so that a
// retry is answered only when the route would admit it now. Routes,
// groups and inline middleware made from it are keyed too.
type keyedPosts struct {
	chi.Router
	idempotent func(http.Handler) http.Handler
}

func (k keyedPosts) Post(pattern string, h http.HandlerFunc) {
	k.Router.With(k.idempotent).Post(pattern, h)
}

func (k keyedPosts) With(middlewares ...func(http.Handler) http.Handler) chi.Router {
	return keyedPosts{k.Router.With(middlewares...), k.idempotent}
}

func (k keyedPosts) Group(fn func(chi.Router)) chi.Router {
	return k.Router.Group(func(r chi.Router) { fn(keyedPosts{r, k.idempotent}) })
}

func (k keyedPosts) Route(pattern string, fn func(chi.Router)) chi.Router {
	return k.Router.Route(pattern, func(r chi.Router) { fn(keyedPosts{r, k.idempotent}) })
}

// recordingWriter passes a response through and keeps its status and body.
type recordingWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
	body        bytes.Buffer
	secret      string // the member that holds a secret shown once
}

func (w *recordingWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
		w.secret = w.Header().Get(handlers.SecretMemberHeader)
		w.Header().Del(handlers.SecretMemberHeader)
	}
	w.ResponseWriter.WriteHeader(code)
}

// kept is the body to remember for a replay: an answer that carries a
// secret shown once (handlers.SecretMemberHeader) is kept without it — the
// JSON member removed, any other body replaced by a note — so that no
// secret lies in the clear in the idempotency table.
func (w *recordingWriter) kept(contentType string) ([]byte, string) {
	if w.secret == "" {
		return w.body.Bytes(), contentType
	}
	var m map[string]json.RawMessage
	if mt, _, _ := mime.ParseMediaType(contentType); mt == "application/json" && json.Unmarshal(w.body.Bytes(), &m) == nil {
		delete(m, w.secret)
		b, _ := json.Marshal(m)
		return b, contentType
	}
	return []byte("Done. The answer showed a secret once; it is not shown again (make a new one if it was lost).\n"), "text/plain; charset=utf-8"
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// hideSecretMember keeps handlers.SecretMemberHeader, a signal to this
// middleware only, from the client when no replay is recorded.
type hideSecretMember struct {
	http.ResponseWriter
	wroteHeader bool
}

func (w *hideSecretMember) WriteHeader(code int) {
	if !w.wroteHeader {
		w.wroteHeader = true
		w.Header().Del(handlers.SecretMemberHeader)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *hideSecretMember) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *hideSecretMember) Unwrap() http.ResponseWriter { return w.ResponseWriter }
