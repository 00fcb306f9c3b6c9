package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestAPIBodiesAreReadExactly: through the real router, a member named in
// another case, or named twice, is a 400 naming it, and nothing changes
// (encoding/json alone would take the first and keep the last of the
// second: docs/design.md §4).
func TestAPIBodiesAreReadExactly(t *testing.T) {
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	org := admin.must(201, "POST", "/organisations", `{"OrganisationName":"Exact","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Active"}`)
	id := org["OrganisationId"].(string)
	before := admin.must(200, "GET", "/organisations/"+id, "")

	for _, c := range []struct{ method, path, body, field, code string }{
		{"POST", "/organisations", `{"organisationName":"Lower","RegistrationNumber":"2","CountryOfRegistration":"GB"}`, "organisationName", "unknown_field"},
		{"PUT", "/organisations/" + id, `{"OrganisationName":"Exact","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Withdrawn","Status":"Active"}`, "Status", "malformed_json"},
		{"PUT", "/organisations/" + id, `{"OrganisationName":"Exact","RegistrationNumber":"1","countryofregistration":"FR","CountryOfRegistration":"GB"}`, "countryofregistration", "unknown_field"},
	} {
		r, m := admin.do(c.method, c.path, c.body)
		if r.StatusCode != 400 || !strings.Contains(r.Header.Get("Content-Type"), "problem+json") || fieldsOf(m)[c.field] == "" {
			t.Errorf("%s %s %s: %d %v, want 400 naming %s", c.method, c.path, c.body, r.StatusCode, m, c.field)
		}
		if errs, _ := m["errors"].([]any); len(errs) == 0 || errs[0].(map[string]any)["code"] != c.code {
			t.Errorf("%s: %v, want code %s", c.body, m["errors"], c.code)
		}
	}
	if list := admin.must(200, "GET", "/organisations?OrganisationName=Lower", ""); strings.Contains(toJSON(t, list), "Lower") {
		t.Fatal("a refused create made an organisation")
	}
	after := admin.must(200, "GET", "/organisations/"+id, "")
	if toJSON(t, after) != toJSON(t, before) {
		t.Fatalf("a refused update changed the organisation:\n%v\n%v", before, after)
	}
}
