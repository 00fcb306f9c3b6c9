package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web/webtest"
)

func TestRoleMetadataPolicies(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	setupDomains(t, a) // policies name an existing domain and role
	a.must(201, "POST", "/references/authorisation-domains/Payments/roles", `{"Name":"WALLET","Type":"Federation"}`)
	a.must(201, "POST", "/references/authorisation-domains/Payments/roles", `{"Name":"CBPII","Type":"Federation"}`)
	p := a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code","refresh_token"]},"token_endpoint_auth_method":{"one_of":["private_key_jwt","tls_client_auth"],"essential":true}}}`)
	id := p["PolicyId"].(string)
	if p["Status"] != "Active" {
		t.Fatal(p)
	}
	// Wallet entity types are accepted.
	for _, typ := range []string{"openid_credential_issuer", "openid_credential_verifier", "openid_wallet_provider", "openid_credential_verifier_provider"} {
		a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"WALLET","EntityType":"`+typ+`","Policy":{"client_name":{"essential":true}}}`)
	}
	// Outside the supported set: 400.
	for _, typ := range []string{"federation_entity", "trust_mark_issuer", "openid_relying_party_v2"} {
		r, m := a.do("POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"X","EntityType":"`+typ+`","Policy":{}}`)
		if r.StatusCode != 400 || fieldsOf(m)["EntityType"] == "" {
			t.Errorf("%s: %d %v", typ, r.StatusCode, m)
		}
	}
	// Illegal operators and combinations: 422, one entry each, naming the parameter.
	r, m := a.do("POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"AISP","EntityType":"openid_provider","Policy":{"alg":{"one_of":["PS256"],"subset_of":["PS256"]},"scope":{"value":null,"essential":true}}}`)
	if r.StatusCode != 422 {
		t.Fatalf("%d %v", r.StatusCode, m)
	}
	msgs := []string{}
	for _, e := range m["errors"].([]any) {
		msgs = append(msgs, e.(map[string]any)["message"].(string))
	}
	joined := strings.Join(msgs, " | ")
	if len(msgs) != 2 || !strings.Contains(joined, "alg: one_of cannot be combined with subset_of") || !strings.Contains(joined, "scope: value null cannot be combined with essential true") {
		t.Fatalf("%v", msgs)
	}
	a.must(409, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"scope":{"essential":true}}}`)
	u := a.must(200, "PUT", "/references/role-metadata-policies/"+id, `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"scope":{"superset_of":["openid"]}},"Status":"Inactive"}`)
	if u["Status"] != "Inactive" || !strings.Contains(mustMarshal(u["Policy"]), "superset_of") {
		t.Fatal(u)
	}
	a.must(404, "GET", "/references/role-metadata-policies/nope", "")
	dana := newAPIWithInvite(t, env, a, "dana@example.com")
	dana.must(403, "GET", "/references/role-metadata-policies", "")

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/role-metadata-policies", url.Values{"AuthorisationDomain": {"Payments"}, "Role": {"CBPII"}, "EntityType": {"oauth_client"}, "Policy": {`{"grant_types":{"value":["implicit"],"add":["refresh_token"]}}`}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != 422 || !strings.Contains(doc.Find("[data-testid=error-Policy]").Text(), "subset of value") {
		t.Fatalf("form: %d %q", resp.StatusCode, doc.Find("[data-testid=error-Policy]").Text())
	}
}

// TestRoleMetadataPolicyNamesEachMemberOnce: a policy typed in the console
// that names a parameter or an operator twice is a 422 beside the Policy
// field naming it, and nothing is saved, rather than the last one kept
// silently (docs/design.md §13). (The API refuses any JSON body with a
// member twice, 400 malformed_json.)
func TestRoleMetadataPolicyNamesEachMemberOnce(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	setupDomains(t, a)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for name, pol := range map[string]string{
		"operator twice":  `{"grant_types":{"subset_of":["authorization_code","implicit"],"subset_of":["authorization_code"]}}`,
		"parameter twice": `{"grant_types":{"essential":true},"grant_types":{"subset_of":["authorization_code"]}}`,
	} {
		resp, err := c.PostForm(env.URL+"/references/role-metadata-policies", url.Values{"AuthorisationDomain": {"Payments"}, "Role": {"PISP"}, "EntityType": {"openid_relying_party"}, "Policy": {pol}})
		if err != nil {
			t.Fatal(err)
		}
		msg := docOf(t, resp).Find("[data-testid=error-Policy]").Text()
		if resp.StatusCode != 422 || !strings.Contains(msg, "grant_types") || !strings.Contains(msg, "twice") {
			t.Errorf("%s: %d %q", name, resp.StatusCode, msg)
		}
	}
	if list := a.must(200, "GET", "/references/role-metadata-policies", ""); strings.Contains(mustMarshal(list), "PISP") {
		t.Fatalf("a refused policy was saved: %v", list)
	}
}

// TestRoleMetadataPolicyNestingLimit: a policy is client JSON like any body
// (docs/design.md §4): through the API a body nested up to 32 levels is
// saved and one level more is 400 naming the limit; in the console, where
// the policy is a form field, a policy nested deeper than 32 levels is a
// 422 beside the Policy field naming the limit, also when it is too deep
// for encoding/json to read at all. Nothing refused is saved.
func TestRoleMetadataPolicyNestingLimit(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	setupDomains(t, a)
	// The body's object, Policy, jwks: 3 levels; the value adds arrays.
	body := func(role string, arrays int) string {
		return `{"AuthorisationDomain":"Payments","Role":"` + role + `","EntityType":"openid_relying_party","Policy":{"jwks":{"value":` +
			strings.Repeat("[", arrays) + `"k"` + strings.Repeat("]", arrays) + `}}}`
	}
	a.must(201, "POST", "/references/role-metadata-policies", body("PISP", 29))
	r, m := a.do("POST", "/references/role-metadata-policies", body("AISP", 30))
	if d, _ := m["detail"].(string); r.StatusCode != 400 || !strings.HasSuffix(fmt.Sprint(m["type"]), "/malformed-json") || !strings.Contains(d, "limit of 32 levels") {
		t.Fatalf("33 levels: %d %v", r.StatusCode, m)
	}

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, levels := range []int{33, 20000} {
		pol := strings.Repeat(`{"a":`, levels) + "1" + strings.Repeat("}", levels)
		resp, err := c.PostForm(env.URL+"/references/role-metadata-policies", url.Values{"AuthorisationDomain": {"Payments"}, "Role": {"AISP"}, "EntityType": {"openid_relying_party"}, "Policy": {pol}})
		if err != nil {
			t.Fatal(err)
		}
		msg := docOf(t, resp).Find("[data-testid=error-Policy]").Text()
		if resp.StatusCode != 422 || !strings.Contains(msg, "limit of 32 levels") {
			t.Errorf("form, %d levels: %d %q", levels, resp.StatusCode, msg)
		}
	}
	if list := a.must(200, "GET", "/references/role-metadata-policies", ""); strings.Contains(mustMarshal(list), "AISP") {
		t.Fatalf("a refused policy was saved: %v", list)
	}
}

// TestTryItShowsRefusalsBesideTheirFields: the policy simulator's refusals
// ("Name at least one role.", metadata that is not a JSON object) are shown
// beside the field they are about, which is marked invalid and described by
// them, as on every other form. They were one paragraph below the Try it
// button ("Roles: Name at least one role."), in the text colour, with
// nothing on the field.
func TestTryItShowsRefusalsBesideTheirFields(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/role-metadata-policies/try", url.Values{"EntityType": {"openid_relying_party"}, "Metadata": {"[1]"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", resp.StatusCode)
	}
	for field, want := range map[string]string{"try-roles": "Name at least one role.", "try-metadata": "Metadata must be a JSON object"} {
		el := doc.Find("#" + field)
		if v, _ := el.Attr("aria-invalid"); v != "true" {
			t.Errorf("#%s is not marked invalid", field)
		}
		by, _ := el.Attr("aria-describedby")
		msg := doc.Find("#" + by)
		if by == "" || !strings.Contains(msg.Text(), want) {
			t.Errorf("#%s is described by %q (%q), want a message %q", field, by, msg.Text(), want)
		}
		if !msg.HasClass("tf-field-error") {
			t.Errorf("#%s: its message is not shown as an error", field)
		}
	}
}

// TestPolicyEditRefusalStaysInItsEditForm: a refused edit of a role
// metadata policy (a JSON mistake) came back in the New policy form, whose
// button adds another policy instead of saving the edit. A policy is
// edited on a page of its own (…/edit, issue 40); a refused save shows
// that page again with what was typed and the message beside the field.
func TestPolicyEditRefusalStaysInItsEditForm(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	id := su.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code"]}}}`)["PolicyId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, list := page(t, c, env.URL+"/references/role-metadata-policies")
	if href, _ := list.Find("[data-testid=policy-row] [data-testid=edit-policy]").Attr("href"); href != "/references/role-metadata-policies/"+id+"/edit" {
		t.Errorf("the row's Edit leads to %q", href)
	}
	_, editPage := page(t, c, env.URL+"/references/role-metadata-policies/"+id+"/edit")
	if h1 := editPage.Find("main h1").Text(); h1 != "Edit policy" {
		t.Errorf("the edit page's heading is %q", h1)
	}
	broken := `{"grant_types": {"subset_of": ["authorization_code"]`
	status, doc := postForm(t, c, env.URL+"/references/role-metadata-policies/"+id,
		url.Values{"DomainRole": {"Payments/AISP"}, "EntityType": {"openid_relying_party"}, "Policy": {broken}, "Status": {"Active"},
			"IfMatch": {editPage.Find("input[name=IfMatch]").AttrOr("value", "")}})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", status)
	}
	if h1 := doc.Find("main h1").Text(); h1 != "Edit policy" {
		t.Errorf("answered with %q, not the edit page", h1)
	}
	if a := doc.Find("[data-testid=policy-form]").AttrOr("action", ""); a != "/references/role-metadata-policies/"+id {
		t.Errorf("the form posts to %q", a)
	}
	edit := doc.Find("#f-Policy")
	if v, _ := edit.Attr("aria-invalid"); v != "true" {
		t.Error("the edit form's policy is not marked invalid")
	}
	if ids, _ := edit.Attr("aria-describedby"); ids == "" || !strings.Contains(doc.Find("#"+strings.Fields(ids)[0]).Text(), "not valid JSON") {
		t.Errorf("no message beside the edit form's policy (%q)", ids)
	}
	if edit.Text() != broken {
		t.Errorf("the edit form's policy holds %q", edit.Text())
	}
	if v, _ := doc.Find("#f-DomainRole option[selected]").Attr("value"); v != "Payments/AISP" {
		t.Errorf("the edit form's role is %q, want the one sent", v)
	}
}

