package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

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
	if next := doc.Find("[data-testid=in-the-way-next]").Text(); !strings.Contains(next, "then try again") {
		t.Errorf("the conflict does not say what to do next: %q", next)
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

// TestInTheWayNamesWhatAPersonRecognises: when a domain, role or
// authority that claims use cannot be disabled or deleted, and when an
// Exclusive role conflicts on the Roles tab, the list of what is in the
// way names the organisation (linked to its Roles tab), the domain and
// role and the authority. Before, each line read "Claim:
// AuthorisationDomain Payments, ClaimId 9f…, OrganisationId 4c…, Role
// PISP": ids no one recognises. The API's payload keeps its fields and
// gains the names.
func TestInTheWayNamesWhatAPersonRecognises(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme Bank"))["OrganisationId"].(string)
	claim := grant(t, su, oid, auth, "Payments", "PISP")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	post := func(path string, form url.Values) *goquery.Document {
		t.Helper()
		return postRefused(t, c, env.URL+path, form)
	}
	// claimLine checks the line of the Acme Bank claim: its words, no ids,
	// and the link to the organisation's Roles tab.
	claimLine := func(what string, doc *goquery.Document) {
		t.Helper()
		var line *goquery.Selection
		doc.Find("[data-testid=in-the-way] li").Each(func(_ int, li *goquery.Selection) {
			if strings.Contains(li.Text(), "Acme Bank") {
				line = li
			}
		})
		if line == nil {
			t.Errorf("%s: no line names Acme Bank: %q", what, doc.Find("[data-testid=in-the-way]").Text())
			return
		}
		text := strings.Join(strings.Fields(line.Text()), " ")
		for _, want := range []string{"Acme Bank", "Payments", "PISP", "Central Bank"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the line %q does not name %s", what, text, want)
			}
		}
		for _, id := range []string{claim, oid, auth} {
			if strings.Contains(text, id) {
				t.Errorf("%s: the line %q shows the id %s", what, text, id)
			}
		}
		if href, _ := line.Find("a").Attr("href"); href != "/organisations/"+oid+"/authority-claims" {
			t.Errorf("%s: the organisation links to %q", what, href)
		}
	}
	noIDs := func(what string, doc *goquery.Document) {
		t.Helper()
		text := doc.Find("[data-testid=in-the-way]").Text()
		for _, id := range []string{claim, oid, auth} {
			if strings.Contains(text, id) {
				t.Errorf("%s: the list shows the id %s: %q", what, id, text)
			}
		}
	}

	doc := post("/references/authorisation-domains/Payments/roles/PISP", url.Values{"Type": {"Federation"}, "Status": {"Inactive"}})
	claimLine("disable role", doc)
	doc = post("/references/authorisation-domains/Payments", url.Values{"Status": {"Inactive"}})
	claimLine("disable domain", doc)
	doc = post("/references/authorities/"+auth, url.Values{"AuthorityName": {"Central Bank"}, "AuthorityCode": {"CB"}, "Country": {"GB"},
		"AuthorisationDomains": {"Payments"}, "Status": {"Inactive"}})
	claimLine("disable authority", doc)
	doc = post("/references/authorities/"+auth+"/delete", url.Values{})
	claimLine("delete authority", doc)
	doc = post("/references/authorisation-domains/Payments/roles/PISP/delete", url.Values{})
	claimLine("delete role", doc)
	doc = post("/references/authorisation-domains/Payments/delete", url.Values{})
	claimLine("delete domain", doc)
	noIDs("delete domain", doc)
	// The domain's roles and authority are named too, not as ids.
	all := strings.Join(strings.Fields(doc.Find("[data-testid=in-the-way]").Text()), " ")
	for _, want := range []string{"Role: Payments — AISP", "Authority: Central Bank"} {
		if !strings.Contains(all, want) {
			t.Errorf("delete domain: the list %q lacks %q", all, want)
		}
	}

	// The Roles tab: the Exclusive role refused, the claim in the way named.
	doc = post("/organisations/"+oid+"/authority-claims", url.Values{"AuthorityId": {auth}, "DomainRole": {"Payments/EXCL"}, "Status": {"Active"}})
	claimLine("exclusive claim", doc)

	// The API keeps its payload's fields (conflictClaims checks them) and
	// adds the names.
	resp, m := su.do("PUT", "/references/authorisation-domains/Payments/roles/PISP", `{"Type":"Federation","Status":"Inactive"}`)
	if resp.StatusCode != 409 {
		t.Fatalf("API: %d", resp.StatusCode)
	}
	if ids := conflictClaims(t, m); len(ids) != 1 || ids[0] != claim {
		t.Errorf("API payload claims %v", ids)
	}
	_, payload, _ := strings.Cut(m["errors"].([]any)[0].(map[string]any)["message"].(string), "|")
	var p struct {
		Claims []map[string]any
	}
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"ClaimId": claim, "OrganisationId": oid, "OrganisationName": "Acme Bank", "AuthorisationDomain": "Payments", "Role": "PISP",
		"AuthorityId": auth, "AuthorityName": "Central Bank", "Status": "Active"}
	for k, v := range want {
		if p.Claims[0][k] != v {
			t.Errorf("API payload %s = %v, want %v", k, p.Claims[0][k], v)
		}
	}
}
