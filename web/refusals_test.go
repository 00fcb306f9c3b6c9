package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEditFormRefusesToOverwriteAnotherChange: the organisation edit form
// carries the version it shows; a save after someone else's change is a
// 412 with the form again saying so (swapped in by htmx, at the form's
// address), and nothing is overwritten; a save of the current version goes
// through. What the form shows then: TestEditFormsKeepWhatWasTypedOverAnotherChange.
func TestEditFormRefusesToOverwriteAnotherChange(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+id+"/edit")
	etag, ok := doc.Find("input[name=IfMatch]").Attr("value")
	if !ok || etag == "" {
		t.Fatal("the edit form does not carry its version")
	}
	a.must(200, "PUT", "/organisations/"+id, strings.TrimSuffix(org("Acme Renamed"), "}")+`,"Status":"Pending"}`)
	form := url.Values{"OrganisationName": {"Acme Mine"}, "RegistrationNumber": {"REG-Acme"}, "CountryOfRegistration": {"GB"}, "Status": {"Pending"}, "IfMatch": {etag}}
	req, _ := http.NewRequest("POST", env.URL+"/organisations/"+id, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Boosted", "true")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != http.StatusPreconditionFailed || doc.Find("[data-testid=stale]").Length() != 1 ||
		!strings.Contains(doc.Find("[data-testid=stale]").Text(), "Someone else saved this") || resp.Header.Get("HX-Push-Url") != "false" {
		t.Fatalf("stale save: %d %q", resp.StatusCode, doc.Find("[data-testid=stale]").Text())
	}
	if got := a.must(200, "GET", "/organisations/"+id, "")["OrganisationName"]; got != "Acme Renamed" {
		t.Fatalf("overwritten: %v", got)
	}
	_, doc = page(t, c, env.URL+"/organisations/"+id+"/edit")
	form.Set("IfMatch", doc.Find("input[name=IfMatch]").AttrOr("value", ""))
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = c.PostForm(env.URL+"/organisations/"+id, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("current version: %d", resp.StatusCode)
	}
	if got := a.must(200, "GET", "/organisations/"+id, "")["OrganisationName"]; got != "Acme Mine" {
		t.Fatalf("after save: %v", got)
	}
}
