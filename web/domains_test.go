package web_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

func TestDomainsAccessMatrix(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	dana := newAPIWithInvite(t, env, su, "dana@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)

	// Data Administrators read the reference data (they choose from it)…
	for _, p := range []string{"/references/authorisation-domains", "/references/authorisation-domains/Payments", "/references/authorisation-domains/Payments/roles",
		"/references/authorisation-domains/Payments/roles/PISP", "/references/authorities", "/references/authorities/" + auth} {
		dana.must(200, "GET", p, "")
	}
	// … and write none of it.
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/references/authorisation-domains", `{"Name":"X"}`},
		{"PUT", "/references/authorisation-domains/Payments", `{"Status":"Inactive"}`},
		{"DELETE", "/references/authorisation-domains/Data", ""},
		{"POST", "/references/authorisation-domains/Payments/roles", `{"Name":"X","Type":"Federation"}`},
		{"PUT", "/references/authorisation-domains/Payments/roles/PISP", `{"Type":"Directory"}`},
		{"DELETE", "/references/authorisation-domains/Payments/roles/AISP", ""},
		{"POST", "/references/authorities", `{"AuthorityName":"X","AuthorityCode":"X","Country":"GB"}`},
		{"PUT", "/references/authorities/" + auth, `{"AuthorityName":"X","AuthorityCode":"X","Country":"GB"}`},
		{"DELETE", "/references/authorities/" + auth, ""},
	} {
		if r, m := dana.do(c.method, c.path, c.body); r.StatusCode != 403 {
			t.Errorf("Data Administrator %s %s: %d %v", c.method, c.path, r.StatusCode, m)
		}
	}
	roles := su.must(200, "GET", "/references/authorisation-domains/Payments/roles", "")["list"].([]any)
	if len(roles) != 3 {
		t.Fatalf("a refused write changed the roles: %v", roles)
	}
	// Claims are for Data Administrators.
	cid := grant(t, dana, oid, auth, "Payments", "PISP")
	dana.must(200, "GET", "/organisations/"+oid+"/authority-claims/"+cid, "")
	dana.must(200, "PUT", "/organisations/"+oid+"/authority-claims/"+cid, `{"RegistrationId":"R2","Status":"Active"}`)
	// No credentials: 401.
	resp, err := http.Get(env.URL + "/api/references/authorisation-domains")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("anonymous: %d", resp.StatusCode)
	}
	// The page is Reference Data: Super Users only.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "dana@example.com").Body.Close()
	if r, _ := page(t, c, env.URL+"/references/authorisation-domains"); r.StatusCode != 403 {
		t.Fatalf("Data Administrator on the page: %d", r.StatusCode)
	}
	if r, doc := page(t, c, env.URL+"/organisations/"+oid+"/authority-claims"); r.StatusCode != 200 || doc.Find("[data-testid=claim-row]").Length() != 1 {
		t.Fatalf("Data Administrator on the Roles tab: %d", r.StatusCode)
	}
	s := webtest.Browser()
	webtest.SignIn(t, s, env.URL, "admin@example.com").Body.Close()
	r, doc := page(t, s, env.URL+"/references/authorisation-domains")
	if r.StatusCode != 200 || doc.Find("[data-testid=domain]").Length() != 2 || doc.Find("[data-testid=authority-row]").Length() != 1 {
		t.Fatalf("Super User page: %d", r.StatusCode)
	}
	if _, doc := page(t, s, env.URL+"/references"); doc.Find("[data-testid=ref-domains]").Length() != 1 {
		t.Fatal("Reference Data does not lead to Domains and Roles")
	}
}

