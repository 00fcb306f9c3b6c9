package handlers

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store"
)

// A store failure's log line names the store call; the client's answer
// is the same "Internal error" problem as before.
func TestDuringNamesTheStoreCallInTheLogOnly(t *testing.T) {
	var log bytes.Buffer
	r := httptest.NewRequest(http.MethodPost, "/api/organisations/o1/contacts", nil)
	r = r.WithContext(WithLogger(r.Context(), slog.New(slog.NewTextHandler(&log, nil))))
	w := httptest.NewRecorder()
	WriteError(w, r, storeError(during("CreateContact", errors.New("disk I/O error")), "Contact"))
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", w.Code)
	}
	if !strings.Contains(log.String(), "store.CreateContact: disk I/O error") {
		t.Errorf("the log line does not say what was being done: %s", log.String())
	}
	if body := w.Body.String(); strings.Contains(body, "CreateContact") || !strings.Contains(body, `"detail":"Internal error"`) {
		t.Errorf("the client sees more than before: %s", body)
	}
}

// Wrapping keeps the store's sentinels: each still maps to its code.
func TestDuringKeepsTheStoreSentinels(t *testing.T) {
	for err, want := range map[error]Code{
		store.ErrNotFound:                       CodeNotFound,
		store.ErrBusy:                           CodeBusy,
		store.ErrFull:                           CodeStorageFull,
		&store.ConflictError{Message: "in use"}: CodeConflict,
		&store.FieldError{Field: "Name", Message: "no"}: CodeValidationFailed,
	} {
		e := AsError(storeError(during("UpdateFlag", err), "Flag"))
		if e.Code != want.Name || e.Status != want.Status {
			t.Errorf("%v: got %s %d, want %s %d", err, e.Code, e.Status, want.Name, want.Status)
		}
	}
	if during("GetContact", nil) != nil {
		t.Error("during(nil) is not nil")
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
		if got := AsError(storeError(&store.ConflictError{Message: msg}, "Key")).Message; got != want {
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
