package web_test

import (
	"fmt"
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

// TestNullBodyIsNotAnEmptyObject: a body of JSON null where an object is
// expected is a 400, not an update with every member left out
// (docs/design.md §4), and changes nothing.
func TestNullBodyIsNotAnEmptyObject(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	a.must(201, "POST", "/references/contact-types", `{"Name":"Walk","Description":"kept"}`)
	for _, c := range []struct{ method, path string }{
		{"PUT", "/references/contact-types/Walk"},
		{"POST", "/references/contact-types"},
		{"POST", "/organisations"},
	} {
		before := toJSON(t, a.must(200, "GET", "/references/contact-types/Walk", ""))
		n := auditTotal(a)
		r, m := a.do(c.method, c.path, ` null `)
		if r.StatusCode != 400 || !strings.Contains(r.Header.Get("Content-Type"), "problem+json") {
			t.Errorf("%s %s null: %d %v, want 400", c.method, c.path, r.StatusCode, m)
		}
		if m["type"] != "https://trustframe.dev/problems/malformed-json" {
			t.Errorf("%s %s null: %v, want malformed-json", c.method, c.path, m)
		}
		if after := toJSON(t, a.must(200, "GET", "/references/contact-types/Walk", "")); after != before || auditTotal(a) != n {
			t.Errorf("%s %s null changed something: %s -> %s", c.method, c.path, before, after)
		}
	}
}

// TestJSONWithBytesNotUTF8IsRefused: a JSON string or member name holding
// bytes that are not UTF-8 is a 422 naming the member, as in a form
// (docs/design.md §4), not stored with U+FFFD in their place.
func TestJSONWithBytesNotUTF8IsRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Utf"))["OrganisationId"].(string)
	for _, c := range []struct{ method, path, body, field string }{
		{"POST", "/references/contact-types", "{\"Name\":\"Bad\xff\xfeName\"}", "Name"},
		{"PUT", "/organisations/" + oid, "{\"OrganisationName\":\"Utf\",\"RegistrationNumber\":\"REG-Utf\",\"CountryOfRegistration\":\"GB\",\"City\":\"Lon\xc3\"}", "City"},
		{"POST", "/references/webhooks", "{\"Url\":\"https://8.8.8.8/h\",\"SubjectTypes\":[\"Organisation\",\"\xff\"]}", "SubjectTypes"},
		{"POST", "/references/contact-types", "{\"Name\":\"Ok\",\"\xffName\":1}", "\ufffdName"},
	} {
		before := toJSON(t, a.must(200, "GET", "/organisations/"+oid, ""))
		n := auditTotal(a)
		r, m := a.do(c.method, c.path, c.body)
		if r.StatusCode != 422 || !strings.Contains(r.Header.Get("Content-Type"), "problem+json") || fieldsOf(m)[c.field] == "" {
			t.Errorf("%s %s %q: %d %v, want 422 naming %s", c.method, c.path, c.body, r.StatusCode, m, c.field)
		}
		if after := toJSON(t, a.must(200, "GET", "/organisations/"+oid, "")); after != before || auditTotal(a) != n {
			t.Errorf("%s %s %q changed something", c.method, c.path, c.body)
		}
	}
	if l := a.must(200, "GET", "/references/contact-types", ""); strings.Contains(toJSON(t, l), "\ufffd") {
		t.Fatalf("a name with bytes that are not UTF-8 was kept: %v", l)
	}
}

// TestClientChosenIdsAreLowerCaseUUIDs: the description's ids are UUIDs
// in lower case (format uuid), and the same UUID in capitals is the same
// UUID (RFC 9562 §4), so an OrganisationId, AuthorityId or FlagId chosen
// in capitals is a 422 naming it: the service kept it as sent, and the
// lower-case twin then made a second organisation with the same id.
func TestClientChosenIdsAreLowerCaseUUIDs(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	const up, low = "2E19F401-96F4-4142-90BD-FE56EBBA22BD", "2e19f401-96f4-4142-90bd-fe56ebba22bd"
	for _, c := range []struct{ path, idField, body string }{
		{"/organisations", "OrganisationId", `{"OrganisationId":"%s","OrganisationName":"Up","RegistrationNumber":"U1","CountryOfRegistration":"GB"}`},
		{"/references/authorities", "AuthorityId", `{"AuthorityId":"%s","AuthorityName":"Up","AuthorityCode":"UP","Country":"GB"}`},
		{"/references/flags", "FlagId", `{"FlagId":"%s","Name":"Up","Type":"Organisation"}`},
	} {
		n := auditTotal(a)
		r, m := a.do("POST", c.path, fmt.Sprintf(c.body, up))
		if r.StatusCode != 422 || !strings.Contains(fieldsOf(m)[c.idField], "lower case") {
			t.Errorf("POST %s with %s in capitals: %d %v, want 422 naming it", c.path, c.idField, r.StatusCode, m)
		}
		if auditTotal(a) != n {
			t.Errorf("POST %s with %s in capitals wrote an audit record", c.path, c.idField)
		}
		if r, m := a.do("POST", c.path, fmt.Sprintf(c.body, low)); r.StatusCode != 201 || m[c.idField] != low {
			t.Errorf("POST %s with %s in lower case: %d %v, want 201", c.path, c.idField, r.StatusCode, m)
		}
	}
}

