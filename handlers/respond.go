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
	"slices"
	"strconv"
	"strings"

	"crypto/sha256"
	"encoding/base64"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// Principal is the administrator a request acts for.
type Principal struct {
	Email string // an application's is client:<ClientId>
	Role  string // "SuperUser", "DataAdministrator", "OrganisationAdministrator" or "Application"
	Via   string // "session" or "token"
	// Orgs are the organisations an Organisation Administrator administers
	// (docs/design.md §19), an application's own one (§20); nil for
	// everyone else.
	Orgs []string
	// App is the SoftwareStatementId of an application calling for
	// itself (docs/design.md §20).
	App string
}

// RoleApplication is the role of an application calling the API for
// itself with a token of the directory's token endpoint.
const RoleApplication = "Application"

// IsApplication reports whether the principal is an application calling
// for itself.
func (p Principal) IsApplication() bool { return p.Role == RoleApplication }

// IsSuperUser reports whether the principal has Super User rights.
func (p Principal) IsSuperUser() bool { return p.Role == "SuperUser" }

// IsOrgAdmin reports whether the principal administers some organisations
// only.
func (p Principal) IsOrgAdmin() bool { return p.Role == string(directory.RoleOrgAdmin) }

// Administers reports whether the principal may act on organisation orgID:
// every administrator of the directory may; an Organisation Administrator,
// on their own organisations.
func (p Principal) Administers(orgID string) bool {
	return !(p.IsOrgAdmin() || p.IsApplication()) || slices.Contains(p.Orgs, orgID)
}

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
	Vary(w)
	if WantsJSON(r) || view == nil {
		WriteJSON(w, status, data)
		return
	}
	Render(w, r, status, view)
}