func TestDomainsRolesAuthoritiesRulesAndBadInput(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	cid := grant(t, su, oid, auth, "Payments", "PISP")

	bad := []struct {
		method, path, body string
		status             int
		field              string
	}{
		{"POST", "/references/authorisation-domains", `{"Name":""}`, 422, "Name"},
		{"POST", "/references/authorisation-domains", `{"Name":"` + strings.Repeat("x", 31) + `"}`, 422, "Name"},
		{"POST", "/references/authorisation-domains", `{"Name":"a/b"}`, 422, "Name"},
		{"POST", "/references/authorisation-domains", `{"Name":"Payments"}`, 409, ""},
		{"POST", "/references/authorisation-domains", `{"Name":"X","Status":"Retired"}`, 422, "Status"},
		{"POST", "/references/authorisation-domains", `{"Name":"X","Colour":"red"}`, 400, "Colour"},
		{"PUT", "/references/authorisation-domains/Payments", `{"Name":"Other"}`, 422, "Name"},
		{"PUT", "/references/authorisation-domains/Nowhere", `{"Status":"Active"}`, 404, ""},
		{"POST", "/references/authorisation-domains/Nowhere/roles", `{"Name":"X","Type":"Federation"}`, 404, ""},
		{"POST", "/references/authorisation-domains/Payments/roles", `{"Name":"X","Type":"Regulatory"}`, 422, "Type"},
		{"POST", "/references/authorisation-domains/Payments/roles", `{"Name":"X"}`, 422, "Type"},
		{"POST", "/references/authorisation-domains/Payments/roles", `{"Name":"X","Type":"Federation","AuthorisationDomain":"Data"}`, 422, "AuthorisationDomain"},
		{"POST", "/references/authorisation-domains/Payments/roles", `{"Name":"PISP","Type":"Federation"}`, 409, ""},
		{"POST", "/references/authorisation-domains/Payments/roles", `{"Name":"X","Type":"Federation","Exclusive":"yes"}`, 400, "Exclusive"},
		{"POST", "/references/authorities", `{"AuthorityName":"","AuthorityCode":"X","Country":"GB"}`, 422, "AuthorityName"},
		{"POST", "/references/authorities", `{"AuthorityName":"X","AuthorityCode":"X","Country":"Britain"}`, 422, "Country"},
		{"POST", "/references/authorities", `{"AuthorityName":"X","AuthorityCode":"X","Country":"GB","AuthorisationDomains":["Nowhere"]}`, 422, "AuthorisationDomains"},
		{"POST", "/references/authorities", `{"AuthorityName":"X","AuthorityCode":"X","Country":"GB","AuthorisationDomains":["Data","Data"]}`, 422, "AuthorisationDomains"},
		{"POST", "/references/authorities", `{"AuthorityName":"Central Bank","AuthorityCode":"X","Country":"GB"}`, 409, ""},
		{"POST", "/references/authorities", `{"AuthorityName":"X","AuthorityCode":"CB","Country":"GB"}`, 409, ""},
		{"POST", "/references/authorities", `{"AuthorityId":"not-a-uuid","AuthorityName":"X","AuthorityCode":"X","Country":"GB"}`, 422, "AuthorityId"},
		{"GET", "/references/authorities/nope", "", 404, ""},
		{"GET", "/references/authorisation-domains/Payments/roles/NOPE", "", 404, ""},
	}
	for _, c := range bad {
		r, m := su.do(c.method, c.path, c.body)
		if r.StatusCode != c.status || (c.field != "" && fieldsOf(m)[c.field] == "") || r.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s %s: %d %v, want %d on %q", c.method, c.path, c.body, r.StatusCode, m, c.status, c.field)
		}
	}
	// In use: 409 summary|payload naming the claim, nothing changed.
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/references/authorisation-domains/Payments", `{"Status":"Inactive"}`},
		{"DELETE", "/references/authorisation-domains/Payments", ""},
		{"PUT", "/references/authorisation-domains/Payments/roles/PISP", `{"Type":"Federation","Status":"Inactive"}`},
		{"DELETE", "/references/authorisation-domains/Payments/roles/PISP", ""},
		{"PUT", "/references/authorities/" + auth, `{"AuthorityName":"Central Bank","AuthorityCode":"CB","Country":"GB","Status":"Inactive","AuthorisationDomains":["Payments"]}`},
		{"PUT", "/references/authorities/" + auth, `{"AuthorityName":"Central Bank","AuthorityCode":"CB","Country":"GB","AuthorisationDomains":["Data"]}`},
		{"DELETE", "/references/authorities/" + auth, ""},
	} {
		r, m := su.do(c.method, c.path, c.body)
		if r.StatusCode != 409 {
			t.Errorf("%s %s: %d %v", c.method, c.path, r.StatusCode, m)
			continue
		}
		if ids := conflictClaims(t, m); ids[0] != cid {
			t.Errorf("%s %s: payload names %v", c.method, c.path, ids)
		}
	}
	if d := su.must(200, "GET", "/references/authorisation-domains/Payments", ""); d["Status"] != "Active" {
		t.Fatalf("domain changed: %v", d)
	}
	if a := su.must(200, "GET", "/references/authorities/"+auth, ""); a["Status"] != "Active" || len(a["AuthorisationDomains"].([]any)) != 1 {
		t.Fatalf("authority changed: %v", a)
	}
	// Deleting a domain cascades nothing: its roles are in the way.
	r, m := su.do("DELETE", "/references/authorisation-domains/Data", "")
	if r.StatusCode != 409 || !strings.Contains(mustMarshal(m), `\"Roles\":[{\"AuthorisationDomain\":\"Data\",\"Name\":\"DATA\"}]`) {
		t.Fatalf("delete a domain with roles: %d %v", r.StatusCode, m)
	}
	// A stale If-Match: 412.
	resp, _ := su.do("GET", "/references/authorisation-domains/Data/roles/DATA", "")
	etag := resp.Header.Get("ETag")
	su.must(200, "PUT", "/references/authorisation-domains/Data/roles/DATA", `{"Type":"Federation","Description":"changed"}`)
	if r, m := su.do("PUT", "/references/authorisation-domains/Data/roles/DATA", `{"Type":"Directory"}`, "If-Match", etag); r.StatusCode != 412 {
		t.Fatalf("stale If-Match: %d %v", r.StatusCode, m)
	}
	// Unused things are deleted.
	su.must(204, "DELETE", "/references/authorisation-domains/Data/roles/DATA", "")
	su.must(204, "DELETE", "/references/authorisation-domains/Data", "")
	su.must(404, "GET", "/references/authorisation-domains/Data", "")
	// Every change to reference data is in the audit log; refusals are not.
	for subject, want := range map[string]int{"AuthorisationDomain": 3, "Role": 6, "Authority": 1} {
		recs := su.must(200, "GET", "/audit?Subject="+subject+"&size=50", "")["content"].([]any)
		if len(recs) != want {
			t.Errorf("audit of %s: %d records, want %d", subject, len(recs), want)
		}
	}

	// The page shows a refused change as a list.
	s := webtest.Browser()
	webtest.SignIn(t, s, env.URL, "admin@example.com").Body.Close()
	resp, err := s.PostForm(env.URL+"/references/authorisation-domains/Payments/roles/PISP", url.Values{"Type": {"Federation"}, "Status": {"Inactive"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	// (by the organisation's name, linked to its Roles tab: the claim's id
	// is the API's, TestInTheWayNamesWhatAPersonRecognises)
	if li := doc.Find("[data-testid=in-the-way] li").First(); resp.StatusCode != 409 || !strings.Contains(li.Text(), "Acme") ||
		li.Find("a").AttrOr("href", "") != "/organisations/"+oid+"/authority-claims" {
		t.Fatalf("page conflict: %d %q", resp.StatusCode, doc.Find("[data-testid=conflict]").Text())
	}
	// Edit from the page: a domain's description, a role's type.
	for _, f := range []struct {
		path string
		form url.Values
	}{
		{"/references/authorisation-domains/Payments", url.Values{"Description": {"Payments, edited"}, "Status": {"Active"}}},
		{"/references/authorisation-domains/Payments/roles/AISP", url.Values{"Type": {"Directory"}, "Description": {"edited"}, "Status": {"Active"}}},
	} {
		resp, err := s.PostForm(env.URL+f.path, f.form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("edit %s: %d", f.path, resp.StatusCode)
		}
	}
	if d := su.must(200, "GET", "/references/authorisation-domains/Payments", ""); d["Description"] != "Payments, edited" {
		t.Fatalf("%v", d)
	}
	if r := su.must(200, "GET", "/references/authorisation-domains/Payments/roles/AISP", ""); r["Type"] != "Directory" || r["Exclusive"] != false {
		t.Fatalf("%v", r)
	}
	resp, err = s.PostForm(env.URL+"/references/authorisation-domains/Payments/roles", url.Values{"Name": {"BAD/NAME"}, "Type": {"Federation"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != 422 || doc.Find("#e-Name").Text() == "" {
		t.Fatalf("page field error: %d", resp.StatusCode)
	}
}

func TestAuthorityClaimsAPI(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	dataAuth := su.must(201, "POST", "/references/authorities", `{"AuthorityName":"Data Office","AuthorityCode":"DO","Country":"GB","AuthorisationDomains":["Data"]}`)["AuthorityId"].(string)
	dana := newAPIWithInvite(t, env, su, "dana@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	path := "/organisations/" + oid + "/authority-claims"
	first := grant(t, dana, oid, auth, "Payments", "PISP")
	bad := []struct {
		body   string
		status int
		field  string
	}{
		{`{"AuthorityId":"` + dataAuth + `","AuthorisationDomain":"Payments","Role":"AISP"}`, 422, "AuthorityId"},
		{`{"AuthorityId":"nope","AuthorisationDomain":"Payments","Role":"AISP"}`, 422, "AuthorityId"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Nowhere","Role":"AISP"}`, 422, "AuthorisationDomain"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"DATA"}`, 422, "Role"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"NOPE"}`, 422, "Role"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments"}`, 422, "Role"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"AISP","Status":"Gone"}`, 422, "Status"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"AISP","RegistrationId":"` + strings.Repeat("9", 41) + `"}`, 422, "RegistrationId"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"AISP","ClaimId":"mine"}`, 422, "ClaimId"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"PISP"}`, 409, ""},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"EXCL"}`, 409, ""},
		{`{"AuthorityId":1}`, 400, "AuthorityId"},
	}
	for _, c := range bad {
		r, m := dana.do("POST", path, c.body)
		if r.StatusCode != c.status || (c.field != "" && fieldsOf(m)[c.field] == "") {
			t.Errorf("%s: %d %v, want %d on %q", c.body, r.StatusCode, m, c.status, c.field)
		}
		if r.StatusCode == 409 {
			if ids := conflictClaims(t, m); len(ids) != 1 || ids[0] != first {
				t.Errorf("%s: the conflict names %v, not the claim in the way", c.body, ids)
			}
		}
	}
	if l := dana.must(200, "GET", path, "")["list"].([]any); len(l) != 1 {
		t.Fatalf("refused claims were stored: %v", l)
	}
	// Claims are never deleted; Inactive ends one, and what it names stays.
	if r, _ := dana.do("DELETE", path+"/"+first, ""); r.StatusCode != 405 {
		t.Fatalf("DELETE: %d", r.StatusCode)
	}
	c := dana.must(200, "PUT", path+"/"+first, `{"Status":"Inactive","RegistrationId":"R-1"}`)
	if c["Status"] != "Inactive" || c["RegistrationId"] != "R-1" || c["Role"] != "PISP" || c["AuthorityName"] != "Central Bank" {
		t.Fatalf("%v", c)
	}
	if r, m := dana.do("PUT", path+"/"+first, `{"Role":"AISP","Status":"Inactive"}`); r.StatusCode != 422 || fieldsOf(m)["Role"] == "" {
		t.Fatalf("changing the role of a claim: %d %v", r.StatusCode, m)
	}
	// The Exclusive rule the other way round.
	excl := grant(t, dana, oid, auth, "Payments", "EXCL")
	r, m := dana.do("PUT", path+"/"+first, `{"Status":"Active"}`)
	if r.StatusCode != 409 || conflictClaims(t, m)[0] != excl {
		t.Fatalf("reactivating beside an Exclusive claim: %d %v", r.StatusCode, m)
	}
	dana.must(404, "GET", path+"/nope", "")
	dana.must(404, "GET", "/organisations/nope/authority-claims", "")
	// Every change is audited, with who made it.
	audit := su.must(200, "GET", "/audit?Subject=AuthorityClaim&OrganisationId="+oid, "")
	recs := audit["content"].([]any)
	if len(recs) != 3 || recs[0].(map[string]any)["Actor"] != "dana@example.com" {
		t.Fatalf("audit: %v", audit)
	}
}

func TestApplicationRolesComeFromClaims(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Active"}`)["OrganisationId"].(string)
	apps := "/organisations/" + oid + "/softwarestatements"
	body := `{"ClientName":"Pay","RedirectUri":["https://tpp.example/cb"],"Roles":["PISP","AISP"]}`
	r, m := su.do("POST", apps, body)
	if r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["Roles"], "PISP") {
		t.Fatalf("roles without claims: %d %v", r.StatusCode, m)
	}
	pisp := grant(t, su, oid, auth, "Payments", "PISP")
	r, m = su.do("POST", apps, body)
	if r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["Roles"], `"AISP"`) {
		t.Fatalf("a role not held: %d %v", r.StatusCode, m)
	}
	grant(t, su, oid, auth, "Payments", "AISP")
	aid := su.must(201, "POST", apps, body)["SoftwareStatementId"].(string)
	softwareRoles := func() []any {
		t.Helper()
		resp, tok := getRaw(t, su, apps+"/"+aid+"/assertion")
		if resp.StatusCode != 200 {
			t.Fatalf("SSA: %d %s", resp.StatusCode, tok)
		}
		_, claims := jwtParts(t, tok)
		return claims["software_roles"].([]any)
	}
	if got := softwareRoles(); len(got) != 2 {
		t.Fatalf("software_roles %v", got)
	}
	// The PISP claim goes Inactive: the SSA leaves PISP out, the page says so.
	su.must(200, "PUT", "/organisations/"+oid+"/authority-claims/"+pisp, `{"Status":"Inactive"}`)
	if got := softwareRoles(); len(got) != 1 || got[0] != "AISP" {
		t.Fatalf("software_roles after the claim went Inactive: %v", got)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+apps+"/"+aid)
	if w := doc.Find("[data-testid=stale-roles]").Text(); !strings.Contains(w, "PISP") || strings.Contains(w, "AISP") {
		t.Fatalf("stale role warning: %q", w)
	}
	// The form offers the held roles as choices; the stale one is marked.
	_, doc = page(t, c, env.URL+apps+"/"+aid+"/edit")
	boxes := doc.Find("[data-testid=role-choices] input[type=checkbox][name=Roles]")
	if boxes.Length() != 2 || !strings.Contains(doc.Find("[data-testid=role-choices]").Text(), "PISP (no Active claim)") {
		t.Fatalf("role choices: %d %q", boxes.Length(), doc.Find("[data-testid=role-choices]").Text())
	}
	// Editing other fields keeps working; adding a role not held does not.
	su.must(200, "PUT", apps+"/"+aid, `{"ClientName":"Pay 2","RedirectUri":["https://tpp.example/cb"],"Roles":["PISP","AISP"],"Status":"Active"}`)
	if r, m := su.do("PUT", apps+"/"+aid, `{"ClientName":"Pay 2","Roles":["AISP","EXCL"],"Status":"Active"}`); r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["Roles"], "EXCL") {
		t.Fatalf("adding a role not held: %d %v", r.StatusCode, m)
	}
	resp, err := c.PostForm(env.URL+apps+"/"+aid, url.Values{"ClientName": {"Pay 3"}, "Roles": {"AISP", "DATA"}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != 422 || !strings.Contains(doc.Find("[data-testid=error-Roles]").Text(), "DATA") {
		t.Fatalf("form: %d %q", resp.StatusCode, doc.Find("[data-testid=error-Roles]").Text())
	}
}

func TestPoliciesNameAnExistingDomainRole(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{"AuthorisationDomain":"Payments","Role":"NOPE","EntityType":"openid_relying_party","Policy":{}}`, "Role"},
		{`{"AuthorisationDomain":"Payments","Role":"DATA","EntityType":"openid_relying_party","Policy":{}}`, "Role"},
		{`{"AuthorisationDomain":"Payments","Role":"EXCL","EntityType":"openid_relying_party","Policy":{}}`, "Role"},
		{`{"AuthorisationDomain":"Nowhere","Role":"PISP","EntityType":"openid_relying_party","Policy":{}}`, "AuthorisationDomain"},
		{`{"Role":"PISP","EntityType":"openid_relying_party","Policy":{}}`, "AuthorisationDomain"},
	} {
		if r, m := su.do("POST", "/references/role-metadata-policies", c.body); r.StatusCode != 422 || fieldsOf(m)[c.field] == "" {
			t.Errorf("%s: %d %v", c.body, r.StatusCode, m)
		}
	}
	if l := su.must(200, "GET", "/references/role-metadata-policies", "")["list"].([]any); len(l) != 0 {
		t.Fatalf("refused policies stored: %v", l)
	}
	su.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"scope":{"essential":true}}}`)
	// A policy saved before domains existed keeps working, flagged until edited.
	if _, err := env.DB.SQL().ExecContext(context.Background(), `INSERT INTO role_metadata_policies(policy_id, role, entity_type, policy, status, created_on, updated_on)
		VALUES ('11111111-1111-4111-8111-111111111111', 'LEGACY', 'oauth_client', '{}', 'Active', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	old := su.must(200, "GET", "/references/role-metadata-policies/11111111-1111-4111-8111-111111111111", "")
	if old["Role"] != "LEGACY" || old["AuthorisationDomain"] != "" {
		t.Fatalf("legacy policy: %v", old)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/references/role-metadata-policies")
	_, form := page(t, c, env.URL+"/references/role-metadata-policies/new")
	if doc.Find("[data-testid=policy-legacy-warning]").Length() != 1 || form.Find("#f-DomainRole option").Length() != 3 {
		t.Fatalf("policy page: %d warnings, %d role choices", doc.Find("[data-testid=policy-legacy-warning]").Length(), form.Find("#f-DomainRole option").Length())
	}
	resp, err := c.PostForm(env.URL+"/references/role-metadata-policies/11111111-1111-4111-8111-111111111111",
		url.Values{"AuthorisationDomain": {"Payments"}, "Role": {"AISP"}, "EntityType": {"oauth_client"}, "Policy": {"{}"}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != 200 || doc.Find("[data-testid=policy-legacy-warning]").Length() != 0 {
		t.Fatalf("after editing: %d, %d warnings", resp.StatusCode, doc.Find("[data-testid=policy-legacy-warning]").Length())
	}
	// A role a policy names cannot be deleted.
	if r, m := su.do("DELETE", "/references/authorisation-domains/Payments/roles/AISP", ""); r.StatusCode != 409 || !strings.Contains(mustMarshal(m), "RoleMetadataPolicies") {
		t.Fatalf("delete a role a policy names: %d %v", r.StatusCode, m)
	}
}

// TestParticipantsClaimsFollowTheParticipantsSchema validates the public
// participants answer against the ParticipantObjectList schema of the
// open-finance participants description (testdata/participants.yaml, a
// copy of the reference the directory's consumers are written for), with
// kin-openapi: a client written for that description reads ours.
func TestParticipantsClaimsFollowTheParticipantsSchema(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	dataAuth := su.must(201, "POST", "/references/authorities", `{"AuthorityName":"Data Office","AuthorityCode":"DO","Country":"GB","AuthorisationDomains":["Data"]}`)["AuthorityId"].(string)
	active := func(name string) string {
		return su.must(201, "POST", "/organisations", strings.TrimSuffix(org(name), "}")+`,"Status":"Active"}`)["OrganisationId"].(string)
	}
	bank, tpp, quiet := active("Bank"), active("TPP"), active("Quiet")
	su.must(201, "POST", "/organisations/"+bank+"/authorisationservers", `{"CustomerFriendlyName":"Bank AS","Issuer":"`+discoveryServer(t, func(self string) string { return self })+`"}`)
	grant(t, su, bank, auth, "Payments", "AISP")
	grant(t, su, bank, auth, "Payments", "PISP")
	grant(t, su, bank, dataAuth, "Data", "DATA")
	ended := grant(t, su, tpp, auth, "Payments", "AISP")
	grant(t, su, tpp, auth, "Payments", "PISP")
	su.must(200, "PUT", "/organisations/"+tpp+"/authority-claims/"+ended, `{"Status":"Inactive"}`)
	_ = quiet

	b, err := os.ReadFile("testdata/participants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the reference description: %v", err)
	}
	schema := doc.Components.Schemas["ParticipantObjectList"].Value
	get := func(query string) (int, []map[string]any, any) {
		t.Helper()
		resp, err := http.Get(env.URL + "/api/participants" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var generic any
		var ps []map[string]any
		json.Unmarshal(raw, &generic)
		json.Unmarshal(raw, &ps)
		return resp.StatusCode, ps, generic
	}
	status, ps, generic := get("")
	if status != 200 || len(ps) != 3 {
		t.Fatalf("%d %d participants", status, len(ps))
	}
	if err := schema.VisitJSON(generic, openapi3.MultiErrors()); err != nil {
		t.Fatalf("the participants answer does not follow the schema: %v", err)
	}
	// The validator does check the claims: a wrong Status or a number
	// where a string belongs fails it.
	for _, spoil := range []func(c map[string]any){
		func(c map[string]any) { c["Status"] = "Revoked" },
		func(c map[string]any) { c["Role"] = 7 },
		func(c map[string]any) { c["Authorisations"] = "none" },
	} {
		var copyOf []any
		raw, _ := json.Marshal(generic)
		json.Unmarshal(raw, &copyOf)
		for _, p := range copyOf {
			if rc := p.(map[string]any)["OrgDomainRoleClaims"].([]any); len(rc) > 0 {
				spoil(rc[0].(map[string]any))
				break
			}
		}
		if schema.VisitJSON(copyOf) == nil {
			t.Fatal("a spoilt answer passes the schema: the check checks nothing")
		}
	}
	byName := map[string]map[string]any{}
	for _, p := range ps {
		byName[p["OrganisationName"].(string)] = p
	}
	rc := byName["Bank"]["OrgDomainRoleClaims"].([]any)
	dc := byName["Bank"]["OrgDomainClaims"].([]any)
	if len(rc) != 3 || len(dc) != 2 {
		t.Fatalf("Bank: %d role claims, %d domain claims", len(rc), len(dc))
	}
	first := rc[0].(map[string]any)
	if first["AuthorisationDomain"] != "Data" || first["Role"] != "DATA" || first["Status"] != "Active" || first["RegistrationId"] != "REG-DATA" ||
		first["Authorisations"] == nil || len(first["Authorisations"].([]any)) != 0 {
		t.Fatalf("role claim %v", first)
	}
	// The members docs/design.md §12 names, and no others: the claim's
	// own id and its organisation's are not the public's (the claim sits
	// in its participant; its id is in the authority-claims API).
	keysOf := func(m map[string]any) string {
		var k []string
		for n := range m {
			k = append(k, n)
		}
		sort.Strings(k)
		return strings.Join(k, ",")
	}
	if got := keysOf(first); got != "AuthorisationDomain,Authorisations,RegistrationId,Role,Status" {
		t.Fatalf("role claim members: %s", got)
	}
	for _, d := range dc {
		if got := keysOf(d.(map[string]any)); got != "AuthorisationDomainName,AuthorityName,RegistrationId,Status" {
			t.Fatalf("domain claim members: %s", got)
		}
		// A role claim names its authority through the domain claim of
		// the same domain and registration.
		if m := d.(map[string]any); m["AuthorisationDomainName"] == "Data" && (m["AuthorityName"] != "Data Office" || m["RegistrationId"] != "REG-DATA") {
			t.Fatalf("the Data role claim's authority: %v", m)
		}
	}
	names := map[string]bool{}
	for _, d := range dc {
		m := d.(map[string]any)
		names[m["AuthorisationDomainName"].(string)+"/"+m["AuthorityName"].(string)] = m["Status"] == "Active"
	}
	if !names["Payments/Central Bank"] || !names["Data/Data Office"] {
		t.Fatalf("domain claims %v", dc)
	}
	if tc := byName["TPP"]["OrgDomainRoleClaims"].([]any); len(tc) != 1 || tc[0].(map[string]any)["Role"] != "PISP" {
		t.Fatalf("an Inactive claim is listed: %v", tc)
	}
	if q := byName["Quiet"]; len(q["OrgDomainRoleClaims"].([]any)) != 0 || len(q["OrgDomainClaims"].([]any)) != 0 {
		t.Fatalf("no claims must be empty lists: %v", q)
	}
	// Filters count Active claims only.
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"?Role=AISP", []string{"Bank"}},
		{"?Role=PISP", []string{"Bank", "TPP"}},
		{"?AuthorisationDomain=Data", []string{"Bank"}},
		{"?AuthorisationDomain=Payments&Role=PISP", []string{"Bank", "TPP"}},
		{"?AuthorisationDomain=Data&Role=PISP", nil},
	} {
		status, ps, generic := get(c.query)
		var got []string
		for _, p := range ps {
			got = append(got, p["OrganisationName"].(string))
		}
		if c.query == "?AuthorisationDomain=Data&Role=PISP" {
			if status != 400 {
				t.Errorf("%s: %d", c.query, status)
			}
			continue
		}
		if status != 200 || strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: %d %v", c.query, status, got)
		}
		if err := schema.VisitJSON(generic, openapi3.MultiErrors()); err != nil {
			t.Errorf("%s: %v", c.query, err)
		}
	}
	for _, q := range []string{"?Role=NOPE", "?AuthorisationDomain=Nowhere"} {
		if status, _, _ := get(q); status != 400 {
			t.Errorf("%s: %d", q, status)
		}
	}
}

func TestOrganisationListRoleFilterAndCSVRoles(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	acme := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	su.must(201, "POST", "/organisations", org("Beta"))
	grant(t, su, acme, auth, "Payments", "PISP")
	grant(t, su, acme, auth, "Payments", "AISP")
	l := su.must(200, "GET", "/organisations?Role=PISP", "")
	if l["totalSize"].(float64) != 1 || l["content"].([]any)[0].(map[string]any)["OrganisationName"] != "Acme" {
		t.Fatalf("Role=PISP: %v", l)
	}
	if l := su.must(200, "GET", "/organisations?Role=EXCL", ""); l["totalSize"].(float64) != 0 {
		t.Fatalf("Role=EXCL: %v", l)
	}
	if r, m := su.do("GET", "/organisations?Role=NOPE", ""); r.StatusCode != 400 || fieldsOf(m)["Role"] == "" {
		t.Fatalf("unknown role: %d %v", r.StatusCode, m)
	}
	// The CSV carries the roles of the Active claims.
	req, _ := http.NewRequest("GET", env.URL+"/api/organisations/export.csv?Role=PISP", nil)
	req.Header.Set("Authorization", "Bearer "+su.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil || len(rows) != 2 {
		t.Fatalf("csv: %v %v", rows, err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == "Roles" {
			col = i
		}
	}
	if col < 0 || rows[1][col] != "Payments: AISP; Payments: PISP" {
		t.Fatalf("csv roles: %v", rows)
	}
	// The page offers the filter.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	// (Role= alone matches the role in every domain:
	// TestOrganisationListRoleFilterNamesTheDomain)
	_, doc := page(t, c, env.URL+"/organisations?Role=PISP")
	if doc.Find("[data-testid=role-filter] option[selected]").Text() != "PISP — any domain" || !strings.Contains(doc.Find("[data-testid=org-count]").Text(), "1 organisation") {
		t.Fatalf("page: %q %q", doc.Find("[data-testid=role-filter] option[selected]").Text(), doc.Find("[data-testid=org-count]").Text())
	}
}

// TestPutWithoutStatusKeepsIt: a PUT that leaves Status out changes no
// status: an Inactive claim, domain, role, authority, reference type, flag,
// certification, identity provider, role metadata policy, webhook or administrator
// edited without it stays Inactive (it used to become Active again, a
// claim's roles with it).
func TestPutWithoutStatusKeepsIt(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", `{"OrganisationName":"Keep Bank","RegistrationNumber":"K-1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	cid := grant(t, su, oid, auth, "Payments", "PISP")
	su.must(200, "PUT", "/organisations/"+oid+"/authority-claims/"+cid, `{"RegistrationId":"REG-PISP","Status":"Inactive"}`)
	su.must(201, "POST", "/references/contact-types", `{"Name":"Keep","Status":"Inactive"}`)
	su.must(200, "PUT", "/references/authorisation-domains/Data", `{"Description":"d","Status":"Inactive"}`)
	su.must(200, "PUT", "/references/authorisation-domains/Payments/roles/AISP", `{"Type":"Federation","Status":"Inactive"}`)
	au2 := su.must(201, "POST", "/references/authorities", `{"AuthorityName":"Old Bank","AuthorityCode":"OB","Country":"GB","Status":"Inactive"}`)["AuthorityId"].(string)
	op := newFakeOP(t)
	su.must(201, "POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","Status":"Inactive"}`)
	policy := "/references/role-metadata-policies/" + su.must(201, "POST", "/references/role-metadata-policies",
		`{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"scope":{"essential":true}},"Status":"Inactive"}`)["PolicyId"].(string)
	hook := "/references/webhooks/" + su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","SubjectTypes":["Organisation"],"Status":"Inactive"}`)["WebhookId"].(string)
	su.must(201, "POST", "/users/super", `{"Email":"old@example.com","Status":"Active"}`)
	su.must(200, "PUT", "/users/super/old@example.com", `{"Status":"Inactive"}`)
	su.must(201, "POST", "/users/data-administrators", `{"Email":"dana@example.com"}`)
	su.must(200, "PUT", "/users/data-administrators/dana@example.com", `{"Status":"Inactive"}`)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := "/organisations/" + oid + "/key-material/" + su.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["KeyMaterialID"].(string)
	su.must(200, "PUT", km, `{"Use":"sig","Status":"Revoked","RevokeReason":"superseded"}`)
	flag := "/references/flags/" + su.must(201, "POST", "/references/flags", `{"Name":"Old","Type":"Organisation","Status":"Inactive"}`)["FlagId"].(string)
	app := "/organisations/" + oid + "/softwarestatements/" + su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Keep app"}`)["SoftwareStatementId"].(string)
	certf := app + "/certifications/" + su.must(201, "POST", app+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01","Status":"Inactive"}`)["CertificationId"].(string)
	for _, c := range []struct{ path, body, want string }{
		{"/organisations/" + oid + "/authority-claims/" + cid, `{"RegistrationId":"REG-2"}`, "Inactive"},
		{flag, `{"Name":"Old","Type":"Organisation","Description":"edited"}`, "Inactive"},
		{certf, `{"CertificationType":"FAPI","CertificationStartDate":"2026-04-01"}`, "Inactive"},
		{"/references/contact-types/Keep", `{"Description":"edited"}`, "Inactive"},
		{"/references/authorisation-domains/Data", `{"Description":"edited"}`, "Inactive"},
		{"/references/authorisation-domains/Payments/roles/AISP", `{"Type":"Federation","Description":"edited"}`, "Inactive"},
		{"/references/authorities/" + au2, `{"AuthorityName":"Old Bank","AuthorityCode":"OB2","Country":"GB"}`, "Inactive"},
		{"/references/identity-providers/kc", `{"Issuer":"` + op.srv.URL + `","EmailDomains":["example.com"],"Description":"edited"}`, "Inactive"},
		{policy, `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"scope":{"essential":false}}}`, "Inactive"},
		{hook, `{"Url":"https://8.8.8.8/h","SubjectTypes":["Organisation"],"Description":"edited"}`, "Inactive"},
		{"/users/super/old@example.com", `{}`, "Inactive"},
		{"/users/data-administrators/dana@example.com", `{}`, "Inactive"},
		// Revoked key material changes no more; sent back as it is, it is unchanged.
		{km, `{"Use":"sig"}`, "Revoked"},
	} {
		got := su.must(200, "PUT", c.path, c.body)
		if got["Status"] != c.want {
			t.Errorf("PUT %s without Status: Status %v, want %s kept", c.path, got["Status"], c.want)
		}
		if again := su.must(200, "GET", c.path, ""); again["Status"] != c.want {
			t.Errorf("GET %s after: Status %v", c.path, again["Status"])
		}
	}
	// Status given is still applied, and checked.
	if got := su.must(200, "PUT", "/references/contact-types/Keep", `{"Status":"Active"}`); got["Status"] != "Active" {
		t.Errorf("Status Active not applied: %v", got["Status"])
	}
	su.must(422, "PUT", "/references/contact-types/Keep", `{"Status":"Sleeping"}`)
}

// TestDomainsPageEditRefusalIsShownInItsForm: a refused edit of a domain's
// description, of a role or of an authority (Reference Data > Domains and
// Roles) came back as the page with nothing said, what was typed gone.
// Each is edited on a page of its own (…/edit, issue 40); a refused save
// shows that page again with what was typed and the message beside the
// field.
func TestDomainsPageEditRefusalIsShownInItsForm(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	long := strings.Repeat("x", 501)

	for _, tc := range []struct {
		what, path string
		form       url.Values
		field      string // the field the message is beside
		kept       map[string]string
	}{
		{"domain", "/references/authorisation-domains/Payments",
			url.Values{"Description": {long}, "Status": {"Active"}},
			"Description", map[string]string{"Description": long}},
		{"role", "/references/authorisation-domains/Payments/roles/PISP",
			url.Values{"Type": {"Federation"}, "Exclusive": {"true"}, "Description": {long}, "Status": {"Active"}},
			"Description", map[string]string{"Description": long}},
		{"authority", "/references/authorities/" + auth,
			url.Values{"AuthorityName": {""}, "AuthorityCode": {"CB2"}, "Country": {"gb"}, "AuthorisationDomains": {"Payments"}, "Status": {"Active"}},
			"AuthorityName", map[string]string{"AuthorityCode": "CB2", "Country": "GB"}},
	} {
		resp, edit := page(t, c, env.URL+tc.path+"/edit")
		im, _ := edit.Find("form input[name=IfMatch]").Attr("value")
		if resp.StatusCode != 200 || im == "" || strings.TrimSpace(edit.Find("main h1").Text()) == "" {
			t.Fatalf("%s: the edit page: %d, version %q", tc.what, resp.StatusCode, im)
		}
		tc.form.Set("IfMatch", im)
		status, doc := postForm(t, c, env.URL+tc.path, tc.form)
		if status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422", tc.what, status)
			continue
		}
		if h1 := doc.Find("main h1").Text(); !strings.HasPrefix(h1, "Edit ") {
			t.Errorf("%s: answered with %q, not the edit page", tc.what, h1)
		}
		in := doc.Find("#f-" + tc.field)
		if v, _ := in.Attr("aria-invalid"); v != "true" {
			t.Errorf("%s: #f-%s is not marked invalid", tc.what, tc.field)
		}
		if strings.TrimSpace(doc.Find("#e-"+tc.field).Text()) == "" {
			t.Errorf("%s: no message beside #f-%s", tc.what, tc.field)
		}
		for f, want := range tc.kept {
			v, _ := doc.Find("#f-" + f).Attr("value")
			if f == "Description" {
				v = doc.Find("#f-"+f).AttrOr("value", doc.Find("textarea#f-"+f).Text())
			}
			if v != want {
				t.Errorf("%s: #f-%s kept as %q, want %q", tc.what, f, v, want)
			}
		}
	}
	// The authority's edit page keeps its domains ticked as sent.
	_, edit := page(t, c, env.URL+"/references/authorities/"+auth+"/edit")
	im, _ := edit.Find("form input[name=IfMatch]").Attr("value")
	_, doc := postForm(t, c, env.URL+"/references/authorities/"+auth,
		url.Values{"AuthorityName": {""}, "AuthorityCode": {"CB"}, "Country": {"GB"}, "Status": {"Active"}, "IfMatch": {im}})
	if _, ok := doc.Find(`input[name=AuthorisationDomains][value=Payments]`).Attr("checked"); ok {
		t.Error("the authority's edit page ticks Payments, which was not sent")
	}
	// A row's button refused is answered with the list, the conflict listed.
	status, doc := postForm(t, c, env.URL+"/references/authorisation-domains/Payments/delete", url.Values{})
	if status != http.StatusConflict || doc.Find("[data-testid=domain]").Length() == 0 || doc.Find("[data-testid=conflict]").Length() != 1 {
		t.Errorf("a row's refused Delete: %d, not the list with the conflict", status)
	}
}

