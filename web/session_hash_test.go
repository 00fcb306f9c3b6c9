package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestSessionTokensAreStoredHashed: the database holds the SHA-256 of a
// session token, never the token itself, so a copy of the database (a
// backup) signs nobody in; a row written with a raw token before this
// change no longer matches (its holder signs in again).
func TestSessionTokensAreStoredHashed(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	req, _ := http.NewRequest("GET", env.URL+"/", nil)
	var token string
	for _, ck := range c.Jar.Cookies(req.URL) {
		if ck.Name == "trustframe_session" {
			token = ck.Value
		}
	}
	if token == "" {
		t.Fatal("no session cookie")
	}
	ctx := context.Background()
	count := func(q string, args ...any) int {
		var n int
		if err := env.DB.SQL().QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	sum := sha256.Sum256([]byte(token))

	if n := count(`SELECT COUNT(*) FROM sessions WHERE token = ?`, token); n != 0 {
		t.Errorf("the raw session token is in the database")
	}
	if n := count(`SELECT COUNT(*) FROM sessions WHERE token = ?`, hex.EncodeToString(sum[:])); n != 1 {
		t.Errorf("the token's hash is not in the database (%d rows)", n)
	}
	// The session works.
	resp, err := c.Get(env.URL + "/organisations")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/organisations" {
		t.Fatalf("signed-in page: %d %s", resp.StatusCode, resp.Request.URL)
	}
	// A row stored raw (before hashing) is not a session any more.
	if _, found, err := env.DB.Sessions().FindCtx(ctx, token); err != nil || !found {
		t.Fatalf("FindCtx of the live token: %v %v", found, err)
	}
	if _, err := env.DB.SQL().ExecContext(ctx, `UPDATE sessions SET token = ? WHERE token = ?`, token, hex.EncodeToString(sum[:])); err != nil {
		t.Fatal(err)
	}
	if _, found, err := env.DB.Sessions().FindCtx(ctx, token); err != nil || found {
		t.Errorf("a raw-token row still matches: %v %v", found, err)
	}
}