// TestPolicyFormPicksDomainAndRoleTogether: the new-policy form offers one
// list of domain roles ("Payments: PISP"), as the Roles tab's claim form
// does. It had a domain list and a role list whose options already named
// their domain: picking "Data: DATA" with the domain left at Payments was
// refused ("DATA" is not a role of the domain "Payments"), and with a role
// name in two domains the lists could not tell them apart.
func TestPolicyFormPicksDomainAndRoleTogether(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	su.must(201, "POST", "/references/authorisation-domains/Data/roles", `{"Name":"PISP","Type":"Federation"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/references/role-metadata-policies/new")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	form := doc.Find("[data-testid=policy-form]")
	if n := form.Find("select[name=AuthorisationDomain]").Length(); n != 0 {
		t.Errorf("the form has a separate domain list beside the role list")
	}
	var vals []string
	form.Find("select[name=DomainRole] option").Each(func(_ int, o *goquery.Selection) { vals = append(vals, o.AttrOr("value", "")) })
	for _, want := range []string{"Payments/PISP", "Data/PISP", "Data/DATA"} {
		if !slices.Contains(vals, want) {
			t.Errorf("domain and role options %v lack %s", vals, want)
		}
	}
	// Data's PISP, picked from the one list, is saved for Data.
	resp, err = c.PostForm(env.URL+"/references/role-metadata-policies", url.Values{"DomainRole": {"Data/PISP"}, "EntityType": {"openid_relying_party"},
		"Policy": {`{"grant_types":{"subset_of":["authorization_code"]}}`}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	list := su.must(200, "GET", "/references/role-metadata-policies", "")["list"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["AuthorisationDomain"] != "Data" || list[0].(map[string]any)["Role"] != "PISP" {
		t.Fatalf("saved %v", list)
	}
	id := list[0].(map[string]any)["PolicyId"].(string)
	// Its edit page shows that one choice, not Payments' PISP.
	resp, err = c.Get(env.URL + "/references/role-metadata-policies/" + id + "/edit")
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	sel := doc.Find("[data-testid=policy-form] select[name=DomainRole] option[selected]")
	if sel.Length() != 1 || sel.AttrOr("value", "") != "Data/PISP" {
		t.Errorf("edit form selects %d option(s), %q", sel.Length(), sel.AttrOr("value", ""))
	}
	// A refused save shows its message beside the one list of its edit
	// page (TestPolicyEditRefusalStaysInItsEditForm).
	resp, err = c.PostForm(env.URL+"/references/role-metadata-policies/"+id, url.Values{"DomainRole": {"Data/NOPE"}, "EntityType": {"openid_relying_party"},
		"Policy": {`{"grant_types":{"subset_of":["authorization_code"]}}`}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != 422 || doc.Find("#e-DomainRole").Text() == "" {
		t.Errorf("refused save: %d, message beside the list %q", resp.StatusCode, doc.Find("#e-DomainRole").Text())
	}
}

// TestPolicyJSONMistakeIsNamed: a policy typed with a JSON mistake (a
// missing brace) is refused beside the field with what is wrong and where;
// it said "the policy must be a JSON object of metadata parameters", which
// the user had typed. What was typed stays in the field.
func TestPolicyJSONMistakeIsNamed(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	typed := `{"grant_types": {"subset_of": ["authorization_code"]}`
	resp, err := c.PostForm(env.URL+"/references/role-metadata-policies", url.Values{"DomainRole": {"Payments/PISP"}, "EntityType": {"openid_relying_party"},
		"Policy": {typed}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	msg := doc.Find("#e-Policy").Text()
	if resp.StatusCode != 422 || !strings.Contains(msg, "not valid JSON") || !strings.Contains(msg, "character") {
		t.Errorf("%d, message %q", resp.StatusCode, msg)
	}
	if got := doc.Find("#f-Policy").Text(); got != typed {
		t.Errorf("the field holds %q", got)
	}
	if l := su.must(200, "GET", "/references/role-metadata-policies", "")["list"].([]any); len(l) != 0 {
		t.Errorf("%d policies saved", len(l))
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
	_, doc := page(t, c, env.URL+"/references/role-metadata-policies/new")
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