// TestDomainsPageNameTakenIsBesideTheName: a new domain or role whose name
// is taken was answered with the message at the top of the page. The add
// page comes back with the message beside the name, what was typed kept.
func TestDomainsPageNameTakenIsBesideTheName(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, tc := range []struct{ what, path, h1 string }{
		{"role", "/references/authorisation-domains/Payments/roles", "Add role to Payments"},
		{"domain", "/references/authorisation-domains", "Add domain"},
	} {
		name := "PISP"
		if tc.what == "domain" {
			name = "Payments"
		}
		status, doc := postForm(t, c, env.URL+tc.path,
			url.Values{"Name": {name}, "Type": {"Directory"}, "Description": {"Again"}, "Status": {"Active"}})
		if status != http.StatusConflict {
			t.Fatalf("%s: status %d, want 409", tc.what, status)
		}
		if h1 := doc.Find("main h1").Text(); h1 != tc.h1 {
			t.Errorf("%s: answered with %q", tc.what, h1)
		}
		in := doc.Find("#f-Name")
		if v, _ := in.Attr("aria-invalid"); v != "true" || !strings.Contains(doc.Find("#e-Name").Text(), name) {
			t.Errorf("%s: the name is not marked, or no message beside it: %q", tc.what, doc.Find("#e-Name").Text())
		}
		if v, _ := in.Attr("value"); v != name {
			t.Errorf("%s: name kept as %q", tc.what, v)
		}
		if v, _ := doc.Find("#f-Description").Attr("value"); v != "Again" {
			t.Errorf("%s: description kept as %q", tc.what, v)
		}
		if doc.Find("[data-testid=conflict]").Length() != 0 {
			t.Errorf("%s: the message is also at the top of the page", tc.what)
		}
	}
}

