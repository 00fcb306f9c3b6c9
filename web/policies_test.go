package web_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

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
