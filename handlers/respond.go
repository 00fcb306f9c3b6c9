// Package handlers serves every resource once for both representations: the
// same handler answers the HTML page and the JSON API (docs/design.md §1).
package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// MaxBody is the largest request body accepted outside attachments.
const MaxBody = 1 << 20

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
	if status >= 400 && r.Method != http.MethodGet && r.Header.Get("HX-Request") == "true" {
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
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "Internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

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

// DecodeAs reads the body into api for a JSON request and into form for a
// console form (whose fields differ from the API's), and reports which:
// true for the API's shape.
func DecodeAs(w http.ResponseWriter, r *http.Request, api, form any) (bool, error) {
	if WantsJSON(r) {
		return true, Decode(w, r, api)
	}
	return false, Decode(w, r, form)
}

// ListSize is the page size of a list: the console shows up to 200 rows
// at once, the API pages as asked.
func ListSize(r *http.Request, size int) int {
	if WantsJSON(r) {
		return size
	}
	return 200
}

// Decode reads a JSON body (unknown fields refused) or a form into dst.
// Forms are mapped by the `json` tag name of each string field.
func Decode(w http.ResponseWriter, r *http.Request, dst any) error {
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil && r.Header.Get("Content-Type") != "" {
		return CodeUnsupportedMediaType.New("Content-Type is not a media type")
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	switch ct {
	case "application/json", "":
		if ct == "" && IsAPI(r) {
			return CodeUnsupportedMediaType.New("send Content-Type: application/json")
		}
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(dst); err != nil {
			return jsonError(err)
		}
		if dec.More() {
			return CodeMalformedJSON.New("the body holds more than one JSON value")
		}
		if _, err := dec.Token(); err != io.EOF {
			return CodeMalformedJSON.New("the body holds more than one JSON value")
		}
		return nil
	case "application/x-www-form-urlencoded", "multipart/form-data":
		if IsAPI(r) {
			return CodeUnsupportedMediaType.New("the API takes application/json")
		}
		var err error
		if ct == "multipart/form-data" {
			err = r.ParseMultipartForm(MaxBody)
		} else {
			err = r.ParseForm()
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return CodeTooLarge.New(fmt.Sprintf("the body is larger than %d bytes", MaxBody))
			}
			return CodeMalformedForm.New("the form could not be read")
		}
		return formInto(r.PostForm, dst)
	default:
		return CodeUnsupportedMediaType.New("unsupported Content-Type " + ct)
	}
}

func jsonError(err error) error {
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return CodeTooLarge.New(fmt.Sprintf("the body is larger than %d bytes", MaxBody))
	case errors.As(err, &se):
		return CodeMalformedJSON.New(fmt.Sprintf("malformed JSON at byte %d", se.Offset))
	case errors.As(err, &te):
		return CodeMalformedJSON.New(fmt.Sprintf("field %s must be %s", te.Field, te.Type)).WithFields(FieldError{Field: te.Field, Code: FieldInvalidType, Message: "must be " + te.Type.String()})
	case errors.Is(err, io.EOF):
		return CodeMalformedJSON.New("the body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return CodeMalformedJSON.New("the body ends too early")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return CodeUnknownField.New("unknown field " + f).WithFields(FieldError{Field: f, Code: FieldUnknownField, Message: "not a field of this resource"})
	default:
		return CodeMalformedJSON.New("the body is not valid JSON")
	}
}

// formInto copies form values into the fields of a struct pointer, by
// their json tag names: strings take the first value, string slices take
// every value (a textarea's lines count as values), bools take on/true.
func formInto(form url.Values, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return CodeInternal.New("Internal error")
	}
	v = v.Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		vals, ok := form[name]
		if !ok {
			continue
		}
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.String:
			f.SetString(strings.TrimSpace(vals[0]))
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			var out []string
			for _, val := range vals {
				for _, line := range strings.Split(val, "\n") {
					if line = strings.TrimSpace(line); line != "" {
						out = append(out, line)
					}
				}
			}
			f.Set(reflect.ValueOf(out).Convert(f.Type()))
		case f.Kind() == reflect.Bool:
			f.SetBool(vals[0] == "on" || vals[0] == "true")
		}
	}
	return nil
}

// FieldError is one problem with one field.
type FieldError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

// Error is the one error type handlers return (RFC 9457 problem details).
type Error struct {
	Status  int
	Code    string
	Message string
	// InTheWay names what blocks a conflict by kind (store.ConflictError);
	// the problem body sends it as "Message|JSON" (docs/design.md §4).
	InTheWay map[string]any
	Fields   []FieldError
	Extra    map[string]any // extra members of the problem body
	Header   http.Header    // extra response headers (WWW-Authenticate)
}