// TestConsoleRoleFormErrorIsTiedToItsField: a refused new role marks its
// Name field as the other forms do, so the field is shown in error, gets
// focus (static/console.js focuses [aria-invalid]) and a screen reader
// reads the message with it; what was typed stays.
func TestConsoleRoleFormErrorIsTiedToItsField(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/references/authorisation-domains", `{"Name":"Payments"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	status, doc := postForm(t, c, env.URL+"/references/authorisation-domains/Payments/roles", url.Values{"Name": {""}, "Type": {"Directory"}, "Exclusive": {"true"}, "Description": {"Payment initiation"}, "Status": {"Active"}})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", status)
	}
	in := doc.Find("input#f-Name")
	if doc.Find("#e-Name").Text() == "" {
		t.Fatal("no message beside the role name")
	}
	if v, _ := in.Attr("aria-invalid"); v != "true" {
		t.Errorf("role name input has aria-invalid %q, want true", v)
	}
	if v, _ := in.Attr("aria-describedby"); v != "e-Name" {
		t.Errorf("role name input has aria-describedby %q, want e-Name", v)
	}
	if n := doc.Find(`[aria-invalid="true"]`).Length(); n != 1 {
		t.Errorf("%d fields marked invalid, want 1", n)
	}
	form := doc.Find("[data-testid=role-form]")
	if v, _ := form.Find("#f-Description").Attr("value"); v != "Payment initiation" {
		t.Errorf("description kept as %q", v)
	}
	if _, ok := form.Find("[data-testid=role-exclusive]").Attr("checked"); !ok {
		t.Error("Exclusive not kept")
	}
	if v, _ := form.Find("#f-Type option[selected]").Attr("value"); v != "Directory" {
		t.Errorf("type kept as %q", v)
	}
}

