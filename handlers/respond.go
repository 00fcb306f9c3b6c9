// Package handlers serves every resource once for both representations: the
// same handler answers the HTML page and the JSON API (docs/design.md §1).
package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/a-h/templ"
)

// Principal is the administrator a request acts for.
type Principal struct {
	Email string
	Role  string // "SuperUser" or "DataAdministrator"
	Via   string // "session" or "token"
}

// IsSuperUser reports whether the principal has Super User rights.
func (p Principal) IsSuperUser() bool { return p.Role == "SuperUser" }

type ctxKey int

const (
	principalKey ctxKey = iota
	flashKey
)

// WithPrincipal stores the principal in the context.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey, p)
}

// PrincipalFrom returns the request's principal (zero when anonymous).
func PrincipalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey).(Principal)
	return p
}

// IsAPI reports whether the request is for the JSON API.
func IsAPI(r *http.Request) bool {
	return r.URL.Path == "/api" || strings.HasPrefix(r.URL.Path, "/api/")
}

// WantsJSON reports whether the response should be JSON: under /api always,
// elsewhere when the best Accept match is application/json.
func WantsJSON(r *http.Request) bool {
	if IsAPI(r) {
		return true
	}
	return bestAccept(r.Header.Get("Accept"), "text/html", "application/json") == "application/json"
}

// bestAccept picks the offer with the highest q in an Accept header; ties go
// to the first offer. An empty header prefers the first offer.
func bestAccept(header string, offers ...string) string {
	if strings.TrimSpace(header) == "" {
		return offers[0]
	}
	best, bestQ, bestSpec := offers[0], -1.0, -1
	for _, part := range strings.Split(header, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if qs, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(qs, 64); err == nil {
				q = f
			}
		}
		for _, o := range offers {
			spec := -1
			switch {
			case mt == o:
				spec = 2
			case strings.HasSuffix(mt, "/*") && strings.HasPrefix(o, strings.TrimSuffix(mt, "*")):
				spec = 1
			case mt == "*/*":
				spec = 0
			}
			if spec < 0 {
				continue
			}
			if q > bestQ || (q == bestQ && spec > bestSpec) {
				best, bestQ, bestSpec = o, q, spec
			}
		}
	}
	if bestQ <= 0 {
		return offers[0]
	}
	return best
}

// Respond writes data as JSON or renders view as HTML. A nil view on an
// HTML request falls back to JSON.
func Respond(w http.ResponseWriter, r *http.Request, status int, data any, view templ.Component) {
	vary(w)
	if WantsJSON(r) || view == nil {
		WriteJSON(w, status, data)
		return
	}
	Render(w, r, status, view)
}

// Render renders a templ component to a buffer, then writes it.
func Render(w http.ResponseWriter, r *http.Request, status int, view templ.Component) {
	vary(w)
	var buf bytes.Buffer
	if err := view.Render(r.Context(), &buf); err != nil {
		LoggerFrom(r.Context()).ErrorContext(r.Context(), "render", "err", err, "path", r.URL.Path)
		http.Error(w, "Internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if status >= 400 && r.Method != http.MethodGet && r.Method != http.MethodHead && r.Header.Get("HX-Request") == "true" {
		// A refusal shown in place keeps the address of the page the form
		// was on: reloading it must not GET the URL the form posted to.
		w.Header().Set("HX-Push-Url", "false")
	}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// Vary marks a response as chosen by Accept (JSON or HTML) and HX-Request
// (an htmx fragment or a whole page), once. Every answer written through
// this file carries it, so a shared cache never hands one kind to a
// client that asked for the other; a handler that answers some other way
// (http.Redirect) after looking at either header calls it itself.
func Vary(w http.ResponseWriter) {
	if _, ok := w.Header()["Vary"]; !ok { // the common case: one line, nothing to merge
		w.Header()["Vary"] = []string{"Accept, HX-Request"}
		return
	}
	has := map[string]bool{}
	for _, v := range w.Header().Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			has[strings.ToLower(strings.TrimSpace(f))] = true
		}
	}
	for _, name := range []string{"Accept", "HX-Request"} {
		if !has[strings.ToLower(name)] {
			w.Header().Add("Vary", name)
		}
	}
}

func vary(w http.ResponseWriter) { Vary(w) }

// WriteJSON writes v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	vary(w)
	var b []byte
	if a, ok := v.(jsonAppender); ok {
		b = a.appendJSON(make([]byte, 0, 1024))
	} else {
		var err error
		if b, err = json.Marshal(v); err != nil {
			http.Error(w, "Internal error", http.StatusInternalServerError)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// jsonAppender is an answer that writes its own JSON (exactly what
// json.Marshal would write, without reflection).
type jsonAppender interface{ appendJSON([]byte) []byte }

// Redirect answers a browser form post: HX-Redirect for htmx, 303 otherwise.
func Redirect(w http.ResponseWriter, r *http.Request, to string) {
	vary(w)
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Redirect", to)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

type loggerKey struct{}

// WithLogger gives the handlers of a request the service's logger.
func WithLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, log)
}

// LoggerFrom is the logger WithLogger set, or slog's default.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.Default()
}

type templComponent = templ.Component

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

type jsonRaw = json.RawMessage
