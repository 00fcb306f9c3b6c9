package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestConsoleCountryInAnyCase: a country typed "gb" in a console form is
// GB (the walk's first stumble); the API keeps its strict capitals.
func TestConsoleCountryInAnyCase(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r, err := c.PostForm(env.URL+"/organisations", url.Values{"OrganisationName": {"Lower Bank"}, "RegistrationNumber": {"L-1"}, "CountryOfRegistration": {" gb "}})
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("the form with country gb: %d", r.StatusCode)
	}
	got := a.must(200, "GET", "/organisations?q=Lower", "")["content"].([]any)[0].(map[string]any)
	if got["CountryOfRegistration"] != "GB" {
		t.Fatalf("CountryOfRegistration %v, want GB", got["CountryOfRegistration"])
	}
	a.must(422, "POST", "/organisations", `{"OrganisationName":"Api Bank","RegistrationNumber":"A-1","CountryOfRegistration":"gb"}`)
}

// TestOrganisationHeaderReadsAsWords: the line under an organisation's
// name reads "12345678 · GB · Pending"; the status word was glued to the
// dot ("GB ·Pending").
func TestOrganisationHeaderReadsAsWords(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", `{"OrganisationName":"Acme","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`)["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/organisations/" + oid)
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	line := strings.Join(strings.Fields(doc.Find("hgroup p").First().Text()), " ")
	if !strings.HasPrefix(line, "12345678 · GB · ") {
		t.Errorf("header line %q", line)
	}
}

// TestOrganisationListRoleFilterNamesTheDomain: the organisation list's
// Role filter offered role names only ("PISP"), one option for the PISP
// of Payments and the PISP of Data, and its Role= matched both; the list
// showed no roles. The filter now offers "Payments — PISP" and "Data —
// PISP" (and each domain's "any role"), sends AuthorisationDomain= and
// Role=, and the list has a Roles column of the Active claims. The API's
// Role= alone still matches the role in every domain.
func TestOrganisationListRoleFilterNamesTheDomain(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	su.must(201, "POST", "/references/authorisation-domains/Data/roles", `{"Name":"PISP","Type":"Federation"}`)
	dataAuth := su.must(201, "POST", "/references/authorities", `{"AuthorityName":"Data Office","AuthorityCode":"DO","Country":"GB","AuthorisationDomains":["Data"]}`)["AuthorityId"].(string)
	acme := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	beta := su.must(201, "POST", "/organisations", org("Beta"))["OrganisationId"].(string)
	su.must(201, "POST", "/organisations", org("Gamma"))
	grant(t, su, acme, auth, "Payments", "PISP")
	ended := grant(t, su, acme, auth, "Payments", "AISP")
	su.must(200, "PUT", "/organisations/"+acme+"/authority-claims/"+ended, `{"Status":"Inactive"}`)
	grant(t, su, beta, dataAuth, "Data", "PISP")

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations")
	opts := map[string]string{}
	doc.Find("[data-testid=role-filter] option").Each(func(_ int, o *goquery.Selection) {
		opts[strings.TrimSpace(o.Text())] = o.AttrOr("value", "")
	})
	for label, value := range map[string]string{"Payments — PISP": "Payments/PISP", "Data — PISP": "Data/PISP", "Payments — any role": "Payments/"} {
		if opts[label] != value {
			t.Errorf("the Role filter's option %q has the value %q, want %q (options %v)", label, opts[label], value, opts)
		}
	}
	// The Roles column: Active claims only.
	roles := map[string]string{}
	doc.Find("[data-testid=organisation-row]").Each(func(_ int, tr *goquery.Selection) {
		roles[strings.TrimSpace(tr.Find("td").First().Text())] = strings.Join(strings.Fields(tr.Find("[data-testid=org-roles]").Text()), " ")
	})
	if doc.Find("[data-testid=organisations] th:contains('Roles')").Length() != 1 {
		t.Errorf("the list has no Roles column")
	}
	if roles["Acme"] != "Payments — PISP" || roles["Beta"] != "Data — PISP" || roles["Gamma"] != "" {
		t.Errorf("Roles column %q", roles)
	}

	// Choosing "Data — PISP" sends the domain and the role.
	resp, err := c.Get(env.URL + "/organisations?q=&DomainRole=Data%2FPISP&Status=")
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if u := resp.Request.URL; u.Query().Get("AuthorisationDomain") != "Data" || u.Query().Get("Role") != "PISP" || u.Query().Has("DomainRole") {
		t.Errorf("the filter led to %s", u)
	}
	names := doc.Find("[data-testid=organisation-row] td:first-child").Text()
	if strings.TrimSpace(names) != "Beta" || strings.TrimSpace(doc.Find("[data-testid=role-filter] option[selected]").Text()) != "Data — PISP" {
		t.Errorf("Data — PISP: rows %q, selected %q", names, doc.Find("[data-testid=role-filter] option[selected]").Text())
	}
	if href := doc.Find("[data-testid=export-csv]").AttrOr("href", ""); !strings.Contains(href, "AuthorisationDomain=Data") || !strings.Contains(href, "Role=PISP") {
		t.Errorf("the CSV link %q does not carry the filter", href)
	}
	_, doc = page(t, c, env.URL+"/organisations?DomainRole=Payments%2F")
	if names := doc.Find("[data-testid=organisation-row] td:first-child").Text(); strings.TrimSpace(names) != "Acme" {
		t.Errorf("Payments — any role: rows %q", names)
	}
	// "Any role" clears both.
	resp, err = c.Get(env.URL + "/organisations?DomainRole=&AuthorisationDomain=Data&Role=PISP")
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if u := resp.Request.URL; u.RawQuery != "" || doc.Find("[data-testid=organisation-row]").Length() != 3 {
		t.Errorf("Any role led to %s with %d rows", u, doc.Find("[data-testid=organisation-row]").Length())
	}
	// A choice that is not a domain role is refused, not a 500.
	resp, err = c.Get(env.URL + "/organisations?DomainRole=Nope%2FPISP")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("unknown domain: %d", resp.StatusCode)
	}
	// A URL with Role= alone (the API's filter) matches PISP of every
	// domain, and the page says so in its list.
	_, doc = page(t, c, env.URL+"/organisations?Role=PISP")
	if n := doc.Find("[data-testid=organisation-row]").Length(); n != 2 || strings.TrimSpace(doc.Find("[data-testid=role-filter] option[selected]").Text()) != "PISP — any domain" {
		t.Errorf("Role=PISP: %d rows, selected %q", n, doc.Find("[data-testid=role-filter] option[selected]").Text())
	}
	if l := su.must(200, "GET", "/organisations?Role=PISP", ""); l["totalSize"].(float64) != 2 {
		t.Errorf("API Role=PISP: %v", l["totalSize"])
	}
	if l := su.must(200, "GET", "/organisations?AuthorisationDomain=Payments&Role=PISP", ""); l["totalSize"].(float64) != 1 {
		t.Errorf("API Payments PISP: %v", l["totalSize"])
	}
}
