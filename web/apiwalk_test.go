package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// auditTotal is how many records the audit log holds.
func auditTotal(a *api) float64 {
	a.t.Helper()
	return a.must(200, "GET", "/audit?size=1", "")["totalSize"].(float64)
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

// TestStatusReasonHasAMaximum: StatusReason, kept in the audit record, has
// the 500 characters the OpenAPI description gives it (docs/decisions.md,
// "Field limits"): one more is a 422 naming it, on a reactivation and on
// an update that changes no status alike, and nothing is written.
func TestStatusReasonHasAMaximum(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	body := func(status, reason string) string {
		return `{"OrganisationName":"Why","RegistrationNumber":"REG-Why","CountryOfRegistration":"GB","Status":"` + status + `","StatusReason":"` + reason + `"}`
	}
	oid := a.must(201, "POST", "/organisations", body("Active", ""))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App","Status":"Withdrawn"}`)["SoftwareStatementId"].(string)
	long := strings.Repeat("é", 501)
	for _, c := range []struct{ path, body string }{
		{"/organisations/" + oid, body("Active", long)},
		{"/organisations/" + oid, body("Withdrawn", long)},
		{"/organisations/" + oid + "/softwarestatements/" + aid, `{"ClientName":"App","Status":"Active","StatusReason":"` + long + `"}`},
	} {
		n := auditTotal(a)
		r, m := a.do("PUT", c.path, c.body)
		if r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["StatusReason"], "500") {
			t.Errorf("PUT %s with a reason of 501 characters: %d %v, want 422 naming StatusReason", c.path, r.StatusCode, m)
		}
		if auditTotal(a) != n {
			t.Errorf("PUT %s with a reason of 501 characters wrote an audit record", c.path)
		}
	}
	if got := a.must(200, "GET", "/organisations/"+oid+"/softwarestatements/"+aid, ""); got["Status"] != "Withdrawn" {
		t.Fatalf("a refused reactivation reactivated: %v", got["Status"])
	}
	a.must(200, "PUT", "/organisations/"+oid+"/softwarestatements/"+aid, `{"ClientName":"App","Status":"Active","StatusReason":"`+strings.Repeat("é", 500)+`"}`)
}

// TestReferenceTypeNamesHaveNoSurroundingSpaces: a contact, document or
// certification type is addressed by its name in its URL, as domains and
// roles are, and the console trims what it sends: "Billing " beside
// "Billing" is a 422 naming Name, as for a domain, and nothing is made.
func TestReferenceTypeNamesHaveNoSurroundingSpaces(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for _, kind := range []string{"contact-types", "document-types", "certification-types"} {
		for _, name := range []string{"Billing ", " Billing", "\u00a0Billing", "Billing\u3000"} {
			n := auditTotal(a)
			r, m := a.do("POST", "/references/"+kind, `{"Name":"`+name+`"}`)
			if r.StatusCode != 422 || fieldsOf(m)["Name"] == "" {
				t.Errorf("POST /references/%s %q: %d %v, want 422 naming Name", kind, name, r.StatusCode, m)
			}
			if auditTotal(a) != n {
				t.Errorf("POST /references/%s %q wrote an audit record", kind, name)
			}
		}
		a.must(201, "POST", "/references/"+kind, `{"Name":"Two words"}`)
	}
}

// TestNamesInURLsHaveNoControlCharacters: a name that is its own URL
// segment (reference types, domains, roles, identity providers) holding a
// tab, a line break, another control character or a direction mark
// (U+202E turns "evil" around on screen) is a 422 naming Name, and
// nothing is made.
func TestNamesInURLsHaveNoControlCharacters(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	setupDomains(t, a)
	for _, name := range []string{`Tab\tName`, `New\nLine`, `Bell\u0007`, `C1\u0085x`, `RTL\u202eevil`, `Iso\u2067x`} {
		for _, c := range []struct{ path, body string }{
			{"/references/contact-types", `{"Name":"` + name + `"}`},
			{"/references/certification-types", `{"Name":"` + name + `"}`},
			{"/references/authorisation-domains", `{"Name":"` + name + `"}`},
			{"/references/authorisation-domains/Payments/roles", `{"Name":"` + name + `","Type":"Directory"}`},
			{"/references/identity-providers", `{"Name":"` + name + `","Issuer":"https://login.example.org","EmailDomains":["example.org"]}`},
		} {
			n := auditTotal(a)
			r, m := a.do("POST", c.path, c.body)
			if r.StatusCode != 422 || fieldsOf(m)["Name"] == "" {
				t.Errorf("POST %s %s: %d %v, want 422 naming Name", c.path, c.body, r.StatusCode, m)
			}
			if auditTotal(a) != n {
				t.Errorf("POST %s %s wrote an audit record", c.path, c.body)
			}
		}
	}
	// Letters of any script still make a name.
	a.must(201, "POST", "/references/contact-types", `{"Name":"فوترة"}`)
}

