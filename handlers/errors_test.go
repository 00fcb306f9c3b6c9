package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// Each refusal of the application layer is answered with one status and
// code, in one place (AsError): the API's problem body names each field
// with the refusal's code (invalid for a form's fields), and a busy
// refusal says when to try again.
func TestLayerErrorsMeetHTTPOnce(t *testing.T) {
	for _, c := range []struct {
		err       error
		status    int
		code      string
		fieldCode string
		header    string
	}{
		{directory.Fields{"LastName": "Last name is required."}.Err(), 422, "validation_failed", "invalid", ""},
		{directory.NotFound("Contact"), 404, "not_found", "", ""},
		{&directory.Error{Code: directory.CodeConflict, Message: "in use"}, 409, "conflict", "", ""},
		{&directory.Error{Code: directory.CodeApplicationNotActive, Message: "m", Fields: directory.Fields{"Status": "m"}}, 409, "application_not_active", "application_not_active", ""},
		{&directory.Error{Code: directory.CodeOrganisationNotActive, Message: "m"}, 409, "organisation_not_active", "", ""},
		{&directory.Error{Code: directory.CodeUnsupportedSigningAlg, Message: "m", Fields: directory.Fields{"signingAlg": "m"}}, 400, "unsupported_signing_alg", "unsupported_signing_alg", ""},
		{&directory.Error{Code: directory.CodeBusy, Message: "m"}, 503, "busy", "", "1"},
		{&directory.Error{Code: "no_such_code", Message: "m"}, 500, "internal", "", ""},
	} {
		e := AsError(c.err)
		if e.Status != c.status || e.Code != c.code {
			t.Errorf("%v: %d %s, want %d %s", c.err, e.Status, e.Code, c.status, c.code)
		}
		if c.fieldCode != "" && (len(e.Fields) != 1 || e.Fields[0].Code != c.fieldCode) {
			t.Errorf("%v: fields %+v, want one with code %s", c.err, e.Fields, c.fieldCode)
		}
		rec := httptest.NewRecorder()
		WriteError(rec, httptest.NewRequest(http.MethodGet, "/api/organisations", nil), c.err)
		if rec.Code != c.status || rec.Header().Get("Retry-After") != c.header {
			t.Errorf("%v: answered %d with Retry-After %q, want %d and %q", c.err, rec.Code, rec.Header().Get("Retry-After"), c.status, c.header)
		}
	}
}

// The payload goes on the wire as before: one JSON object of the kinds
// present, in name order, each record's members in the order they always
// had ("summary|payload", docs/design.md §4).
func TestConflictWireKeepsThePayloadShape(t *testing.T) {
	e := AsError(&directory.ConflictError{Message: "in use", InTheWay: directory.InTheWay{
		Roles:                []directory.RoleRef{{AuthorisationDomain: "Open Banking", Name: "PISP"}},
		Authorities:          []directory.AuthorityRef{{AuthorityID: "a1", AuthorityName: "FCA"}},
		RoleMetadataPolicies: []directory.PolicyRef{{PolicyID: "p1", Policy: "PISP / openid_relying_party"}},
	}})
	want := `In use|{"Authorities":[{"AuthorityId":"a1","AuthorityName":"FCA"}],"RoleMetadataPolicies":[{"Policy":"PISP / openid_relying_party","PolicyId":"p1"}],"Roles":[{"AuthorisationDomain":"Open Banking","Name":"PISP"}]}`
	if got := conflictWire(e); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := conflictWire(AsError(&directory.ConflictError{Message: "in use"})); got != "In use" {
		t.Fatalf("a conflict naming nothing: %s", got)
	}
}

// A store failure's log line holds the failure and the request; the
// client's answer is the "Internal error" problem, nothing more.
func TestInternalErrorIsLoggedNotSent(t *testing.T) {
	var log bytes.Buffer
	r := httptest.NewRequest(http.MethodPost, "/api/organisations/o1/contacts", nil)
	r = r.WithContext(WithLogger(r.Context(), slog.New(slog.NewTextHandler(&log, nil))))
	w := httptest.NewRecorder()
	WriteError(w, r, directory.Named(errors.New("disk I/O error"), "Contact"))
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", w.Code)
	}
	if !strings.Contains(log.String(), "disk I/O error") || !strings.Contains(log.String(), "/api/organisations/o1/contacts") {
		t.Errorf("the log line does not say what failed where: %s", log.String())
	}
	if body := w.Body.String(); strings.Contains(body, "disk") || !strings.Contains(body, `"detail":"Internal error"`) {
		t.Errorf("the client sees more than it should: %s", body)
	}
}

