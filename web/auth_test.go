package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

func TestWebSignInAsSuperUser(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	resp := webtest.SignIn(t, c, env.URL, "admin@example.com")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/" {
		t.Fatalf("after sign-in: %d %s", resp.StatusCode, resp.Request.URL)
	}
	doc, _ := goquery.NewDocumentFromReader(resp.Body)
	if got := doc.Find(`[data-testid=current-user]`).Text(); got != "admin@example.com" {
		t.Fatalf("current user %q", got)
	}
	if doc.Find(`[data-testid=nav-reference-data]`).Length() != 1 {
		t.Fatal("a Super User must see Reference Data")
	}
	// The session cookie: HttpOnly, SameSite=Lax, not Secure on loopback http.
	var found bool
	for _, ck := range resp.Request.Response.Cookies() {
		if ck.Name == "trustframe_session" {
			found = true
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure {
				t.Fatalf("cookie flags: %+v", ck)
			}
		}
	}
	if !found {
		t.Fatal("no session cookie set at sign-in")
	}
	recs, _, _ := env.DB.ListAudit(context.Background(), store.AuditFilter{Action: "login"})
	if len(recs) != 1 || recs[0].Actor != "admin@example.com" {
		t.Fatalf("login audit: %+v", recs)
	}
}

func TestSessionTokenRenewedAtSignInAndOut(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	cookie := func() string {
		req, _ := http.NewRequest("GET", env.URL+"/", nil)
		for _, ck := range c.Jar.Cookies(req.URL) {
			if ck.Name == "trustframe_session" {
				return ck.Value
			}
		}
		return ""
	}
	resp, err := c.Get(env.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	before := cookie()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	during := cookie()
	if before == "" || during == "" || before == during {
		t.Fatalf("token not renewed at sign-in: %q -> %q", before, during)
	}
	resp, err = c.PostForm(env.URL+"/logout", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if after := cookie(); after == during {
		t.Fatal("token not renewed at sign-out")
	}
	// Signed out: a page asks to sign in again.
	noFollow := *c
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = noFollow.Get(env.URL + "/organisations")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("after sign-out: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestSignInRefusedForNonAdministrator(t *testing.T) {
	env := webtest.Start(t, nil)
	resp := webtest.SignIn(t, webtest.Browser(), env.URL, "stranger@example.com")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "stranger@example.com is not an active administrator") {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	// The refusal's address is its own, not the callback's with its code.
	if resp.Request.URL.Path != "/login/refused" || resp.Request.URL.RawQuery != "" {
		t.Fatalf("the refusal is shown at %s", resp.Request.URL)
	}
	tok := webtest.Token(t, env.URL, "stranger@example.com", nil)
	r, body := do(t, "GET", env.URL+"/api/audit", tok.AccessToken, "")
	if r.StatusCode != http.StatusForbidden || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("API: %d %s", r.StatusCode, body)
	}
}

func TestCallbackWithoutStateIsRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	resp, err := c.Get(env.URL + "/auth/callback?code=abc&state=forged")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestLoginReturnToStaysOnSite(t *testing.T) {
	env := webtest.Start(t, nil)
	// Browsers read a backslash as a slash: "/\\evil.example" is another
	// site, also when it appears only once http.Redirect has removed the
	// dot segments before it.
	for _, returnTo := range []string{"//evil.example/x", "/\\evil.example", "/a/../\\evil.example", "/./\\evil.example", "/x/..\\/evil.example"} {
		c := webtest.Browser()
		resp, err := c.Get(env.URL + "/login?return_to=" + url.QueryEscape(returnTo))
		if err != nil {
			t.Fatal(err)
		}
		form := url_values_from(t, resp)
		resp, err = c.PostForm(env.URL+"/dev/idp/authorize", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Request.URL.Host != strings.TrimPrefix(env.URL, "http://") || resp.Request.URL.Path != "/" {
			t.Errorf("return_to %q: landed on %s", returnTo, resp.Request.URL)
		}
	}
}

func url_values_from(t *testing.T, resp *http.Response) map[string][]string {
	t.Helper()
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	v := map[string][]string{}
	doc.Find("form input").Each(func(_ int, s *goquery.Selection) {
		n, _ := s.Attr("name")
		val, _ := s.Attr("value")
		v[n] = []string{val}
	})
	v["email"] = []string{"admin@example.com"}
	return v
}

func TestDevIdPSignInFormValidatesEmail(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	resp, err := c.Get(env.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if !strings.Contains(doc.Find(`[data-testid=dev-idp-banner]`).Text(), "development") {
		t.Fatal("the development sign-in page must say it is for development")
	}
	form := map[string][]string{}
	doc.Find("form input").Each(func(_ int, s *goquery.Selection) {
		n, _ := s.Attr("name")
		val, _ := s.Attr("value")
		form[n] = []string{val}
	})
	form["email"] = []string{"not-an-email"}
	resp, err = c.PostForm(env.URL+"/dev/idp/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(b), "Enter an e-mail address") {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestDevIdPIsLoopbackOnly(t *testing.T) {
	env := webtest.Start(t, nil)
	req, _ := http.NewRequest("GET", "/dev/idp/.well-known/openid-configuration", nil)
	req.RemoteAddr = "203.0.113.9:4000"
	rec := newRecorder()
	env.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("remote client: %d", rec.Code)
	}
	req.RemoteAddr = "127.0.0.1:4000"
	rec = newRecorder()
	env.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("loopback client: %d", rec.Code)
	}
	var doc map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &doc)
	if doc["issuer"] != env.URL+"/dev/idp" {
		t.Fatalf("issuer %v", doc["issuer"])
	}
}

func TestDevIdPAllowRemote(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.DevIdPAllowRemote = true })
	req, _ := http.NewRequest("GET", "/dev/idp/.well-known/openid-configuration", nil)
	req.RemoteAddr = "203.0.113.9:4000"
	rec := newRecorder()
	env.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("remote client with --dev-idp-allow-remote: %d", rec.Code)
	}
}