// TestExpiredTokenSaysWhenOnEveryRequest: a token the service verified
// before and that has expired since is refused in the same words as one
// seen first after its expiry ("it expired at …; get a new one"), not in
// go-oidc's own ("oidc: token is expired").
func TestExpiredTokenSaysWhenOnEveryRequest(t *testing.T) {
	clock := &testClock{t: time.Now()}
	env := webtest.Start(t, func(c *web.Config) { c.Now = clock.Now })
	a := newAPI(t, env, "admin@example.com")
	a.must(200, "GET", "/organisations", "")
	clock.Add(time.Hour)
	for i := 0; i < 2; i++ {
		r, m := a.do("GET", "/organisations", "")
		if d, _ := m["detail"].(string); r.StatusCode != 401 || !strings.Contains(d, "it expired at ") || strings.Contains(d, "oidc") {
			t.Errorf("request %d after expiry: %d %q, want 401 saying when it expired", i+1, r.StatusCode, d)
		}
	}
}

// TestWebhookIdCannotChange: a webhook's PUT naming another WebhookId
// than its URL's is a 422 naming it, as an organisation's, a domain's or
// an authority's is, not an update of the webhook of the URL.
func TestWebhookIdCannotChange(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	other := a.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.4.4/h","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	before := toJSON(t, a.must(200, "GET", "/references/webhooks/"+id, ""))
	n := auditTotal(a)
	for _, wid := range []string{`"` + other + `"`, `"nope"`, `5`} {
		r, m := a.do("PUT", "/references/webhooks/"+id, `{"WebhookId":`+wid+`,"Url":"https://1.1.1.1/h","SubjectTypes":["Application"]}`)
		if r.StatusCode != 422 || fieldsOf(m)["WebhookId"] == "" {
			t.Errorf("PUT with WebhookId %s: %d %v, want 422 naming WebhookId", wid, r.StatusCode, m)
		}
	}
	if after := toJSON(t, a.must(200, "GET", "/references/webhooks/"+id, "")); after != before || auditTotal(a) != n {
		t.Fatalf("a refused PUT changed the webhook: %s -> %s", before, after)
	}
	// Its own id, sent back as read, is fine.
	a.must(200, "PUT", "/references/webhooks/"+id, `{"WebhookId":"`+id+`","Url":"https://1.1.1.1/h","SubjectTypes":["Application"]}`)
}