// TestBadTimestampMemberIsNamed: a read-only timestamp sent back in
// another form is a 400 naming the member (encoding/json's own error does
// not say which), as any other mistyped member is.
func TestBadTimestampMemberIsNamed(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Stamp"))["OrganisationId"].(string)
	for member, value := range map[string]string{"CreatedOn": `"yesterday"`, "UpdatedOn": `123`} {
		body := `{"OrganisationName":"Stamp","RegistrationNumber":"REG-Stamp","CountryOfRegistration":"GB","` + member + `":` + value + `}`
		if r, m := a.do("PUT", "/organisations/"+oid, body); r.StatusCode != 400 || fieldsOf(m)[member] == "" {
			t.Errorf("%s %s: %d %v, want 400 naming %s", member, value, r.StatusCode, m, member)
		}
	}
	a.must(200, "PUT", "/organisations/"+oid, `{"OrganisationName":"Stamp","RegistrationNumber":"REG-Stamp","CountryOfRegistration":"GB","Status":"Pending","CreatedOn":"2026-03-01T09:30:00Z","UpdatedOn":null}`)
}

// TestMemberNamesFoldedByUnicodeAreUnknown: encoding/json matches member
// names by Unicode case folding, in which ſ (U+017F) is an s and K
// (U+212A, the Kelvin sign) a k: "ſtatus" set Status, beside a "Status"
// of the same object too, although names are case-sensitive
// (docs/design.md §4). They are unknown fields, naming the name meant.
func TestMemberNamesFoldedByUnicodeAreUnknown(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Fold"))["OrganisationId"].(string)
	before := toJSON(t, a.must(200, "GET", "/organisations/"+oid, ""))
	n := auditTotal(a)
	for _, c := range []struct{ method, path, body, field string }{
		{"POST", "/references/contact-types", `{"Name":"Folded","De` + "\u017f" + `cription":"x"}`, "De\u017fcription"},
		{"PUT", "/organisations/" + oid, `{"OrganisationName":"Fold","RegistrationNumber":"REG-Fold","CountryOfRegistration":"GB","Status":"Pending","` + "\u017f" + `tatus":"Withdrawn"}`, "\u017ftatus"},
		{"POST", "/references/flags", `{"Name":"Folded","Type":"Organisation","Ȿtatus":"Inactive","` + "\u212a" + `ind":"x"}`, ""},
	} {
		r, m := a.do(c.method, c.path, c.body)
		if r.StatusCode != 400 || (c.field != "" && fieldsOf(m)[c.field] == "") {
			t.Errorf("%s %s %s: %d %v, want 400 naming %q", c.method, c.path, c.body, r.StatusCode, m, c.field)
		}
	}
	if after := toJSON(t, a.must(200, "GET", "/organisations/"+oid, "")); after != before || auditTotal(a) != n {
		t.Fatalf("a refused body changed something: %s -> %s", before, after)
	}
}

// TestLoneSurrogateEscapesAreRefused: "\ud800" (half a surrogate pair) is
// no character; encoding/json keeps U+FFFD in its place, so the text kept
// would not be the text sent: a 422 naming the member. A pair, and a
// U+FFFD written as such, are text.
func TestLoneSurrogateEscapesAreRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for _, name := range []string{`a\ud800b`, `a\udc00`, `\ud83dx\ude00`} {
		n := auditTotal(a)
		if r, m := a.do("POST", "/references/contact-types", `{"Name":"`+name+`"}`); r.StatusCode != 422 || fieldsOf(m)["Name"] == "" {
			t.Errorf("Name %s: %d %v, want 422 naming Name", name, r.StatusCode, m)
		}
		if auditTotal(a) != n {
			t.Errorf("Name %s wrote an audit record", name)
		}
	}
	for _, name := range []string{`smile \ud83d\ude00`, `kept \ufffd`, "kept \ufffd too", `kept \uFFFD upper`} {
		a.must(201, "POST", "/references/contact-types", `{"Name":"`+name+`"}`)
	}
}
