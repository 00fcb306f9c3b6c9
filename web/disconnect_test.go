package web_test

import (
	"context"
	"encoding/json"
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

// TestAccessLogLine: every request leaves one line with its method, path,
// status, size, duration and request id, through the redacting handler
// (credentials in a URL are hidden, the rest is untouched).
func TestAccessLogLine(t *testing.T) {
	logs := &webtest.LogBuffer{}
	env := webtest.Start(t, func(c *web.Config) {
		c.Logger = slog.New(web.RedactingHandler(slog.NewJSONHandler(logs, nil)))
	})
	for _, path := range []string{"/healthz", "/no/such/page/smtp://user:secret@mail.example"} {
		req := httptest.NewRequest("GET", env.URL+path, nil)
		rec := httptest.NewRecorder()
		env.Server.ServeHTTP(rec, req)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		if m["msg"] == "http" {
			lines = append(lines, m)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("%d access lines, want 2:\n%s", len(lines), logs)
	}
	first := lines[0]
	if first["method"] != "GET" || first["path"] != "/healthz" || first["status"] != float64(200) || first["level"] != "INFO" ||
		first["bytes"].(float64) <= 0 || first["id"] == nil || first["id"] == "" || first["dur"] == nil || first["source"] != nil {
		t.Fatalf("access line %v", first)
	}
	if p := lines[1]["path"].(string); strings.Contains(p, "secret") || !strings.Contains(p, "REDACTED@mail.example") || lines[1]["status"] != float64(404) {
		t.Fatalf("access line of a path with credentials: %v", lines[1])
	}
}