func (e *Error) Error() string { return e.Message }

// Validation builds a 422 from a field -> message map.
func Validation(fields map[string]string) *Error {
	e := CodeValidationFailed.New("Some fields need attention.")
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e.Fields = append(e.Fields, FieldError{Code: FieldInvalid, Field: k, Message: fields[k]})
	}
	return e
}

// FieldMap turns an error's fields back into a map for a form view.
func FieldMap(err error) map[string]string {
	var e *Error
	out := map[string]string{}
	if errors.As(err, &e) {
		for _, f := range e.Fields {
			if f.Field != "" {
				out[f.Field] = f.Message
			}
		}
	}
	return out
}

// Problem is the JSON body of an error.
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail"`
	Errors []FieldError `json:"errors"`
}

// ProblemBody builds the problem body of e.
func ProblemBody(e *Error) map[string]any {
	errs := e.Fields
	if len(errs) == 0 {
		errs = []FieldError{{Code: e.Code, Message: conflictWire(e)}}
	}
	body := map[string]any{
		"type":   "https://trustframe.dev/problems/" + strings.ReplaceAll(e.Code, "_", "-"),
		"title":  http.StatusText(e.Status),
		"status": e.Status,
		"detail": e.Message,
		"errors": errs,
	}
	for k, v := range e.Extra {
		body[k] = v
	}
	return body
}

// conflictWire is the message of a conflict as the API sends it: the
// summary, then "|" and the JSON naming what is in the way, when there is
// something to name (docs/design.md §4). This is the only place the text
// is made.
func conflictWire(e *Error) string {
	if len(e.InTheWay) == 0 {
		return e.Message
	}
	payload, err := json.Marshal(e.InTheWay)
	if err != nil {
		return e.Message
	}
	return e.Message + "|" + string(payload)
}

// errorPage renders a browser error page: the message, and each field
// error as an item (named by its field) unless it only repeats the message.
// The shell names the signed-in administrator: a refusal swapped into a
// page keeps its header.
func errorPage(shell views.Shell, status int, detail string, fields []FieldError) templ.Component {
	items := make([]string, 0, len(fields))
	for _, f := range fields {
		if f.Field != "" {
			items = append(items, f.Field+": "+f.Message)
		} else if f.Message != detail {
			items = append(items, f.Message)
		}
	}
	return views.ErrorPage(shell, status, shell.Title, detail, items)
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

// AsError turns any error into an *Error: a refusal stays as it is, the
// store's busy and full errors are 503s (storeError), anything else is a 500.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, store.ErrBusy) || errors.Is(err, store.ErrFull) {
		errors.As(storeError(err, ""), &e)
		return e
	}
	return CodeInternal.New("Internal error")
}

// StatusClientClosedRequest is the status logged for a request whose client
// went away before it was answered (the convention nginx set).
const StatusClientClosedRequest = 499

// WriteError writes err as a problem body or an error page.
//
// A failure while the client has already gone away (its request context is
// cancelled, so the store's query was interrupted) is not the server's
// error: it is answered StatusClientClosedRequest, which nobody reads but
// the request log and the metrics do.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e := AsError(err)
	if e.Status >= 500 && r.Context().Err() != nil {
		w.WriteHeader(StatusClientClosedRequest)
		return
	}
	switch {
	case e.Code == "storage_full":
		LoggerFrom(r.Context()).ErrorContext(r.Context(), "the disk is full: a write was refused; make room on the database's disk",
			"err", err, "method", r.Method, "path", r.URL.Path)
	case e.Status >= 500:
		LoggerFrom(r.Context()).ErrorContext(r.Context(), "internal error", "err", err, "method", r.Method, "path", r.URL.Path)
	}
	for k, vs := range e.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	vary(w)
	if WantsJSON(r) {
		b, _ := json.Marshal(ProblemBody(e))
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(e.Status)
		_, _ = w.Write(append(b, '\n'))
		return
	}
	p := PrincipalFrom(r.Context())
	s := views.Shell{Title: http.StatusText(e.Status)}
	if p.Via == "session" {
		s.UserEmail, s.SuperUser = p.Email, p.IsSuperUser()
	}
	Render(w, r, e.Status, errorPage(s, e.Status, e.Message, e.Fields))
}

type templComponent = templ.Component

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

type jsonRaw = json.RawMessage