// Render renders a templ component to a buffer, then writes it.
func Render(w http.ResponseWriter, r *http.Request, status int, view templ.Component) {
	Vary(w)
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

// WriteJSON writes v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	Vary(w)
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
	Vary(w)
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

// Saved is the outcome of a write, answered once for both
// representations by Base.Saved: the browser is sent to Page with Flash,
// the API gets Body with Status (and the ETag of Body, and Location when
// set). Err, when set, is answered as a problem or an error page; a
// handler that shows a refusal in its form does so itself (inForm,
// refusedHere) before it calls Saved.
type Saved struct {
	Err error

	Flash string // the browser's message on Page
	Tell  func() // sets the browser's message itself, instead of Flash
	Page  string // where the browser goes (303, or HX-Redirect)

	Status   int    // API: 200, 201 or 204 (no body)
	Body     any    // API: the saved resource
	ETag     any    // API: send the ETag of this (the stored resource)
	Location string // API: the created resource's URL
}

// Saved answers a write (see Saved).
func (b *Base) Saved(w http.ResponseWriter, r *http.Request, s Saved) {
	Vary(w)
	if s.Err != nil {
		WriteError(w, r, s.Err)
		return
	}
	if !WantsJSON(r) {
		switch {
		case s.Tell != nil:
			s.Tell()
		case s.Flash != "":
			b.Flash.Put(r.Context(), s.Flash)
		}
		Redirect(w, r, s.Page)
		return
	}
	if s.Location != "" {
		w.Header().Set("Location", s.Location)
	}
	if s.ETag != nil {
		SetETag(w, s.ETag)
	}
	if s.Status == http.StatusNoContent {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	WriteJSON(w, s.Status, s.Body)
}

// Refused shows a browser refusal as a flash on page (a button that
// changes one thing, not a form), and goes back to page.
func (b *Base) Refused(w http.ResponseWriter, r *http.Request, prefix, page string) func(e *Error) {
	return func(e *Error) {
		b.Flash.Refuse(r.Context(), prefix+e.Message)
		Redirect(w, r, page)
	}
}

// RespondPage is Respond with the HTML built only when HTML is asked for:
// page may fail (a store read for the page only), answered as an error.
func RespondPage(w http.ResponseWriter, r *http.Request, status int, data any, page func() (templ.Component, error)) {
	if WantsJSON(r) {
		WriteJSON(w, status, data)
		return
	}
	v, err := page()
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if v == nil {
		return // page answered itself
	}
	Render(w, r, status, v)
}

// HTMLPage answers an HTML request with page and reports true; a JSON
// request is left to the caller (false). For handlers whose page is built
// from other data than the API answer.
func HTMLPage(w http.ResponseWriter, r *http.Request, page func()) bool {
	if WantsJSON(r) {
		return false
	}
	page()
	return true
}

// inForm reports whether a browser's refusal is shown in the form it came
// from, beside its fields: every refusal below 500 but a missing resource
// (an error page says that). The API answers every refusal as a problem.
func inForm(r *http.Request, err error) bool {
	s := AsError(err).Status
	return !WantsJSON(r) && s < 500 && s != http.StatusNotFound
}

// refusedHere reports err as a refusal the browser is shown in place, on
// the page or form it came from, instead of an error page: the request is
// the console's, err is a refusal (below 500), and its status is one of
// want — or, when want is empty, anything but a missing resource.
func refusedHere(r *http.Request, err error, want ...int) (*Error, bool) {
	if err == nil || WantsJSON(r) {
		return nil, false
	}
	e := AsError(err)
	if e.Status >= 500 {
		return nil, false
	}
	if len(want) == 0 {
		return e, e.Status != http.StatusNotFound
	}
	for _, s := range want {
		if e.Status == s {
			return e, true
		}
	}
	return nil, false
}

// Created makes s the answer to a create when isNew: 201 with Location.
func (s Saved) Created(isNew bool, location string) Saved {
	if isNew {
		s.Status, s.Location = http.StatusCreated, location
	}
	return s
}

// PageOrList answers page in the browser, and on the API what list reads
// (a list page whose HTML is built from other reads than its JSON).
func PageOrList[T any](w http.ResponseWriter, r *http.Request, page func(), list func(context.Context) (T, error)) {
	if HTMLPage(w, r, page) {
		return
	}
	v, err := list(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, v)
}

// versioned is a resource that lists its own fields for its ETag, which
// costs less than encoding it as JSON only to hash it (the organisation,
// read most).
type versioned interface{ AppendVersion([]byte) []byte }

// ETagOf is a strong validator of a resource: a hash of every field.
func ETagOf(v any) string {
	var sum [sha256.Size]byte
	if x, ok := v.(versioned); ok {
		var buf [512]byte
		sum = sha256.Sum256(x.AppendVersion(buf[:0]))
	} else {
		b, _ := json.Marshal(v)
		sum = sha256.Sum256(b)
	}
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// SetETag sets the ETag header of a single resource.
func SetETag(w http.ResponseWriter, v any) { w.Header().Set("ETag", ETagOf(v)) }

// CheckIfMatch answers 412 when If-Match names another version of cur.
func CheckIfMatch(r *http.Request, cur any) error {
	im := r.Header.Get("If-Match")
	if im == "" || strings.TrimSpace(im) == "*" {
		return nil
	}
	want := ETagOf(cur)
	for _, t := range strings.Split(im, ",") {
		if strings.TrimSpace(t) == want {
			return nil
		}
	}
	return CodeStaleETag.New("the resource changed since you read it (If-Match does not match its ETag)")
}

// actor is who makes a change, for its audit record: the signed-in
// administrator.
func (b *Base) actor(r *http.Request) store.Audit {
	return ActorOf(r)
}

// ActorOf is the request's principal as the application layer's actor:
// an Organisation Administrator acts within their organisations only.
func ActorOf(r *http.Request) directory.Actor {
	p := PrincipalFrom(r.Context())
	a := directory.Actor{Actor: p.Email}
	if p.IsOrgAdmin() || p.IsApplication() {
		a.Within = append([]string{}, p.Orgs...)
	}
	return a
}
