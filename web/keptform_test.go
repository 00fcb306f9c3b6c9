package web_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// TestFormSentAfterSessionExpiredComesBack: a form posted without a
// session changes nothing, leads to sign-in and then back to the page the
// form was on, with what was typed (secrets and the idempotency key left
// out) and a warning that says why sign-in was needed.
func TestFormSentAfterSessionExpiredComesBack(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	formPage := "/organisations/" + id + "/contacts/new"

	c := webtest.Browser() // no session: it expired
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, _ := http.NewRequest("POST", env.URL+"/organisations/"+id+"/contacts", strings.NewReader(url.Values{
		"ContactType": {"Business"}, "LastName": {"Adams"}, "EmailAddress": {"adams@acme.example"},
		"ClientSecret": {"s3cret"}, "IdempotencyKey": {"k"},
	}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Referer", env.URL+formPage)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || loc != "/login?return_to="+url.QueryEscape(formPage) {
		t.Fatalf("%d %q", resp.StatusCode, loc)
	}
	if l := a.must(200, "GET", "/organisations/"+id+"/contacts", ""); l["totalSize"] != 0.0 {
		t.Fatalf("saved without a session: %v", l)
	}
	c.CheckRedirect = nil
	resp = webtest.SignInAt(t, c, env.URL+loc+"&login_hint=admin%40example.com", "admin@example.com")
	defer resp.Body.Close()
	if resp.Request.URL.Path != formPage {
		t.Fatalf("after sign-in at %s", resp.Request.URL)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := doc.Find("#tf-kept-form").Attr("data-form")
	var kept struct {
		Action string              `json:"action"`
		Values map[string][]string `json:"values"`
	}
	if err := json.Unmarshal([]byte(raw), &kept); err != nil {
		t.Fatalf("kept form %q: %v", raw, err)
	}
	if kept.Action != "/organisations/"+id+"/contacts" || kept.Values["LastName"][0] != "Adams" || kept.Values["ContactType"][0] != "Business" {
		t.Fatalf("kept %+v", kept)
	}
	if _, ok := kept.Values["ClientSecret"]; ok || strings.Contains(raw, "s3cret") || kept.Values["IdempotencyKey"] != nil {
		t.Fatalf("kept a secret or the key: %s", raw)
	}
	if f := doc.Find("[data-testid=flash]"); !f.HasClass("tf-flash-warning") || !strings.Contains(f.Text(), "session had expired") {
		t.Fatalf("flash %q", f.Text())
	}
	// Said once.
	_, doc = page(t, c, env.URL+formPage)
	if doc.Find("#tf-kept-form").Length() != 0 {
		t.Fatal("the kept form is shown twice")
	}
}

// postWithoutSession posts body as a console form with no session, from
// the client named by xff (when the server trusts the test as its proxy),
// checks that the answer leads to sign-in, and returns the answer.
func postWithoutSession(t *testing.T, base, xff, body string) *http.Response {
	t.Helper()
	c := webtest.Browser()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, _ := http.NewRequest("POST", base+"/organisations", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login?return_to=") {
		t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return resp
}

// setSessionCookie is the session cookie an answer sets, nil when none.
func setSessionCookie(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if strings.HasSuffix(c.Name, "trustframe_session") {
			return c
		}
	}
	return nil
}

// TestAnonymousFormPostsCannotFillTheSessionStore: a form posted without a
// session is kept in a new session, a database row, for anyone who posts.
// A form too large to be one of the console's is not kept, and neither is
// a form over the client's rate limit: no session is written (no cookie),
// and the answer is still the way to sign in.
func TestAnonymousFormPostsCannotFillTheSessionStore(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.RateLimit = 3 })
	if resp := postWithoutSession(t, env.URL, "", url.Values{"OrganisationName": {strings.Repeat("A", 512<<10)}}.Encode()); setSessionCookie(resp) != nil {
		t.Fatalf("a 512 KiB form was kept: %q", resp.Header.Get("Set-Cookie"))
	}
	small := url.Values{"OrganisationName": {"Acme"}}.Encode()
	for i := 0; i < 2; i++ {
		if resp := postWithoutSession(t, env.URL, "", small); setSessionCookie(resp) == nil {
			t.Fatalf("post %d: a small form was not kept", i+1)
		}
	}
	if resp := postWithoutSession(t, env.URL, "", small); setSessionCookie(resp) != nil {
		t.Fatal("a form over the rate limit was kept")
	}
}

// TestAnonymousKeptFormIsShortLivedAndCappedPerClient: the session that
// keeps an anonymous form lives 15 minutes (time to sign in and come
// back), not a signed-in session's 12 hours, in the database as in the
// cookie; one client keeps at most 10 forms at once, an IPv6 client
// counted by its /64, whatever the sign-in rate limit allows.
func TestAnonymousKeptFormIsShortLivedAndCappedPerClient(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.RateLimit = 0; c.TrustedProxies = proxies(t, "127.0.0.1") })
	small := url.Values{"OrganisationName": {"Acme"}}.Encode()
	ck := setSessionCookie(postWithoutSession(t, env.URL, "2001:db8:1:2::1", small))
	if ck == nil || ck.MaxAge <= 0 || ck.MaxAge > 15*60+1 {
		t.Fatalf("the kept form's session cookie: %+v", ck)
	}
	at := func(d time.Duration) bool {
		t.Helper()
		db, err := store.Open(context.Background(), webtest.Database(t, env.DataDir), func() time.Time { return time.Now().Add(d) })
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		_, found, err := db.Sessions().FindCtx(context.Background(), ck.Value)
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	if !at(14*time.Minute) || at(16*time.Minute) {
		t.Fatalf("the kept form's session: alive at 14 min %v, at 16 min %v; want 15 minutes", at(14*time.Minute), at(16*time.Minute))
	}
	for i := 2; i <= 10; i++ {
		if setSessionCookie(postWithoutSession(t, env.URL, fmt.Sprintf("2001:db8:1:2::%x", i), small)) == nil {
			t.Fatalf("form %d of the /64 was not kept", i)
		}
	}
	if resp := postWithoutSession(t, env.URL, "2001:db8:1:2:ffff::11", small); setSessionCookie(resp) != nil {
		t.Fatal("an 11th form of the same /64 was kept")
	}
	if setSessionCookie(postWithoutSession(t, env.URL, "2001:db8:1:3::1", small)) == nil {
		t.Fatal("another /64 was refused with the first")
	}
	if setSessionCookie(postWithoutSession(t, env.URL, "203.0.113.7", small)) == nil {
		t.Fatal("an IPv4 client was refused with the /64")
	}
}