// The store's sentinels, wrapped or not, each map to one code.
func TestStoreSentinelsMapToTheirCodes(t *testing.T) {
	for err, want := range map[error]Code{
		store.ErrNotFound:                       CodeNotFound,
		store.ErrBusy:                           CodeBusy,
		store.ErrFull:                           CodeStorageFull,
		&store.ConflictError{Message: "in use"}: CodeConflict,
		&store.FieldError{Field: "Name", Message: "no"}: CodeValidationFailed,
	} {
		for _, e := range []*Error{AsError(err), AsError(fmt.Errorf("store: update flag: %w", err))} {
			if e.Code != want.Name || e.Status != want.Status {
				t.Errorf("%v: got %s %d, want %s %d", err, e.Code, e.Status, want.Name, want.Status)
			}
		}
	}
	if directory.Named(nil, "Flag") != nil {
		t.Error("Named(nil) is not nil")
	}
	if e := AsError(directory.Named(store.ErrNotFound, "Flag")); e.Message != "Flag not found" {
		t.Errorf("a missing flag is %q", e.Message)
	}
}

// A conflict's summary stands alone (the problem's detail, the line above
// a page's list of what is in the way), so it starts as a sentence does,
// whatever case the store wrote it in; names inside are left as written.
func TestConflictSummaryReadsAsASentence(t *testing.T) {
	for msg, want := range map[string]string{
		"key k1 is already retired":                          "Key k1 is already retired",
		"the platform would lose its last Active Super User": "The platform would lose its last Active Super User",
		`Contact type "Billing" is in use by 1 contact(s)`:   `Contact type "Billing" is in use by 1 contact(s)`,
		"élan exists": "Élan exists",
		"dana@example.com is already a Data Administrator": "dana@example.com is already a Data Administrator",
		"signingAlg ES256 is not enabled here":             "signingAlg ES256 is not enabled here",
		"k1: in use":                                       "k1: in use",
		"":                                                 "",
	} {
		if got := AsError(&store.ConflictError{Message: msg}).Message; got != want {
			t.Errorf("%q: got %q, want %q", msg, got, want)
		}
	}
}

// An error page shows its message as a sentence.
func TestErrorPageMessageReadsAsASentence(t *testing.T) {
	r := httptest.NewRequest("POST", "/organisations", nil)
	r.Header.Set("Accept", "text/html")
	w := httptest.NewRecorder()
	WriteError(w, r, CodeMalformedJSON.New("the body is empty"))
	if body := w.Body.String(); w.Code != 400 || !strings.Contains(body, "The body is empty") {
		t.Fatalf("%d %s", w.Code, body)
	}
}

// A busy database is a 503 that says to try again, not a 500.
func TestBusyIsA503WithRetryAfter(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteError(rec, httptest.NewRequest("POST", "/api/organisations", nil), fmt.Errorf("creating: %w", store.ErrBusy))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("%d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

// A busy database or an unreachable identity provider is a refusal the
// client is told to retry, and the log says what it was at WARN: neither
// is an "internal error" (an operator alerted on ERROR lines would be
// paged for contention, and would not learn what was busy).
func TestRetryableRefusalsAreLoggedAsWhatTheyAre(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("creating: %w", store.ErrBusy), "busy"},
		{CodeBusy.New("The signing keys are being changed; no SSA was issued. Try again in a moment."), "busy"},
		{CodeIDPUnavailable.New("The identity provider did not answer.").WithCause(errors.New("dial tcp 127.0.0.1:9: connect: connection refused")), "connection refused"},
	} {
		var logs bytes.Buffer
		r := httptest.NewRequest("GET", "/api/organisations", nil)
		r = r.WithContext(WithLogger(r.Context(), slog.New(slog.NewTextHandler(&logs, nil))))
		rec := httptest.NewRecorder()
		WriteError(rec, r, c.err)
		out := logs.String()
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(out, "level=WARN") || strings.Count(out, "\n") != 1 ||
			strings.Contains(out, "internal error") || !strings.Contains(out, c.want) || strings.Contains(rec.Body.String(), "127.0.0.1:9") {
			t.Fatalf("%v: %d, log %q, body %s: want 503, one WARN line naming %q, and the cause not sent", c.err, rec.Code, out, rec.Body, c.want)
		}
	}
}

// TestTwoMessagesOnOneFieldAreKeptApart: two problems of a role metadata
// policy ran together on the console ("one_of takes a JSON array
// essential takes true or false").
func TestTwoMessagesOnOneFieldAreKeptApart(t *testing.T) {
	err := &directory.Error{Code: directory.CodeInvalid, Message: "Some fields need attention.", More: []directory.Problem{
		{Field: "Policy", Code: "invalid_policy", Message: "client_name: one_of takes a JSON array"},
		{Field: "Policy", Code: "invalid_policy", Message: "client_name: essential takes true or false"},
		{Field: "Policy", Code: "invalid_policy", Message: "A sentence."},
		{Field: "Policy", Code: "invalid_policy", Message: "Another."},
	}}
	got := fieldMessages(err, "Policy")["Policy"]
	want := "client_name: one_of takes a JSON array; client_name: essential takes true or false; A sentence. Another."
	if got != want {
		t.Fatalf("the field reads %q, want %q", got, want)
	}
}
