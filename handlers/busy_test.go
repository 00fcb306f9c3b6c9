package handlers

import (
	"fmt"
	"net/http"
	"net/http/httptest"
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