// TestFlagIdTakenIsAConflict: a flag created with the FlagId of another
// flag is a 409, as an organisation's or an authority's taken id is, not
// a 500 from the table's constraint; nothing is written.
func TestFlagIdTakenIsAConflict(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	const id = "7a0c6d0e-2f7e-4d8e-9a61-3f5b8f0c1d2e"
	a.must(201, "POST", "/references/flags", `{"FlagId":"`+id+`","Name":"First","Type":"Organisation"}`)
	n := auditTotal(a)
	r, m := a.do("POST", "/references/flags", `{"FlagId":"`+id+`","Name":"Second","Type":"Software_Statement"}`)
	if r.StatusCode != 409 || !strings.Contains(r.Header.Get("Content-Type"), "problem+json") {
		t.Fatalf("POST a flag with a taken FlagId: %d %v, want 409", r.StatusCode, m)
	}
	if got := a.must(200, "GET", "/references/flags/"+id, ""); got["Name"] != "First" || auditTotal(a) != n {
		t.Fatalf("a refused create changed something: %v", got)
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

// TestApplicationListsNameEachItemOnce: a redirect URI or a role listed
// twice is a 422 naming the list, as an origin or a flag listed twice is;
// the SSA carried software_roles ["PISP","PISP"] and the redirect URI
// twice.
func TestApplicationListsNameEachItemOnce(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Twice"))["OrganisationId"].(string)
	grant(t, a, oid, setupDomains(t, a), "Payments", "PISP")
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App","Roles":["PISP"],"RedirectUri":["https://app.example/cb"]}`)["SoftwareStatementId"].(string)
	before := toJSON(t, a.must(200, "GET", "/organisations/"+oid+"/softwarestatements/"+aid, ""))
	for field, body := range map[string]string{
		"Roles":       `{"ClientName":"App","Status":"Active","Roles":["PISP","PISP"],"RedirectUri":["https://app.example/cb"]}`,
		"RedirectUri": `{"ClientName":"App","Status":"Active","Roles":["PISP"],"RedirectUri":["https://app.example/cb","https://app.example/cb"]}`,
	} {
		n := auditTotal(a)
		if r, m := a.do("POST", "/organisations/"+oid+"/softwarestatements", body); r.StatusCode != 422 || !strings.Contains(fieldsOf(m)[field], "twice") {
			t.Errorf("create with %s listing an item twice: %d %v, want 422 naming %s", field, r.StatusCode, m, field)
		}
		if r, m := a.do("PUT", "/organisations/"+oid+"/softwarestatements/"+aid, body); r.StatusCode != 422 || !strings.Contains(fieldsOf(m)[field], "twice") {
			t.Errorf("update with %s listing an item twice: %d %v, want 422 naming %s", field, r.StatusCode, m, field)
		}
		if after := toJSON(t, a.must(200, "GET", "/organisations/"+oid+"/softwarestatements/"+aid, "")); after != before || auditTotal(a) != n {
			t.Errorf("a refused %s changed something", field)
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

// TestImportRefusesTextNoEngineCanKeep: a CSV cell holding a NUL or bytes
// that are not UTF-8 is a 422 naming its row and column, as in a JSON body
// or a form (docs/design.md §4), and nothing is imported.
func TestImportRefusesTextNoEngineCanKeep(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	n := auditTotal(a)
	r, m := postCSV(t, a, "OrganisationName,RegistrationNumber,CountryOfRegistration,City\nNul\x00Bank,R1,GB,London\nGood Bank,R2,GB,Lon\xffdon\n")
	if f := fieldsOf(m); r.StatusCode != 422 || f["rows[1].OrganisationName"] == "" || f["rows[2].City"] == "" {
		t.Fatalf("import with a NUL and a byte not UTF-8: %d %v, want 422 naming rows[1].OrganisationName and rows[2].City", r.StatusCode, m)
	}
	if l := a.must(200, "GET", "/organisations", ""); l["totalSize"] != 0.0 || auditTotal(a) != n {
		t.Fatalf("a refused import changed something: %v", l["totalSize"])
	}
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

// TestPageOrSizeGivenTwiceIsRefused: page or size given twice is a 400
// naming it, as signingAlg twice is (docs/decisions.md): the list read the
// first and dropped the second, even when the second was out of range,
// where a proxy or a cache in front may read the last.
func TestPageOrSizeGivenTwiceIsRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Twice"))["OrganisationId"].(string)
	for _, path := range []string{"/organisations", "/organisations/" + oid + "/contacts", "/organisations/" + oid + "/documents", "/audit"} {
		for _, q := range []string{"page=0&page=-1", "page=1&page=0", "size=20&size=0", "size=5&size=5"} {
			if r, m := a.do("GET", path+"?"+q, ""); r.StatusCode != 400 || fieldsOf(m)[q[:strings.Index(q, "=")]] == "" {
				t.Errorf("GET %s?%s: %d %v, want 400 naming the parameter", path, q, r.StatusCode, m)
			}
		}
		a.must(200, "GET", path+"?page=0&size=5", "")
	}
}

// TestOrganisationFiltersGivenTwiceAreRefused: a filter or the sort of
// the organisation list (and its CSV export) given twice is a 400 naming
// it: ?Status=Active&Status=Nope listed the Active ones, and
// ?Status=Nope&Status=Active was refused.
func TestOrganisationFiltersGivenTwiceAreRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	a.must(201, "POST", "/organisations", org("Filtered"))
	for _, path := range []string{"/organisations", "/organisations/export.csv"} {
		for _, q := range []string{"Status=Active&Status=Nope", "Status=Pending&Status=Pending", "q=a&q=b", "Flag=x&Flag=y", "sort=OrganisationName,asc&sort=Nope,asc"} {
			r, m := a.do("GET", path+"?"+q, "")
			if r.StatusCode != 400 || fieldsOf(m)[q[:strings.Index(q, "=")]] == "" {
				t.Errorf("GET %s?%s: %d %v, want 400 naming the parameter", path, q, r.StatusCode, m)
			}
		}
		a.must(200, "GET", path+"?Status=Pending&q=Filt", "")
	}
}
