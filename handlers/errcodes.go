package handlers

import (
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

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
