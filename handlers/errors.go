package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/a-h/templ"

	"unicode"
	"unicode/utf8"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/views"
)

// FieldError is one problem with one field.
type FieldError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	Beside  string `json:"-"` // the console's words beside the field (directory.FieldError)
}

// Error is the one error type handlers return (RFC 9457 problem details).
type Error struct {
	Status  int
	Code    string
	Message string
	// InTheWay names what blocks a conflict by kind (directory.ConflictError);
	// the problem body sends it as "Message|JSON" (docs/design.md §4).
	InTheWay directory.InTheWay
	Fields   []FieldError
	Extra    map[string]any // extra members of the problem body
	Header   http.Header    // extra response headers (WWW-Authenticate)
	// Cause is what made a server-side refusal (a dial error behind
	// idp_unavailable): logged by WriteError, never sent to the client.
	Cause error
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
	out := map[string]string{}
	if err == nil {
		return out
	}
	for _, f := range AsError(err).Fields {
		if f.Field != "" {
			out[f.Field] = f.Message
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
	if e.InTheWay.Empty() {
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

// AsError turns any error into an *Error. It is the one place where the
// application layer's refusals meet HTTP: fields that need attention are a
// 422 naming each, a conflict a 409 naming what is in the way, a missing
// record a 404, a busy or full database a 503 with Retry-After. Anything
// else is a 500.
func AsError(err error) *Error {
	var (
		e  *Error
		de *directory.Error
		fe *directory.FieldError
		ce *directory.ConflictError
	)
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &de):
		return fromLayer(de)
	case errors.As(err, &fe):
		return Validation(map[string]string{fe.Field: fe.Message})
	case errors.As(err, &ce):
		e := CodeConflict.New(sentence(ce.Message))
		e.InTheWay = ce.InTheWay
		return e
	case errors.Is(err, directory.ErrNotFound):
		return CodeNotFound.New("Not found")
	case errors.Is(err, directory.ErrBusy):
		return CodeBusy.New("The directory is busy with another change; nothing was changed. Try again in a moment.").
			WithHeader(http.Header{"Retry-After": {"1"}})
	case errors.Is(err, directory.ErrFull):
		return CodeStorageFull.New("The server's disk is full; nothing was changed. Try again once an operator has made room.").
			WithHeader(http.Header{"Retry-After": {"60"}})
	}
	return CodeInternal.New("Internal error")
}

// layerCodes answers each code of the application layer with one of ours.
var layerCodes = map[directory.Code]Code{
	directory.CodeInvalid:               CodeValidationFailed,
	directory.CodeNotFound:              CodeNotFound,
	directory.CodeConflict:              CodeConflict,
	directory.CodeApplicationNotActive:  CodeApplicationNotActive,
	directory.CodeOrganisationNotActive: CodeOrganisationNotActive,
	directory.CodeUnsupportedSigningAlg: CodeUnsupportedSigningAlg,
	directory.CodeBusy:                  CodeBusy,
	directory.CodeWebhookNotActive:      CodeWebhookNotActive,
	directory.CodeMalformedCSV:          CodeMalformedCSV,
	directory.CodeTooLarge:              CodeTooLarge,
	directory.CodeInvalidTransition:     CodeInvalidTransition,
	directory.CodeForbidden:             CodeForbidden,

	// A role metadata policy for an entity type trustframe does not accept.
	federation.CodeUnsupportedEntityType: CodeUnsupportedEntityType,
}

// fromLayer is the refusal of the application layer's e.
func fromLayer(de *directory.Error) *Error {
	c, ok := layerCodes[de.Code]
	switch {
	case !ok:
		return CodeInternal.New("Internal error").WithCause(fmt.Errorf("handlers: the layer's code %q has no status", de.Code))
	case c == CodeValidationFailed:
		e := Validation(de.Fields)
		if de.Message != "" {
			e.Message = de.Message
		}
		for _, p := range de.More {
			e.Fields = append(e.Fields, FieldError{Code: p.Code, Field: p.Field, Message: p.Message})
		}
		e.Extra = de.Extra
		return e
	case c == CodeConflict:
		return CodeConflict.New(sentence(de.Message))
	}
	e := c.New(de.Message)
	for _, name := range de.Fields.Names() {
		e.Fields = append(e.Fields, FieldError{Code: c.Name, Field: name, Message: de.Fields[name]})
	}
	if len(de.Extra) > 0 {
		e.Extra = de.Extra
	}
	if c == CodeBusy {
		e.Header = http.Header{"Retry-After": {"1"}}
	}
	return e
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
	case e.Code == CodeBusy.Name:
		// Contention, answered with Retry-After: worth watching, not an
		// error of the service.
		LoggerFrom(r.Context()).WarnContext(r.Context(), "busy: refused with 503 and Retry-After",
			"err", err, "method", r.Method, "path", r.URL.Path)
	case e.Code == CodeIDPUnavailable.Name:
		LoggerFrom(r.Context()).WarnContext(r.Context(), "the identity provider is unavailable: refused with 503",
			"err", err, "cause", e.Cause, "method", r.Method, "path", r.URL.Path)
	case e.Status >= 500:
		LoggerFrom(r.Context()).ErrorContext(r.Context(), "internal error", "err", err, "method", r.Method, "path", r.URL.Path)
	}
	// The refusal's own headers replace any the response carried already
	// under that name: the API group gives every answer a DPoP-Nonce, and
	// RFC 9449 §8 allows the header one value.
	for k, vs := range e.Header {
		w.Header().Del(k)
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	Vary(w)
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
		s.UserEmail, s.SuperUser, s.Can = p.Email, p.IsSuperUser(), CanOf(p)
	}
	Render(w, r, e.Status, errorPage(s, e.Status, sentence(e.Message), e.Fields))
}

// Code is one error code of the API with the HTTP status it is answered
// with. Every refusal names one of the codes below: the code is the last
// part of the problem body's type and errors[].code (docs/design.md §4).
type Code struct {
	Name   string
	Status int
}

// The error codes, each with its status: the one table.
var (
	// 400
	CodeBadForm               = Code{"bad_form", http.StatusBadRequest}
	CodeBadIdempotencyKey     = Code{"bad_idempotency_key", http.StatusBadRequest}
	CodeInvalidParameter      = Code{"invalid_parameter", http.StatusBadRequest}
	CodeInvalidRequest        = Code{"invalid_request", http.StatusBadRequest} // RFC 6750 §3.1
	CodeMalformedCSV          = Code{"malformed_csv", http.StatusBadRequest}
	CodeMalformedForm         = Code{"malformed_form", http.StatusBadRequest}
	CodeMalformedJSON         = Code{"malformed_json", http.StatusBadRequest}
	CodeSignInFailed          = Code{"sign_in_failed", http.StatusBadRequest}
	CodeUnknownField          = Code{"unknown_field", http.StatusBadRequest}
	CodeUnsupportedEntityType = Code{"unsupported_entity_type", http.StatusBadRequest}
	CodeUnsupportedSigningAlg = Code{"unsupported_signing_alg", http.StatusBadRequest}
	// 401: the bearer-token codes of RFC 6750 §3.1 and RFC 9449 §7.1
	CodeUnauthenticated  = Code{"unauthenticated", http.StatusUnauthorized}
	CodeInvalidToken     = Code{"invalid_token", http.StatusUnauthorized}
	CodeInvalidDPoPProof = Code{"invalid_dpop_proof", http.StatusUnauthorized}
	CodeUseDPoPNonce     = Code{"use_dpop_nonce", http.StatusUnauthorized}
	// 403
	CodeDevIDPLoopbackOnly = Code{"dev_idp_loopback_only", http.StatusForbidden}
	CodeForbidden          = Code{"forbidden", http.StatusForbidden}
	CodeNotAnAdministrator = Code{"not_an_administrator", http.StatusForbidden}
	// 404, 405, 409, 410, 412, 413, 415
	CodeNotFound              = Code{"not_found", http.StatusNotFound}
	CodeMethodNotAllowed      = Code{"method_not_allowed", http.StatusMethodNotAllowed}
	CodeApplicationNotActive  = Code{"application_not_active", http.StatusConflict}
	CodeOrganisationNotActive = Code{"organisation_not_active", http.StatusConflict}
	CodeConflict              = Code{"conflict", http.StatusConflict}
	CodeIdempotencyInProgress = Code{"idempotency_in_progress", http.StatusConflict}
	CodeInvalidTransition     = Code{"invalid_transition", http.StatusConflict}
	CodeWebhookNotActive      = Code{"webhook_not_active", http.StatusConflict}
	CodeRemovedIn260          = Code{"removed_in_2_6_0", http.StatusGone}
	CodeCursorGone            = Code{"cursor_gone", http.StatusGone}
	CodeStaleETag             = Code{"stale_etag", http.StatusPreconditionFailed}
	CodeTooLarge              = Code{"too_large", http.StatusRequestEntityTooLarge}
	CodeUnsupportedMediaType  = Code{"unsupported_media_type", http.StatusUnsupportedMediaType}
	// 421
	CodeMisdirected = Code{"misdirected_request", http.StatusMisdirectedRequest}
	// 422, 429
	CodeIdempotencyKeyReused = Code{"idempotency_key_reused", http.StatusUnprocessableEntity}
	CodeValidationFailed     = Code{"validation_failed", http.StatusUnprocessableEntity}
	CodeRateLimited          = Code{"rate_limited", http.StatusTooManyRequests}
	// 500, 503
	CodeInternal       = Code{"internal", http.StatusInternalServerError}
	CodeBusy           = Code{"busy", http.StatusServiceUnavailable}
	CodeIDPUnavailable = Code{"idp_unavailable", http.StatusServiceUnavailable}
	CodeStorageFull    = Code{"storage_full", http.StatusServiceUnavailable}
)

// The codes of one field's problem (errors[].code beside a field name);
// the status is the refusal's.
const (
	FieldInvalid        = "invalid"
	FieldInvalidType    = "invalid_type"
	FieldRequired       = "required"
	FieldUnknownField   = "unknown_field"
	FieldInvalidIssuer  = "invalid_issuer"
	FieldInvalidPolicy  = "invalid_policy"
	FieldReasonRequired = "reason_required"
)

// New is a refusal of this code.
func (c Code) New(msg string) *Error {
	return &Error{Status: c.Status, Code: c.Name, Message: msg}
}

// WithFields adds field problems to e.
func (e *Error) WithFields(f ...FieldError) *Error { e.Fields = append(e.Fields, f...); return e }

// WithCause keeps what made the refusal, for the log line (Error.Cause).
func (e *Error) WithCause(err error) *Error { e.Cause = err; return e }

// WithExtra adds members to e's problem body.
func (e *Error) WithExtra(m map[string]any) *Error { e.Extra = m; return e }

// WithHeader sets extra response headers of e.
func (e *Error) WithHeader(h http.Header) *Error { e.Header = h; return e }

// sentence starts a message that stands alone — an error page, a note in
// a page, a conflict's summary (also the problem's detail) — with a capital
// letter; the store and the API's other details are written to be read
// after a colon too.
func sentence(msg string) string {
	// Only a plain lower-case word is capitalised: a message may start
	// with a name as written (an e-mail address, signingAlg, a kid).
	word, _, _ := strings.Cut(msg, " ")
	if word == "" || strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLower(r) }) >= 0 {
		return msg
	}
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:]
}

// shownInPage reports whether a browser's refusal is shown in the page it
// came from: every refusal below 500.
func shownInPage(r *http.Request, err error) bool {
	return !WantsJSON(r) && AsError(err).Status < 500
}

// refusalText is a refusal said in one line, away from its fields (at the
// top of a page, in a flash): the message of each field, or the refusal's
// own. A message FormRefusal wrote to stand beside its field ("This field
// …") is said with the field's name instead.
func refusalText(e *Error) string {
	var parts []string
	for _, f := range e.Fields {
		msg := f.Message
		if rest, ok := strings.CutPrefix(msg, "This field "); ok && f.Field != "" {
			msg = f.Field + " " + rest
		}
		parts = append(parts, msg)
	}
	if len(parts) == 0 {
		return e.Message
	}
	return strings.Join(parts, " ")
}
