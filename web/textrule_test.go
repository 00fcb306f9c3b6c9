package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// refusedInOneLine are characters the text rule (docs/design.md §4) refuses
// in any text member: C0 and C1 controls, DEL, direction marks, overrides
// and isolates, and the line and paragraph separators.
var refusedInOneLine = []string{
	"\u0000", "\u0007", "\u001b[31m", "\t", "\n", "\r", "\r\n", "\u007f", "\u0085", "\u009b",
	"\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\u2028", "\u2029",
}

// refusedInLines are those the rule refuses in a multi-line member: all of
// the above but a line break (LF or CRLF) and a tab.
var refusedInLines = []string{
	"\u0000", "\u0007", "\u001b[31m", "\r", "x\ry", "\u007f", "\u0085", "\u009b",
	"\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\u2028", "\u2029",
}

// ordinaryText is text the rule lets through: accents, CJK, emoji, and a
// zero-width joiner inside an emoji sequence.
var ordinaryText = []string{"Société Générale", "株式会社テスト", "Bank 🏦", "Team 👩\u200d💻"}

// TestTextRuleRefusesControlsAndDirectionMarks: free text a person reads
// holds no control character, direction mark or line separator (one-line
// members), and only line breaks and tabs besides (multi-line members): a
// PUT or POST carrying one is a 422 naming the member, and a GET after
// shows the old value; ordinary Unicode still goes through.
func TestTextRuleRefusesControlsAndDirectionMarks(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	orgPath := "/organisations/" + oid
	cid := a.must(201, "POST", orgPath+"/contacts", `{"ContactType":"Technical","FirstName":"Tom","LastName":"Adams","EmailAddress":"tom@acme.example"}`)["ContactId"].(string)
	disc := discoveryServer(t, func(self string) string { return self })
	sid := a.must(201, "POST", orgPath+"/authorisationservers", `{"CustomerFriendlyName":"AS","Description":"first","Issuer":"`+disc+`"}`)["AuthorisationServerId"].(string)
	aid := a.must(201, "POST", orgPath+"/softwarestatements", `{"ClientName":"App","Description":"first"}`)["SoftwareStatementId"].(string)
	did := a.must(201, "POST", orgPath+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"REF-1","DocumentDescription":"licence"}`)["DocumentId"].(string)
	a.must(201, "POST", "/references/contact-types", `{"Name":"Kept","Description":"kept"}`)

	type member struct {
		name, path, field string
		lines             bool
		body              func(v string) map[string]any
	}
	orgBody := func(field string) func(string) map[string]any {
		return func(v string) map[string]any {
			m := map[string]any{"OrganisationName": "Acme", "LegalEntityName": "Acme Ltd", "RegistrationNumber": "REG-Acme", "CountryOfRegistration": "GB", "Status": "Pending"}
			m[field] = v
			return m
		}
	}
	members := []member{
		{"organisation name", orgPath, "OrganisationName", false, orgBody("OrganisationName")},
		{"legal entity name", orgPath, "LegalEntityName", false, orgBody("LegalEntityName")},
		{"contact first name", orgPath + "/contacts/" + cid, "FirstName", false, func(v string) map[string]any {
			return map[string]any{"ContactType": "Technical", "FirstName": v, "LastName": "Adams", "EmailAddress": "tom@acme.example"}
		}},
		{"server name", orgPath + "/authorisationservers/" + sid, "CustomerFriendlyName", false, func(v string) map[string]any {
			return map[string]any{"CustomerFriendlyName": v, "Description": "first", "Issuer": disc, "Status": "Active"}
		}},
		{"server description", orgPath + "/authorisationservers/" + sid, "Description", true, func(v string) map[string]any {
			return map[string]any{"CustomerFriendlyName": "AS", "Description": v, "Issuer": disc, "Status": "Active"}
		}},
		{"application name", orgPath + "/softwarestatements/" + aid, "ClientName", false, func(v string) map[string]any {
			return map[string]any{"ClientName": v, "Description": "first", "Status": "Active"}
		}},
		{"application description", orgPath + "/softwarestatements/" + aid, "Description", true, func(v string) map[string]any {
			return map[string]any{"ClientName": "App", "Description": v, "Status": "Active"}
		}},
		{"document reference", orgPath + "/documents/" + did, "DocumentReferenceNumber", false, func(v string) map[string]any {
			return map[string]any{"DocumentType": "Licence", "DocumentReferenceNumber": v, "DocumentDescription": "licence"}
		}},
		{"document description", orgPath + "/documents/" + did, "DocumentDescription", false, func(v string) map[string]any {
			return map[string]any{"DocumentType": "Licence", "DocumentReferenceNumber": "REF-1", "DocumentDescription": v}
		}},
		{"reference-data description", "/references/contact-types/Kept", "Description", false, func(v string) map[string]any {
			return map[string]any{"Name": "Kept", "Description": v, "Status": "Active"}
		}},
	}
	for _, m := range members {
		before := a.must(200, "GET", m.path, "")[m.field]
		bad := refusedInOneLine
		if m.lines {
			bad = refusedInLines
		}
		for _, c := range bad {
			v := "Be" + c + "fore"
			r, p := a.do("PUT", m.path, jsonBody(t, m.body(v)))
			if f := fieldsOf(p); r.StatusCode != http.StatusUnprocessableEntity || f[m.field] == "" {
				t.Errorf("%s with %q: %d %v, want 422 naming %s", m.name, c, r.StatusCode, p, m.field)
			}
			if got := a.must(200, "GET", m.path, "")[m.field]; got != before {
				t.Fatalf("%s with %q: saved despite the refusal: %q, was %q", m.name, c, got, before)
			}
		}
		good := append([]string{}, ordinaryText...)
		if m.lines {
			good = append(good, "line one\nline two", "a\tb", "windows\r\nline")
		}
		for _, v := range good {
			r, p := a.do("PUT", m.path, jsonBody(t, m.body(v)))
			if r.StatusCode != http.StatusOK {
				t.Errorf("%s with %q: %d %v, want 200", m.name, v, r.StatusCode, p)
				continue
			}
			if got := a.must(200, "GET", m.path, "")[m.field]; got != v {
				t.Errorf("%s: kept %q, sent %q", m.name, got, v)
			}
		}
		// Back as it was, for the next member's body.
		a.must(200, "PUT", m.path, jsonBody(t, m.body(before.(string))))
	}

	// A reference-data name (a URL segment) and new resources: refused
	// on create, nothing created.
	for _, c := range refusedInOneLine {
		for _, cr := range []struct{ path, field string }{
			{"/references/contact-types", "Name"},
			{"/organisations", "OrganisationName"},
			{orgPath + "/softwarestatements", "ClientName"},
		} {
			body := map[string]any{cr.field: "Ev" + c + "il"}
			if cr.path == "/organisations" {
				body = map[string]any{"OrganisationName": "Ev" + c + "il", "RegistrationNumber": "R", "CountryOfRegistration": "GB"}
			}
			if r, p := a.do("POST", cr.path, jsonBody(t, body)); r.StatusCode != http.StatusUnprocessableEntity || fieldsOf(p)[cr.field] == "" {
				t.Errorf("POST %s with %q: %d %v, want 422 naming %s", cr.path, c, r.StatusCode, p, cr.field)
			}
		}
	}
	if l := a.must(200, "GET", "/organisations", ""); l["totalSize"] != 1.0 {
		t.Errorf("organisations created despite the refusal: %v", l["totalSize"])
	}
	if l := a.must(200, "GET", orgPath+"/softwarestatements", ""); len(l["list"].([]any)) != 1 {
		t.Errorf("applications created despite the refusal: %d", len(l["list"].([]any)))
	}
	for _, it := range a.must(200, "GET", "/references/contact-types", "")["list"].([]any) {
		if n := it.(map[string]any)["Name"].(string); strings.HasPrefix(n, "Ev") {
			t.Errorf("contact type %q created despite the refusal", n)
		}
	}
	// Members that are not text a person reads keep their line breaks: a
	// PEM certificate is still read (and refused for what it is, not for
	// its line breaks).
	r, p := a.do("POST", orgPath+"/certificates", jsonBody(t, map[string]any{"PEM": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}))
	if fieldsOf(p)["PEM"] != "" && strings.Contains(fieldsOf(p)["PEM"], "control") {
		t.Errorf("a PEM was refused under the text rule: %d %v", r.StatusCode, p)
	}
}

// TestTextRuleInTheConsole: a console form with a control character or a
// direction override in a text field is shown again with the message
// beside the field, and nothing is saved; a text area keeps its line
// breaks (CRLF, as browsers send them).
func TestTextRuleInTheConsole(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	cid := a.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Technical","FirstName":"Tom","LastName":"Adams","EmailAddress":"tom@acme.example"}`)["ContactId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	post := func(path string, form url.Values) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest("POST", env.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", env.URL)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	apps := "/organisations/" + oid + "/softwarestatements"
	for _, fc := range []struct {
		path   string
		form   url.Values
		fields []string
	}{
		{"/organisations", url.Values{"OrganisationName": {"Acme\u202eevil"}, "LegalEntityName": {"Acme\u0007Ltd"}, "RegistrationNumber": {"1"}, "CountryOfRegistration": {"GB"}}, []string{"OrganisationName", "LegalEntityName"}},
		{"/organisations/" + oid, url.Values{"OrganisationName": {"Ac\u2028me"}, "RegistrationNumber": {"REG-Acme"}, "CountryOfRegistration": {"GB"}, "Status": {"Pending"}}, []string{"OrganisationName"}},
		{"/organisations/" + oid + "/contacts/" + cid, url.Values{"ContactType": {"Technical"}, "FirstName": {"T\u001b[31mom"}, "LastName": {"Adams"}, "EmailAddress": {"tom@acme.example"}}, []string{"FirstName"}},
		{apps, url.Values{"ClientName": {"App\u200f"}, "Description": {"one\r\ntwo\u0007"}, "Status": {"Active"}}, []string{"ClientName", "Description"}},
	} {
		status, body := post(fc.path, fc.form)
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d, want 422", fc.path, status)
		}
		doc := htmlDoc(t, body)
		for _, field := range fc.fields {
			in := doc.Find("#f-" + field)
			if in.Length() != 1 {
				t.Fatalf("%s: the form is not shown again: no #f-%s in %.300s", fc.path, field, body)
			}
			msgID, _ := in.Attr("aria-describedby")
			if msg := doc.Find("#" + msgID).Text(); msgID == "" || !strings.Contains(msg, "control characters") {
				t.Errorf("%s: %s: message beside the field %q (aria-describedby %q)", fc.path, field, msg, msgID)
			}
		}
	}
	if l := a.must(200, "GET", "/organisations", ""); l["totalSize"] != 1.0 {
		t.Fatalf("saved despite the refusal: %v", l["totalSize"])
	}
	if o := a.must(200, "GET", "/organisations/"+oid, ""); o["OrganisationName"] != "Acme" {
		t.Fatalf("saved despite the refusal: %v", o["OrganisationName"])
	}
	if ct := a.must(200, "GET", "/organisations/"+oid+"/contacts/"+cid, ""); ct["FirstName"] != "Tom" {
		t.Fatalf("saved despite the refusal: %v", ct["FirstName"])
	}
	if l := a.must(200, "GET", apps, ""); len(l["list"].([]any)) != 0 {
		t.Fatalf("saved despite the refusal: %v", l["list"])
	}
	// A text area's line breaks are kept.
	if status, body := post(apps, url.Values{"ClientName": {"App"}, "Description": {"one\r\n\ttwo"}, "Status": {"Active"}}); status != http.StatusSeeOther && status != http.StatusOK {
		t.Fatalf("line breaks in a text area: %d %.300s", status, body)
	}
	if l := a.must(200, "GET", apps, ""); len(l["list"].([]any)) != 1 || l["list"].([]any)[0].(map[string]any)["Description"] != "one\r\n\ttwo" {
		t.Fatalf("line breaks in a text area: %v", l["list"])
	}
}