// Issue 14 point 12: a callback's error_description is the identity
// provider's text only when the callback belongs to a sign-in started here
// (its state matches); otherwise anyone could put words on this site's page.
func TestCallbackErrorDescriptionOnlyWithMatchingState(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	resp, err := c.Get(env.URL + "/auth/callback?error=access_denied&error_description=Call+%2B1-555-0100+to+restore+your+account")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(string(b), "555-0100") || strings.Contains(string(b), "access_denied") {
		t.Fatalf("forged callback: %d %s", resp.StatusCode, b)
	}
	// A sign-in started here, refused by the provider: its words are shown.
	noFollow := *c
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = noFollow.Get(env.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	state := loc.Query().Get("state")
	if state == "" {
		t.Fatalf("no state in %s", loc)
	}
	resp, err = c.Get(env.URL + "/auth/callback?error=access_denied&error_description=The+user+cancelled&state=" + url.QueryEscape(state))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "The user cancelled") {
		t.Fatalf("genuine refusal: %d %s", resp.StatusCode, b)
	}
}

// TestSignOutWithoutSessionWritesNone: anyone can post to /logout; without
// a session there is nothing to end, and no session is made for it (each
// would be a row in the database).
func TestSignOutWithoutSessionWritesNone(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.PostForm(env.URL+"/logout", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || resp.Header.Get("Set-Cookie") != "" {
		t.Fatalf("%d %q, Set-Cookie %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Set-Cookie"))
	}
}

// TestSessionCookieSecureOffLoopback: behind an https base URL (or a plain
// http one that is not loopback) the session cookie is Secure, HttpOnly
// and SameSite=Lax, named with the __Host- prefix (Path=/, no Domain),
// and pages say HSTS only over https.
func TestSessionCookieSecureOffLoopback(t *testing.T) {
	for _, base := range []string{"https://directory.example", "http://directory.example"} {
		env := webtest.Start(t, func(c *web.Config) { c.BaseURL, c.DevIdPAllowRemote = base, true })
		c := webtest.Browser()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := c.Get(env.URL + "/login")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var found bool
		for _, ck := range resp.Cookies() {
			if ck.Name == "__Host-trustframe_session" {
				found = true
				if !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Domain != "" {
					t.Errorf("%s: cookie flags %+v", base, ck)
				}
			}
		}
		if !found {
			t.Errorf("%s: no session cookie at /login", base)
		}
		if hsts := resp.Header.Get("Strict-Transport-Security"); (hsts != "") != strings.HasPrefix(base, "https:") {
			t.Errorf("%s: Strict-Transport-Security %q", base, hsts)
		}
	}
}

