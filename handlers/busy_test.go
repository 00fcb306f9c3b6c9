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

	"github.com/trustframe/trustframe/store"
)

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