// TestImportAppliesTheTextRule: a CSV import's cell holding a control
// character or direction mark is a 422 naming its row and column, and
// nothing is imported.
func TestImportAppliesTheTextRule(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for _, c := range []string{"\u0007", "\u001b[31m", "\u202e", "\u2028", "\u0085", "\t", "\n"} {
		csv := "OrganisationName,RegistrationNumber,CountryOfRegistration,City\r\n" +
			"Good,1,GB,London\r\n" +
			"Fine,2,GB,\"Lon" + c + "don\"\r\n"
		r, p := a.do("POST", "/organisations/import", csv, "Content-Type", "text/csv")
		f := fieldsOf(p)
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(f["rows[2].City"], "Row 2") || !strings.Contains(f["rows[2].City"], "City") {
			t.Errorf("%q: %d %v, want 422 naming rows[2].City", c, r.StatusCode, p)
		}
	}
	if l := a.must(200, "GET", "/organisations", ""); l["totalSize"] != 0.0 {
		t.Fatalf("imported despite the refusal: %v", l["totalSize"])
	}
	csv := "OrganisationName,RegistrationNumber,CountryOfRegistration,City\r\nSociété 🏦,1,FR,Zürich\r\n株式会社,2,JP,東京\r\n"
	if r, p := a.do("POST", "/organisations/import", csv, "Content-Type", "text/csv"); r.StatusCode != http.StatusCreated {
		t.Fatalf("ordinary text: %d %v", r.StatusCode, p)
	}
}

