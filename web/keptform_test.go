package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
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

// TestAnonymousFormPostsCannotFillTheSessionStore: a form posted without a
// session is kept in a new session, a database row, for anyone who posts.
// A form too large to be one of the console's is not kept, and neither is
// a form over the client's rate limit: no session is written (no cookie),
// and the answer is still the way to sign in.
func TestAnonymousFormPostsCannotFillTheSessionStore(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.RateLimit = 3 })
	post := func(body string) *http.Response {
		t.Helper()
		c := webtest.Browser()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		req, _ := http.NewRequest("POST", env.URL+"/organisations", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
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
	if resp := post(url.Values{"OrganisationName": {strings.Repeat("A", 512<<10)}}.Encode()); resp.Header.Get("Set-Cookie") != "" {
		t.Fatalf("a 512 KiB form was kept: %q", resp.Header.Get("Set-Cookie"))
	}
	small := url.Values{"OrganisationName": {"Acme"}}.Encode()
	for i := 0; i < 2; i++ {
		if resp := post(small); resp.Header.Get("Set-Cookie") == "" {
			t.Fatalf("post %d: a small form was not kept", i+1)
		}
	}
	if resp := post(small); resp.Header.Get("Set-Cookie") != "" {
		t.Fatal("a form over the rate limit was kept")
	}
}
