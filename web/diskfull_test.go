package web_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// fillDatabase makes the database full as a full disk would: no page can be
// added (PRAGMA max_page_count on every pooled connection), and the tables
// a sign-in writes (sessions, audit log) have no room left in their pages,
// so SQLite answers SQLITE_FULL to them.
func fillDatabase(t *testing.T, db *store.DB, tables ...string) {
	t.Helper()
	if db.Engine() == store.Postgres {
		t.Skip("a full disk is made with SQLite's max_page_count; on PostgreSQL disk_full (53100) is ErrFull by store.busy (TestBusyMapsPostgresErrors)")
	}
	ctx := context.Background()
	sqldb := db.SQL()
	sqldb.SetMaxIdleConns(8) // keep the connections that carry the pragma
	conns := make([]*sql.Conn, 8)
	for i := range conns {
		c, err := sqldb.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var pages int
	if err := conns[0].QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	for _, c := range conns {
		if _, err := c.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
			t.Fatal(err)
		}
	}
	fill := func(query string, args func(i int) []any) {
		fails := 0
		for i := 0; fails < 20; i++ {
			if i > 200_000 {
				t.Fatal("the database never filled up")
			}
			_, err := conns[0].ExecContext(ctx, query, args(i)...)
			switch {
			case err == nil:
				fails = 0
			case strings.Contains(err.Error(), "full"):
				fails++
			default:
				t.Fatal(err)
			}
		}
	}
	for _, table := range tables {
		switch table {
		case "sessions":
			fill(`INSERT INTO sessions(token, data, expiry) VALUES (?, x'00', 0)`, func(i int) []any { return []any{fmt.Sprintf("filler-%08d", i)} })
		case "audit_log":
			fill(`INSERT INTO audit_log(at, actor, action, subject_type, subject_id) VALUES ('', '', '', '', '')`, func(int) []any { return nil })
		default:
			t.Fatalf("no filler for %s", table)
		}
	}
}

// TestFullDiskIs503StorageFull: when SQLite answers SQLITE_FULL, a write is
// a 503 storage_full with Retry-After (not a 500), the log says the disk is
// full, and a sign-in says the same instead of failing later as "stale".
//
// Why it was "stale": when the session could not be saved, scs wrote the
// error under the headers of the redirect /login had already set, so the
// answer carried the Location of the identity provider; a client following
// it came back without any sign-in state in its session.
func TestFullDiskIs503StorageFull(t *testing.T) {
	var logs webtest.LogBuffer
	env := webtest.Start(t, func(c *web.Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	a := newAPI(t, env, "admin@example.com")
	storageFull := func(t *testing.T, what string, resp *http.Response, body string) {
		t.Helper()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "disk is full") || strings.Contains(body, "stale") {
			t.Errorf("%s on a full disk: %d Retry-After %q %.300s", what, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}

	// The audit log is full: every change, and the sign-in's record of itself, is refused.
	fillDatabase(t, env.DB, "audit_log")
	r, m := a.do("POST", "/organisations", org("Full Bank"))
	if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || m["type"] != "https://trustframe.dev/problems/storage-full" {
		t.Errorf("a write on a full disk: %d Retry-After %q %v", r.StatusCode, r.Header.Get("Retry-After"), m)
	}
	if !strings.Contains(logs.String(), "disk is full") {
		t.Errorf("no log line says the disk is full:\n%s", logs.String())
	}
	c := webtest.Browser()
	resp, err := c.Get(env.URL + "/login?login_hint=admin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Request.URL.Path, "/dev/idp/") {
		t.Fatalf("the sign-in form: %d %s", resp.StatusCode, resp.Request.URL)
	}
	resp, err = c.PostForm(resp.Request.URL.String(), formOf(t, resp))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	storageFull(t, "the sign-in callback", resp, string(body))

	// The sessions are full too: /login cannot keep its state. It answers
	// the error alone, without the redirect it had set.
	fillDatabase(t, env.DB, "sessions")
	noRedirect := webtest.Browser()
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = noRedirect.Get(env.URL + "/login?login_hint=admin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	storageFull(t, "/login", resp, string(body))
	if loc := resp.Header.Get("Location"); loc != "" || strings.Contains(string(body), "/dev/idp/authorize") {
		t.Errorf("/login failed but still sends the client on (Location %q)", loc)
	}
	// A browser stops at the error, with no session to come back to.
	resp, err = webtest.Browser().Get(env.URL + "/login?login_hint=admin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	storageFull(t, "a browser sign-in", resp, string(body))
}