// TestTextRuleInGroupMappings: the console's group mappings are read line
// by line from a text area, after the form is decoded: a group name there
// follows the same rule.
func TestTextRuleInGroupMappings(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	admin.must(201, "POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, g := range []string{"o\u202eps", "o\u0085ps", "o\u2066ps"} {
		form := url.Values{"Name": {"kc"}, "Issuer": {op.srv.URL}, "EmailDomains": {"example.com"}, "Status": {"Active"}, "GroupRoles": {g + " = DataAdministrator"}}
		req, _ := http.NewRequest("POST", env.URL+"/references/identity-providers/kc", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", env.URL)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "direction marks") {
			t.Errorf("%q: %d, want 422 with the message", g, resp.StatusCode)
		}
	}
	if m := admin.must(200, "GET", "/references/identity-providers/kc", ""); len(m["GroupRoles"].([]any)) != 0 {
		t.Fatalf("saved despite the refusal: %v", m["GroupRoles"])
	}
}

// TestTextRuleInMoreConsoleForms: the document, webhook, identity
// provider, reference data, key material and policy forms also show the text rule's refusal beside the field, with
// their own checks, and save nothing.
func TestTextRuleInMoreConsoleForms(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	a.must(201, "POST", "/references/identity-providers", `{"Name":"kc","Description":"first","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, fc := range []struct {
		path  string
		form  url.Values
		field string
	}{
		{"/organisations/" + oid + "/documents", url.Values{"DocumentType": {"Licence"}, "DocumentDescription": {"lic\u0007ence"}}, "DocumentDescription"},
		{"/references/webhooks", url.Values{"Url": {"https://8.8.8.8/h"}, "Description": {"hook\u202e"}, "SubjectTypes": {"Organisation"}, "Status": {"Active"}}, "Description"},
		{"/references/identity-providers/kc", url.Values{"Issuer": {op.srv.URL}, "Description": {"Corp\u2066"}, "EmailDomains": {"example.com"}, "Status": {"Active"}}, "Description"},
		{"/references/contact-types", url.Values{"Name": {"Ops"}, "Description": {"d\u202e"}}, "Description"},
		{"/references/flags", url.Values{"Name": {"Fl\u2028ag"}, "Type": {"Organisation"}, "Description": {"d"}}, "Name"},
		{"/references/authorisation-domains", url.Values{"Name": {"Pay"}, "Description": {"x\u0085y"}}, "Description"},
		{"/references/authorities", url.Values{"AuthorityName": {"Reg\u202eulator"}, "AuthorityCode": {"RG"}, "Country": {"GB"}}, "AuthorityName"},
		{"/organisations/" + oid + "/key-material", url.Values{"Key": {"{}"}, "Use": {"sig"}, "Description": {"k\u0007ey"}}, "Description"},
		{"/references/role-metadata-policies", url.Values{"DomainRole": {"Pay/PISP"}, "EntityType": {"openid_relying_party"}, "Policy": {"{}"}, "Description": {"p\u202e"}}, "Description"},
	} {
		_, edit := page(t, c, env.URL+fc.path+"/edit") // the edit page, which sends its version
		fc.form.Set("IfMatch", edit.Find("input[name=IfMatch]").AttrOr("value", ""))
		req, _ := http.NewRequest("POST", env.URL+fc.path, strings.NewReader(fc.form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", env.URL)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		doc := htmlDoc(t, body)
		msgID, _ := doc.Find("#f-" + fc.field).Attr("aria-describedby")
		if msg := doc.Find("#" + msgID).Text(); resp.StatusCode != http.StatusUnprocessableEntity || msgID == "" || !strings.Contains(msg, "control characters") {
			t.Errorf("%s: %d, message beside %s %q", fc.path, resp.StatusCode, fc.field, msg)
		}
	}
	for _, item := range []string{"/references/contact-types/Ops", "/references/authorisation-domains/Pay"} {
		if r, _ := a.do("GET", item, ""); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s: saved despite the refusal: %d", item, r.StatusCode)
		}
	}
	for _, list := range []string{"/organisations/" + oid + "/documents", "/references/webhooks", "/references/flags", "/references/authorities"} {
		l := a.must(200, "GET", list, "")
		if items, _ := l["list"].([]any); len(items) != 0 || (l["totalSize"] != nil && l["totalSize"] != 0.0) {
			t.Errorf("%s: saved despite the refusal: %v", list, l)
		}
	}
	if p := a.must(200, "GET", "/references/identity-providers/kc", ""); p["Description"] != "first" {
		t.Errorf("the identity provider was changed: %v", p["Description"])
	}
}

// TestTextRuleInRowEdits: a domain's and an authority's edit forms (in
// their rows of the Domains and Roles page) show the refusal beside the
// field, and save nothing.
func TestTextRuleInRowEdits(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	a.must(201, "POST", "/references/authorisation-domains", `{"Name":"Pay","Description":"payments"}`)
	au := a.must(201, "POST", "/references/authorities", `{"AuthorityName":"Regulator","AuthorityCode":"RG","Country":"GB","AuthorisationDomains":["Pay"]}`)["AuthorityId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, fc := range []struct {
		path  string
		form  url.Values
		field string
	}{
		{"/references/authorisation-domains/Pay", url.Values{"Description": {"pay\u0007ments"}, "Status": {"Active"}}, "Description"},
		{"/references/authorities/" + au, url.Values{"AuthorityName": {"Regu\u202elator"}, "AuthorityCode": {"RG"}, "Country": {"GB"}, "AuthorisationDomains": {"Pay"}, "Status": {"Active"}}, "AuthorityName"},
	} {
		_, edit := page(t, c, env.URL+fc.path+"/edit") // the edit page, which sends its version
		fc.form.Set("IfMatch", edit.Find("input[name=IfMatch]").AttrOr("value", ""))
		req, _ := http.NewRequest("POST", env.URL+fc.path, strings.NewReader(fc.form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", env.URL)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		doc := htmlDoc(t, body)
		msgID, _ := doc.Find(`[name=` + fc.field + `][aria-invalid=true]`).Attr("aria-describedby")
		if msg := doc.Find("#" + msgID).Text(); resp.StatusCode != http.StatusUnprocessableEntity || msgID == "" || !strings.Contains(msg, "control characters") {
			t.Errorf("%s: %d, message beside %s %q", fc.path, resp.StatusCode, fc.field, msg)
		}
	}
	if d := a.must(200, "GET", "/references/authorisation-domains/Pay", ""); d["Description"] != "payments" {
		t.Errorf("domain saved despite the refusal: %v", d)
	}
	if got := a.must(200, "GET", "/references/authorities/"+au, ""); got["AuthorityName"] != "Regulator" {
		t.Errorf("authority saved despite the refusal: %v", got)
	}
}

// TestTextRuleInAReactivationReason: a reactivation's reason (a text area:
// line breaks allowed) with a control character is refused beside the
// field, and nothing changes; one with line breaks reactivates.
func TestTextRuleInAReactivationReason(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	id := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	su.must(200, "PUT", "/organisations/"+id, strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Withdrawn"}`)
	reURL := env.URL + "/organisations/" + id + "/reactivate"
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(reURL, url.Values{"StatusReason": {"by \u001b[31mmistake"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if msg := htmlDoc(t, body).Find("#e-StatusReason").Text(); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, "control characters") {
		t.Fatalf("%d, message beside the field %q", resp.StatusCode, msg)
	}
	if got := su.must(200, "GET", "/organisations/"+id, "")["Status"]; got != "Withdrawn" {
		t.Fatalf("after the refusal: %v", got)
	}
	resp, err = c.PostForm(reURL, url.Values{"StatusReason": {"withdrawn\r\nby mistake"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := su.must(200, "GET", "/organisations/"+id, "")["Status"]; got != "Active" {
		t.Fatalf("after reactivation: %v", got)
	}
}

// TestTextRuleInKeyMaterial: a PEM (not text to read) keeps its line
// breaks; an attachment's Description (a multipart part, read apart from
// Decode) follows the one-line rule: 422 naming it, nothing attached.
func TestTextRuleInKeyMaterial(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/key-material"
	id := a.must(201, "POST", base, jsonBody(t, map[string]any{"PEM": webtest.ValidCert(t, "rsa2048", "km"), "Use": "enc", "Description": "bank\u00e9 🏦"}))["KeyMaterialID"].(string)
	for _, c := range []string{"\u202e", "\u0007", "\n", "\u2029"} {
		r, m := a.multipart("POST", base+"/"+id+"/attachments", "policy.pdf", []byte("%PDF-1.4"), "key"+c+"policy")
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(fieldsOf(m)["Description"], "control characters") {
			t.Errorf("%q: %d %v, want 422 naming Description", c, r.StatusCode, m)
		}
	}
	if l := a.must(200, "GET", base+"/"+id+"/attachments", ""); len(l["list"].([]any)) != 0 {
		t.Fatalf("attached despite the refusal: %v", l["list"])
	}
	if r, m := a.multipart("POST", base+"/"+id+"/attachments", "policy.pdf", []byte("%PDF-1.4"), "Schlüssel 👩‍💻"); r.StatusCode != http.StatusCreated {
		t.Fatalf("ordinary text: %d %v", r.StatusCode, m)
	}
}

// A PUT of key material keeps every member it leaves out (docs/design.md
// §4), so a Description saved before the text rule, left out or sent back
// as read, does not stop the update: revoking a compromised key must not
// fail on text the client did not write. A new Description is still held
// to the rule.
func TestTextRuleLetsKeyMaterialKeepStoredText(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Legacy Keys"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/key-material"
	id := a.must(201, "POST", base, jsonBody(t, map[string]any{"PEM": webtest.ValidCert(t, "rsa2048", "km"), "Use": "enc", "Description": "old"}))["KeyMaterialID"].(string)
	// Saved before the rule: a description on two lines.
	legacy := "first line\nsecond line"
	if _, err := env.DB.SQL().ExecContext(t.Context(), `UPDATE key_material SET description = ? WHERE key_material_id = ?`, legacy, id); err != nil {
		t.Fatal(err)
	}
	if r, m := a.do("PUT", base+"/"+id, `{"Description":"bad`+"\\u202e"+`"}`); r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(fieldsOf(m)["Description"], "control characters") {
		t.Errorf("a new description against the rule: %d %v, want 422 naming Description", r.StatusCode, m)
	}
	got := a.must(200, "PUT", base+"/"+id, `{"Use":"sig"}`)
	if got["Use"] != "sig" || got["Description"] != legacy {
		t.Errorf("Use changed, Description left out: %v", got)
	}
	sentBack := jsonBody(t, map[string]any{"Use": "sig", "Description": legacy, "Status": "Revoked", "RevokeReason": "keycompromise"})
	if got := a.must(200, "PUT", base+"/"+id, sentBack); got["Status"] != "Revoked" || got["Description"] != legacy {
		t.Errorf("revoked with the description sent back as read: %v", got)
	}
}

// TestTextRuleSaysWhichCharacter: a refused character is often invisible
// (a direction mark shows "Evil\u202eknaB" as "EvilBank"), so the message
// names it and where it is, beside the field and in the API's fields.
// Beside the field the message says "This field", as its label is there.
func TestTextRuleSaysWhichCharacter(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	r, m := a.do("POST", "/organisations", `{"OrganisationName":"Evil\u202eknaB","LegalEntityName":"Acme\tLtd","RegistrationNumber":"1","CountryOfRegistration":"GB"}`)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("API: %d %v", r.StatusCode, m)
	}
	if f := fieldsOf(m); !strings.Contains(f["OrganisationName"], "character 5 is U+202E, a direction mark") || !strings.Contains(f["LegalEntityName"], "character 5 is a tab") {
		t.Errorf("API fields %q", f)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	form := url.Values{"OrganisationName": {"Evil\u202eknaB"}, "RegistrationNumber": {"1"}, "CountryOfRegistration": {"GB"}}
	req, _ := http.NewRequest("POST", env.URL+"/organisations", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", env.URL)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	doc := htmlDoc(t, body)
	msgID, _ := doc.Find("#f-OrganisationName").Attr("aria-describedby")
	// Beside the field it is "This field", not the member's API name.
	if msg := doc.Find("#" + msgID).Text(); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, "character 5 is U+202E, a direction mark") ||
		!strings.HasPrefix(msg, "This field cannot contain") {
		t.Errorf("console: %d, beside the field %q", resp.StatusCode, msg)
	}
}

// TestTextRuleRefusalKeepsTheFormsOwnChecks: a console form refused by the
// text rule also shows its own checks' messages (an e-mail without a dot
// in its domain, a missing country, a JWKS URI that is not https), so that
// one save shows every field to fix, not one round after another.
func TestTextRuleRefusalKeepsTheFormsOwnChecks(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, fc := range []struct {
		path   string
		form   url.Values
		fields []string
	}{
		{"/organisations", url.Values{"OrganisationName": {"Evil\u202eknaB"}, "RegistrationNumber": {"1"}, "CountryOfRegistration": {"UK"}}, []string{"OrganisationName", "CountryOfRegistration"}},
		{"/organisations/" + oid, url.Values{"OrganisationName": {"Ac\u0007me"}, "RegistrationNumber": {""}, "CountryOfRegistration": {"GB"}, "Status": {"Pending"}}, []string{"OrganisationName", "RegistrationNumber"}},
		{"/organisations/" + oid + "/contacts", url.Values{"ContactType": {"Technical"}, "FirstName": {"An\u202en"}, "LastName": {"Doe"}, "EmailAddress": {"ann@localhost"}}, []string{"FirstName", "EmailAddress"}},
		{"/organisations/" + oid + "/softwarestatements", url.Values{"ClientName": {"App\u200f"}, "JwksUri": {"http://keys.acme.example/jwks"}, "Status": {"Active"}}, []string{"ClientName", "JwksUri"}},
		{"/organisations/" + oid + "/authorisationservers", url.Values{"CustomerFriendlyName": {""}, "Description": {"Main\u202e"}, "Issuer": {"https://as.acme.example"}, "Status": {"Active"}}, []string{"Description", "CustomerFriendlyName"}},
	} {
		status, doc := postForm(t, c, env.URL+fc.path, fc.form)
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d, want 422", fc.path, status)
		}
		for _, field := range fc.fields {
			msgID, _ := doc.Find("#f-" + field).Attr("aria-describedby")
			if msgID == "" || strings.TrimSpace(doc.Find("#"+msgID).Text()) == "" {
				t.Errorf("%s: no message beside %s", fc.path, field)
			}
		}
	}
}

// TestNamesSayWhichCharacter: names that are URL segments (domains, roles,
// reference types, identity providers, attachment file names) name the
// refused character as every other text member does.
func TestNamesSayWhichCharacter(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for _, c := range []struct{ path, body string }{
		{"/references/authorisation-domains", `{"Name":"Open\u202eFinance"}`},
		{"/references/contact-types", `{"Name":"Open\u202eFinance"}`},
	} {
		r, m := a.do("POST", c.path, c.body)
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(fieldsOf(m)["Name"], "character 5 is U+202E") {
			t.Errorf("%s: %d %v, want 422 naming character 5", c.path, r.StatusCode, m)
		}
	}
}

// TestTextNoEngineCanKeepIsRefused: a NUL character (which PostgreSQL's
// text cannot hold) or bytes that are not UTF-8 are refused in the API and
// in console forms, naming the field, and nothing is saved: both engines
// then store the same thing.
func TestTextNoEngineCanKeepIsRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for body, field := range map[string]string{
		`{"OrganisationName":"Ac\u0000me","RegistrationNumber":"1","CountryOfRegistration":"GB"}`:                   "OrganisationName",
		`{"OrganisationName":"Acme","RegistrationNumber":"1","CountryOfRegistration":"GB","AddressLine1":"\u0000"}`: "AddressLine1",
	} {
		resp, m := a.do("POST", "/organisations", body)
		if f := fieldsOf(m); resp.StatusCode != http.StatusUnprocessableEntity || len(f) != 1 || f[field] == "" {
			t.Fatalf("%s: %d %v, want 422 naming %s", body, resp.StatusCode, m, field)
		}
	}

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, name := range []string{"Ac\x00me", "Ac\xffme"} {
		form := url.Values{"OrganisationName": {name}, "RegistrationNumber": {"2"}, "CountryOfRegistration": {"GB"}}
		req, _ := http.NewRequest("POST", env.URL+"/organisations", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", env.URL)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("form with %q: %d, want 422", name, resp.StatusCode)
		}
	}
	if l := a.must(200, "GET", "/organisations", ""); l["totalSize"] != 0.0 {
		t.Fatalf("saved despite the refusal: %v", l["totalSize"])
	}
	// Ordinary text, accents and all, still goes through.
	a.must(201, "POST", "/organisations", `{"OrganisationName":"Société Générale ☃","RegistrationNumber":"3","CountryOfRegistration":"FR"}`)
}