// TestLoopbackServerRefusesOtherHosts: behind a loopback base URL, with
// the development identity provider on, a request naming another host (a
// name a web page pointed at 127.0.0.1: DNS rebinding) is 421
// misdirected_request, the development sign-in included; loopback names
// are served. With a real identity provider no Host is refused.
func TestLoopbackServerRefusesOtherHosts(t *testing.T) {
	idp := webtest.Start(t, nil)
	external := webtest.Start(t, func(c *web.Config) {
		c.OIDCIssuer, c.OIDCClientID = idp.URL+"/dev/idp", "trustframe-cli"
		c.APIAudience = idp.URL + "/api"
	})
	req, _ := http.NewRequest("GET", external.URL+"/healthz", nil)
	req.Host = "rebound.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("with a real identity provider, another Host: %v %v", resp, err)
	}
	env := webtest.Start(t, nil)
	_, port, _ := strings.Cut(strings.TrimPrefix(env.URL, "http://"), ":")
	for host, want := range map[string]int{
		"127.0.0.1:" + port:        200,
		"localhost:" + port:        200,
		"[::1]:" + port:            200,
		"rebound.example:" + port:  421,
		"rebound.example":          421,
		"127.0.0.1.nip.io:" + port: 421,
	} {
		for _, path := range []string{"/healthz", "/dev/idp/.well-known/openid-configuration", "/api/participants"} {
			req, _ := http.NewRequest("GET", env.URL+path, nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("Host %s %s: %d, want %d: %s", host, path, resp.StatusCode, want, body)
			}
			if want == 421 && path == "/api/participants" && !strings.Contains(string(body), "misdirected_request") {
				t.Errorf("Host %s: no problem body: %s", host, body)
			}
		}
	}
}

// TestKelvinSignTokenIsNotTheASCIIAdministrator: an upstream account
// \u212Aate@example.com (KELVIN SIGN) is another person than the Super User
// kate@example.com; strings.ToLower made it the same.
func TestKelvinSignTokenIsNotTheASCIIAdministrator(t *testing.T) {
	op := newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	bindGroups(t, admin, op, "Corp", `[]`)
	admin.must(201, "POST", "/users/super", `{"Email":"kate@example.com","Status":"Active"}`)
	supers := env.URL + "/api/users/super"
	if st, b := status(t, op.accessToken("KATE@example.com", nil), supers); st != 200 {
		t.Fatalf("ASCII case: %d %s", st, b)
	}
	if st, b := status(t, op.accessToken("\u212Aate@example.com", nil), supers); st != 403 {
		t.Fatalf("Kelvin sign: %d %s", st, b)
	}
}

// TestForbiddenPageOfASignedInAdministrator: a Data Administrator who
// opens Reference Data is refused (403), and the page says what to do: ask
// a Super User, or go back to the console. It told her to "ask a Super
// User to add your e-mail" (hers is added: she is signed in with it) and
// offered only "Sign out and use another e-mail": a dead end.
func TestForbiddenPageOfASignedInAdministrator(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/users/data-administrators", `{"Email":"da@example.com"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "da@example.com").Body.Close()
	for _, p := range []string{"/references", "/references/webhooks"} {
		resp, err := c.Get(env.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: status %d, want 403", p, resp.StatusCode)
		}
		page := strings.Join(strings.Fields(doc.Find("[data-testid=error-page]").Text()), " ")
		if strings.Contains(page, "add your e-mail") {
			t.Errorf("%s: a signed-in administrator is told to have her e-mail added: %q", p, page)
		}
		if !strings.Contains(page, "Super User") {
			t.Errorf("%s: the page does not say who can give access: %q", p, page)
		}
		if doc.Find(`[data-testid=error-page] a[href="/"]`).Length() == 0 {
			t.Errorf("%s: no way back to the console: %q", p, page)
		}
	}
}

// TestExpiredTokenSaysWhenOnEveryRequest: a token the service verified
// before and that has expired since is refused in the same words as one
// seen first after its expiry ("it expired at …; get a new one"), not in
// go-oidc's own ("oidc: token is expired").
func TestExpiredTokenSaysWhenOnEveryRequest(t *testing.T) {
	clock := &testClock{t: time.Now()}
	env := webtest.Start(t, func(c *web.Config) { c.Now = clock.Now })
	a := newAPI(t, env, "admin@example.com")
	a.must(200, "GET", "/organisations", "")
	clock.Add(time.Hour)
	for i := 0; i < 2; i++ {
		r, m := a.do("GET", "/organisations", "")
		if d, _ := m["detail"].(string); r.StatusCode != 401 || !strings.Contains(d, "it expired at ") || strings.Contains(d, "oidc") {
			t.Errorf("request %d after expiry: %d %q, want 401 saying when it expired", i+1, r.StatusCode, d)
		}
	}
}
