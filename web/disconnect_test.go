package web_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestClientDisconnectIsNotA500: a request whose client has gone away
// (its context cancelled) while the store is read is logged as a
// disconnect at info level with status 499, not as an internal error.
func TestClientDisconnectIsNotA500(t *testing.T) {
	logs := &webtest.LogBuffer{}
	env := webtest.Start(t, func(c *web.Config) { c.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	// Two reads: the first with the role cached or not, the second surely
	// reaching the handler's store query.
	for range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := httptest.NewRequest("GET", env.URL+"/api/organisations", nil).WithContext(ctx)
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		env.Server.ServeHTTP(rec, req)
		if rec.Code != 499 {
			t.Fatalf("status %d, want 499 (client closed request): %s", rec.Code, rec.Body)
		}
	}
	out := logs.String()
	if strings.Contains(out, "level=ERROR") || !strings.Contains(out, "client disconnected") {
		t.Fatalf("log:\n%s", out)
	}
}