// TestDomainsPageEditSaysSaved: saving a domain's edit page says it was
// saved (it said "is Active.", as a status change would); Enable or
// Disable on the list still says the status.
func TestDomainsPageEditSaysSaved(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, edit := page(t, c, env.URL+"/references/authorisation-domains/Payments/edit")
	im, _ := edit.Find("form input[name=IfMatch]").Attr("value")
	status, doc := postForm(t, c, env.URL+"/references/authorisation-domains/Payments", url.Values{"Description": {"edited"}, "Status": {"Active"}, "IfMatch": {im}})
	if flash := doc.Find("[data-testid=flash]").Text(); status != 200 || !strings.Contains(flash, "Authorisation domain Payments was saved.") {
		t.Fatalf("edit page: %d %q", status, flash)
	}
	status, doc = postForm(t, c, env.URL+"/references/authorisation-domains/Payments", url.Values{"Status": {"Inactive"}})
	if flash := doc.Find("[data-testid=flash]").Text(); status != 200 || !strings.Contains(flash, "Authorisation domain Payments is Inactive.") {
		t.Fatalf("row button: %d %q", status, flash)
	}
}

// TestDomainsFormsRefuseAtTheirOwnAddress: the add and edit pages of a
// domain, a role and an authority posted without htmx, so a refused save
// (a 409 among them) showed the form at the list's address: reload or
// back then left the page. They post with htmx now, as every console form
// does: a refusal, 409 with what is in the way included, is the form again
// with HX-Push-Url: false, so the address stays the page's own.
func TestDomainsFormsRefuseAtTheirOwnAddress(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	grant(t, su, oid, auth, "Payments", "PISP")
	su.must(201, "POST", "/references/authorisation-domains/Data/roles", `{"Name":"DATA2","Type":"Federation"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, tc := range []struct {
		page, action string
		set          url.Values // over what the page holds
		status       int
	}{
		{"/references/authorisation-domains/new", "/references/authorisation-domains", url.Values{"Name": {"Payments"}}, http.StatusConflict},
		{"/references/authorisation-domains/Payments/roles/new", "/references/authorisation-domains/Payments/roles", url.Values{"Name": {"PISP"}, "Type": {"Federation"}}, http.StatusConflict},
		{"/references/authorities/new", "/references/authorities", url.Values{"AuthorityName": {"Other"}, "AuthorityCode": {"OT"}, "Country": {"XX"}}, http.StatusUnprocessableEntity},
		{"/references/authorisation-domains/Data/edit", "/references/authorisation-domains/Data", url.Values{"Description": {strings.Repeat("x", 501)}}, http.StatusUnprocessableEntity},
		{"/references/authorisation-domains/Data/roles/DATA2/edit", "/references/authorisation-domains/Data/roles/DATA2", url.Values{"Type": {"Nope"}}, http.StatusUnprocessableEntity},
		{"/references/authorities/" + auth + "/edit", "/references/authorities/" + auth, url.Values{"AuthorisationDomains": {"Data"}}, http.StatusConflict},
	} {
		_, doc := page(t, c, env.URL+tc.page)
		form := doc.Find(`main form[action="` + tc.action + `"]`)
		if form.Length() != 1 {
			t.Errorf("%s: no form posting to %s", tc.page, tc.action)
			continue
		}
		if boost := form.Closest("[hx-boost]").AttrOr("hx-boost", ""); boost != "true" {
			t.Errorf("%s: the form posts with hx-boost=%q: a refusal lands at %s", tc.page, boost, tc.action)
		}
		values := browserForm(doc, tc.action)
		for k, v := range tc.set {
			values[k] = v
		}
		req, _ := http.NewRequest("POST", env.URL+tc.action, strings.NewReader(values.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Boosted", "true")
		req.Header.Set("HX-Current-URL", env.URL+tc.page)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got := docOf(t, resp)
		if resp.StatusCode != tc.status || resp.Header.Get("HX-Push-Url") != "false" || got.Find(`main form[action="`+tc.action+`"]`).Length() != 1 {
			t.Errorf("%s refused: %d (want %d), HX-Push-Url %q, the form shown: %d", tc.page, resp.StatusCode, tc.status, resp.Header.Get("HX-Push-Url"), got.Find(`main form[action="`+tc.action+`"]`).Length())
		}
		if tc.status == http.StatusConflict && got.Find("[data-testid=conflict], [aria-invalid=true]").Length() == 0 {
			t.Errorf("%s: the 409 says nothing of what is in the way", tc.page)
		}
	}
}
