package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEditFormsKeepWhatWasTypedOverAnotherChange: every edit form with a
// version (organisations, applications, servers, contacts) carries it; a
// save after someone else's change is refused (412) with the form shown
// again — what was typed kept, what is stored now beside it, the changed
// fields marked — carrying the stored version, so that saving it again
// applies what was typed on top; the discard link is the edit page
// (issue 40).
func TestEditFormsKeepWhatWasTypedOverAnotherChange(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	good := discoveryServer(t, func(self string) string { return self })
	base := "/organisations/" + oid
	aid := a.must(201, "POST", base+"/softwarestatements", `{"ClientName":"Wallet"}`)["SoftwareStatementId"].(string)
	sid := a.must(201, "POST", base+"/authorisationservers", `{"CustomerFriendlyName":"Main","Issuer":"`+good+`"}`)["AuthorisationServerId"].(string)
	cid := a.must(201, "POST", base+"/contacts", `{"ContactType":"Technical","LastName":"Adams","EmailAddress":"tom@acme.example"}`)["ContactId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	for _, tc := range []struct {
		name, path, theirs     string // theirs: the other change, by the API
		theirField, theirValue string
		mineField, mineValue   string
	}{
		{"organisation", base, strings.TrimSuffix(org("Acme Renamed"), "}") + `,"Status":"Pending"}`, "OrganisationName", "Acme Renamed", "City", "Leeds"},
		{"application", base + "/softwarestatements/" + aid, `{"ClientName":"Wallet Two","Status":"Active"}`, "ClientName", "Wallet Two", "Version", "9.9"},
		{"server", base + "/authorisationservers/" + sid, `{"CustomerFriendlyName":"Main Two","Status":"Active","Issuer":"` + good + `"}`, "CustomerFriendlyName", "Main Two", "Description", "Mine"},
		{"contact", base + "/contacts/" + cid, `{"ContactType":"Technical","LastName":"Brown","EmailAddress":"tom@acme.example"}`, "LastName", "Brown", "Department", "Ops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, doc := page(t, c, env.URL+tc.path+"/edit")
			form := browserForm(doc, tc.path)
			old := form.Get("IfMatch")
			if old == "" {
				t.Fatal("the edit form carries no version")
			}
			if r, m := a.do("PUT", tc.path, tc.theirs); r.StatusCode != 200 {
				t.Fatalf("their change: %d %v", r.StatusCode, m)
			}
			form.Set(tc.mineField, tc.mineValue)
			status, doc := hxPost(t, c, env.URL+tc.path, form)
			if status != http.StatusPreconditionFailed || doc.Find("[data-testid=stale]").Length() != 1 {
				t.Fatalf("stale save: %d %s", status, doc.Find("main").Text())
			}
			row := doc.Find("[data-testid=stale-fields] tr[data-field=" + tc.theirField + "]")
			if row.AttrOr("data-changed", "") != "true" || strings.TrimSpace(row.Find("[data-testid=stale-stored]").Text()) != tc.theirValue {
				t.Fatalf("their change not shown: %q", row.Text())
			}
			mine := doc.Find("[data-testid=stale-fields] tr[data-field=" + tc.mineField + "]")
			if mine.AttrOr("data-changed", "") != "true" || strings.TrimSpace(mine.Find("[data-testid=stale-yours]").Text()) != tc.mineValue {
				t.Fatalf("what was typed not shown: %q", mine.Text())
			}
			if v := doc.Find("[name=" + tc.mineField + "]"); v.AttrOr("value", v.Text()) != tc.mineValue {
				t.Fatalf("the form lost what was typed: %q", v.AttrOr("value", v.Text()))
			}
			if href := doc.Find("[data-testid=stale-discard]").AttrOr("href", ""); href != tc.path+"/edit" {
				t.Fatalf("discard goes to %q", href)
			}
			if _, got := a.do("GET", tc.path, ""); got[tc.theirField] != tc.theirValue {
				t.Fatalf("overwritten: %v", got)
			}
			again := browserForm(doc, tc.path)
			if again.Get("IfMatch") == old || again.Get("IfMatch") == "" {
				t.Fatal("the form shown again does not carry the stored version")
			}
			if status, doc := postForm(t, c, env.URL+tc.path, again); status != http.StatusSeeOther {
				t.Fatalf("apply mine: %d %s", status, doc.Find("main").Text())
			}
			if _, got := a.do("GET", tc.path, ""); got[tc.mineField] != tc.mineValue {
				t.Fatalf("after apply mine: %v", got)
			}
		})
	}
}

// hxPost posts a form as htmx does and answers the status and the page.
func hxPost(t *testing.T, c *http.Client, u string, form url.Values) (int, *goquery.Document) {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Boosted", "true")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, docOf(t, resp)
}
