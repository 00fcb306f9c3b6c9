package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestConflictLeadsToWhatIsInTheWay: a refused change on Domains and Roles
// (disable a role that an organisation's claim holds) lists the claim in
// the way with a link to that organisation's Roles tab, where the claim is
// set Inactive. Before, the list gave the organisation's id only: a dead
// end unless the user copied the id into the search.
func TestConflictLeadsToWhatIsInTheWay(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	grant(t, su, oid, auth, "Payments", "PISP")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/authorisation-domains/Payments/roles/PISP", url.Values{"Type": {"Federation"}, "Status": {"Inactive"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("status %d", resp.StatusCode)
	}
	li := doc.Find("[data-testid=in-the-way] li")
	if li.Length() != 1 {
		t.Fatalf("%d items in the way", li.Length())
	}
	// The summary is announced (role=alert), on an element that may take
	// that role: an article may not (axe aria-allowed-role).
	if doc.Find("article[role]").Length() != 0 || !strings.Contains(doc.Find("[data-testid=conflict] [role=alert]").Text(), "is held by") {
		h, _ := doc.Find("[data-testid=conflict]").Html()
		t.Errorf("conflict box: %s", h)
	}
	href, _ := li.Find("a").Attr("href")
	if href != "/organisations/"+oid+"/authority-claims" {
		t.Errorf("the claim in the way links to %q, want its organisation's Roles tab", href)
	}
	// The link leads to a page that shows the claim and a way to end it.
	resp, err = c.Get(env.URL + href)
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != 200 || doc.Find(`[data-testid=claim-row][data-role=PISP]`).Length() != 1 {
		t.Errorf("the linked page (%d) does not show the PISP claim", resp.StatusCode)
	}

	// A contact type in use links to the contacts of its organisation.
	su.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Business","FirstName":"Ann","LastName":"Doe","EmailAddress":"ann@acme.example"}`)
	resp, err = c.PostForm(env.URL+"/references/contact-types/Business/delete", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	href, _ = doc.Find("[data-testid=in-the-way] li a").Attr("href")
	if resp.StatusCode != http.StatusConflict || href != "/organisations/"+oid+"/contacts" {
		t.Errorf("contact type in use: %d, link %q", resp.StatusCode, href)
	}
}
