package web_test

import (
	"database/sql"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// sessionRows snapshots the sessions table (token, expiry, data).
func sessionRows(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT token, expiry, data FROM sessions ORDER BY token`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var tok string
		var data []byte
		var exp float64
		if err := rows.Scan(&tok, &exp, &data); err != nil {
			t.Fatal(err)
		}
		b.WriteString(tok + " " + time.Unix(int64(exp), 0).String() + " " + hex.EncodeToString(data) + "\n")
	}
	return b.String()
}

// TestReadsNeverWrite: page views and API reads commit nothing; the
// session's idle expiry is extended at most once a minute; an idle session
// still ends after the idle timeout.
func TestReadsNeverWrite(t *testing.T) {
	clock := &testClock{t: time.Now()}
	env := webtest.Start(t, func(c *web.Config) { c.Now = clock.Now })
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	a := &api{t: t, base: env.URL, token: tok}
	resp, org := a.do("POST", "/organisations", `{"OrganisationName":"Reader","RegistrationNumber":"R1","CountryOfRegistration":"GB","Status":"Active"}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %v", resp.StatusCode, org)
	}
	oid := org["OrganisationId"].(string)

	get := func(path string) int {
		resp, err := c.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	pages := []string{"/", "/organisations", "/organisations/" + oid, "/organisations/" + oid + "/contacts", "/audit", "/references"}
	for _, p := range pages {
		if code := get(p); code != http.StatusOK {
			t.Fatalf("GET %s: %d", p, code)
		}
	}
	before, rows := env.DB.WriteVersion(), sessionRows(t, env.DB.SQL())
	for range 5 {
		for _, p := range pages {
			if code := get(p); code != http.StatusOK {
				t.Fatalf("GET %s: %d", p, code)
			}
		}
		for _, p := range []string{"/organisations", "/organisations/" + oid, "/audit", "/users/super"} {
			if resp, _ := a.do("GET", p, ""); resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /api%s: %d", p, resp.StatusCode)
			}
		}
		clock.Add(5 * time.Second)
	}
	if got := env.DB.WriteVersion(); got != before {
		t.Fatalf("%d commits during %d reads, want 0", got-before, 5*(len(pages)+4))
	}
	if got := sessionRows(t, env.DB.SQL()); got != rows {
		t.Fatalf("reads changed the sessions table:\nbefore %s\nafter  %s", rows, got)
	}

	// A minute on, the next page view extends the idle expiry once.
	clock.Add(time.Minute)
	get("/organisations")
	get("/organisations")
	if got := env.DB.WriteVersion(); got != before+1 {
		t.Fatalf("%d commits after a minute, want exactly 1 (the idle expiry extension)", got-before)
	}

	// Idle past the timeout: signed out.
	clock.Add(2*time.Hour + time.Minute)
	noRedirect := *c
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp2, err := noRedirect.Get(env.URL + "/organisations")
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusFound || !strings.HasPrefix(resp2.Header.Get("Location"), "/login") {
		t.Fatalf("idle session: status %d Location %q, want a redirect to /login", resp2.StatusCode, resp2.Header.Get("Location"))
	}
}
