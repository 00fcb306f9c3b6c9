package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

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
