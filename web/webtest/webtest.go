// Package webtest starts a real trustframe server for tests and signs in
// through the development identity provider exactly as a browser or an
// external OAuth client would: over HTTP, with PKCE, no internal shortcuts.
package webtest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
	"github.com/trustframe/trustframe/web"
)

// Env is a running server and its database.
type Env struct {
	URL     string
	DB      *store.DB
	Server  *web.Server
	DataDir string
	HTTP    *httptest.Server
	// Handler is Server wrapped in the contract check (Validating):
	// what env.URL serves. Benchmarks get Server itself.
	Handler http.Handler
}

// ServeHTTP serves one request in process, through the contract check.
func (e *Env) ServeHTTP(w http.ResponseWriter, r *http.Request) { e.Handler.ServeHTTP(w, r) }

// Start runs a server on a fresh database with admin@example.com as the
// bootstrap Super User. mod may adjust the configuration. The database is
// a SQLite file, or with TRUSTFRAME_TEST_POSTGRES set a PostgreSQL database
// of its own (store/storetest).
func Start(t testing.TB, mod func(*web.Config)) *Env {
	t.Helper()
	return StartIn(t, t.TempDir(), mod)
}

// pgByDir keeps the PostgreSQL database of each data directory, so that a
// server started again in the same directory finds its data again.
var pgByDir sync.Map

// Database returns the database of the data directory dir: its SQLite file,
// or on PostgreSQL the database made for dir on first use.
func Database(t testing.TB, dir string) string {
	t.Helper()
	if !storetest.Postgres() {
		return filepath.Join(dir, "trustframe.db")
	}
	if u, ok := pgByDir.Load(dir); ok {
		return u.(string)
	}
	u := storetest.Path(t)
	pgByDir.Store(dir, u)
	t.Cleanup(func() { pgByDir.Delete(dir) })
	return u
}

// StartIn runs a server on the database of dir (created when missing).
func StartIn(t testing.TB, dir string, mod func(*web.Config)) *Env {
	t.Helper()
	return StartOn(t, dir, Database(t, dir), mod)
}

// StartOn runs a server with data directory dir on the database named by
// database (a SQLite file or a postgres:// URL).
func StartOn(t testing.TB, dir, database string, mod func(*web.Config)) *Env {
	t.Helper()
	return StartWith(t, dir, database, mod)
}

// StartWith is StartOn with options for the store (a short busy timeout,
// for a test that holds the database's write lock).
func StartWith(t testing.TB, dir, database string, mod func(*web.Config), opts ...store.Option) *Env {
	t.Helper()
	db, err := store.Open(context.Background(), database, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.EnsureSuperUser(context.Background(), "admin@example.com"); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	// The directory's CA is on, so that the route walks see /pki/* (a test
	// of the CA off sets PKI false).
	cfg := web.Config{BaseURL: base, DataDir: dir, PKI: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := web.NewServer(context.Background(), cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) }) // after the listener closes, before the database
	var h http.Handler = srv
	if _, bench := t.(*testing.B); !bench {
		h = Validating(t, srv)
	}
	ts.Config.Handler = h
	ts.Start()
	t.Cleanup(ts.Close)
	return &Env{URL: base, DB: db, Server: srv, DataDir: dir, HTTP: ts, Handler: h}
}

// PKCE returns a verifier and its S256 challenge.
func PKCE() (verifier, challenge string) {
	verifier = strings.Repeat("v", 10) + fmt.Sprint(time.Now().UnixNano()) + "-pkce-verifier-0123456789abcdef"
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// TokenResponse is the token endpoint's answer.
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	ExpiresIn    int    `json:"expires_in"`
}

// Authorize runs the authorization request of the public client
// trustframe-cli and submits the sign-in form for email; it returns the code.
func Authorize(t testing.TB, base, email, redirectURI, challenge string) string {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	q := url.Values{"response_type": {"code"}, "client_id": {"trustframe-cli"}, "redirect_uri": {redirectURI},
		"scope": {"openid email offline_access"}, "state": {"state-1234567890"}, "code_challenge": {challenge},
		"code_challenge_method": {"S256"}, "login_hint": {email}}
	resp, err := noRedirect.Get(base + "/dev/idp/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	form := readForm(t, resp)
	if form.Get("email") != email {
		t.Fatalf("sign-in form not pre-filled from login_hint: %q", form.Get("email"))
	}
	resp, err = noRedirect.PostForm(base+"/dev/idp/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode/100 != 3 {
		t.Fatalf("authorize: status %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := loc.Query().Get("state"); got != "state-1234567890" {
		t.Fatalf("state not returned: %q", got)
	}
	code := loc.Query().Get("code")
	if code == "" {
		t.Fatalf("no code in %s", loc)
	}
	return code
}

// readForm parses the sign-in page and returns its fields.
func readForm(t testing.TB, resp *http.Response) url.Values {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("sign-in page: status %d: %s", resp.StatusCode, b)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	v := url.Values{}
	doc.Find("form input").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		val, _ := s.Attr("value")
		v.Set(name, val)
	})
	return v
}

// Token obtains an access token for email through the code flow with PKCE.
// extra may set request headers on the token request (a DPoP proof).
func Token(t testing.TB, base, email string, extra http.Header) TokenResponse {
	t.Helper()
	verifier, challenge := PKCE()
	redirect := "http://127.0.0.1:53682/callback"
	code := Authorize(t, base, email, redirect, challenge)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {"trustframe-cli"}, "code_verifier": {verifier}}
	req, _ := http.NewRequest(http.MethodPost, base+"/dev/idp/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, vs := range extra {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("token: status %d: %s", resp.StatusCode, b)
	}
	var tr TokenResponse
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// Browser is an HTTP client with a cookie jar, like a browser.
func Browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 10 * time.Second}
}

// SignIn signs email in to the web console through /login and the
// development sign-in form; it returns the final response (the page after
// sign-in, or the 403 page).
func SignIn(t testing.TB, c *http.Client, base, email string) *http.Response {
	t.Helper()
	return SignInAt(t, c, base+"/login?login_hint="+url.QueryEscape(email), email)
}

// SignInAt starts a sign-in at start (a /login URL) that leads to a
// development sign-in form, possibly of another trustframe, and submits it.
func SignInAt(t testing.TB, c *http.Client, start, email string) *http.Response {
	t.Helper()
	resp, err := c.Get(start)
	if err != nil {
		t.Fatal(err)
	}
	action := resp.Request.URL.String()
	form := readForm(t, resp)
	form.Set("email", email)
	resp, err = c.PostForm(action, form)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
