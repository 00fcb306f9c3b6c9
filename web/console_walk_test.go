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

// TestPolicyFormStartsEmpty: the new-policy form's Policy field is empty,
// with an example as its placeholder; it was filled with a real policy
// ({"grant_types":{"subset_of":["authorization_code"]}}), which a user who
// pressed Add policy without reading saved. An empty Policy is refused
// beside the field and nothing is saved.
func TestPolicyFormStartsEmpty(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/references/role-metadata-policies")
	field := doc.Find("[data-testid=policy-form] textarea[name=Policy]")
	if field.Length() != 1 {
		t.Fatalf("%d Policy fields", field.Length())
	}
	if v := field.Text(); strings.TrimSpace(v) != "" {
		t.Errorf("the Policy field is filled with %q", v)
	}
	if ph := field.AttrOr("placeholder", ""); !strings.Contains(ph, "subset_of") {
		t.Errorf("the Policy field's placeholder is %q, want an example", ph)
	}
	for _, typed := range []string{"", "  \n "} {
		resp, err := c.PostForm(env.URL+"/references/role-metadata-policies", url.Values{"DomainRole": {"Payments/PISP"}, "EntityType": {"openid_relying_party"},
			"Policy": {typed}, "Status": {"Active"}})
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		msg := doc.Find("#e-Policy").Text()
		if resp.StatusCode != 422 || !strings.Contains(msg, "Write the policy") {
			t.Errorf("empty policy %q: %d, message beside the field %q", typed, resp.StatusCode, msg)
		}
		if doc.Find("#f-Policy").AttrOr("aria-invalid", "") != "true" {
			t.Errorf("empty policy %q: the field is not marked invalid", typed)
		}
	}
	if l := su.must(200, "GET", "/references/role-metadata-policies", "")["list"].([]any); len(l) != 0 {
		t.Errorf("%d policies saved", len(l))
	}
	// The API says the same about a missing policy.
	resp, m := su.do("POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party"}`)
	if resp.StatusCode != 422 || !strings.Contains(fieldsOf(m)["Policy"], "Write the policy") {
		t.Errorf("API without a policy: %d %v", resp.StatusCode, m)
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

// postRefused submits a console form that must be refused as a conflict
// (409) and returns the page that says so.
func postRefused(t *testing.T, c *http.Client, u string, form url.Values) *goquery.Document {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("%s: status %d, want 409", u, resp.StatusCode)
	}
	return doc
}
