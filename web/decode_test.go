package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestWrongJSONTypeNamedInJSONTerms: a member (or a body) of the wrong
// JSON type was refused in Go's words — "field  must be
// store.Organisation" for a body that is an array, "must be
// []store.GroupRole" — naming the service's internal types.
func TestWrongJSONTypeNamedInJSONTerms(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for _, c := range []struct{ path, body, field, want string }{
		{"/organisations", `[]`, "", "the body must be a JSON object"},
		{"/organisations", `"x"`, "", "the body must be a JSON object"},
		{"/organisations", `{"Flags":"x"}`, "Flags", "Flags must be an array"},
		{"/organisations", `{"OrganisationName":5}`, "OrganisationName", "OrganisationName must be a string"},
		{"/references/identity-providers", `{"GroupRoles":{"a":1}}`, "GroupRoles", "GroupRoles must be an array"},
	} {
		r, m := a.do("POST", c.path, c.body)
		detail, _ := m["detail"].(string)
		msg := fieldsOf(m)[c.field]
		if r.StatusCode != 400 || detail != c.want || strings.Contains(detail+msg, "store.") || strings.Contains(detail+msg, "[]") || msg == "" {
			t.Errorf("%s %s: %d %q / %q, want 400 %q", c.path, c.body, r.StatusCode, detail, msg, c.want)
		}
	}
}

// TestBadTimestampIsNotCalledInvalidJSON: an organisation read, changed and
// sent back with a read-only timestamp in another form (CreatedOn
// "2026-11-23", or a number) was refused as "the body is not valid JSON",
// though it was valid JSON.
func TestBadTimestampIsNotCalledInvalidJSON(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	for _, v := range []string{`"2026-11-23"`, `5`} {
		body := strings.TrimSuffix(org("Acme"), "}") + `,"CreatedOn":` + v + `}`
		r, m := a.do("PUT", "/organisations/"+oid, body)
		detail, _ := m["detail"].(string)
		if r.StatusCode != 400 || strings.Contains(detail, "not valid JSON") || !strings.Contains(detail, "RFC 3339") {
			t.Errorf("CreatedOn %s: %d %q", v, r.StatusCode, detail)
		}
	}
}
