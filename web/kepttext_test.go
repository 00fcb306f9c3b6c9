package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web/webtest"
)

// sentByBrowser is what a browser sends for a form: browserForm, with what
// a browser does to line breaks (sent as CRLF; lost by a one-line input),
// and a select with no option chosen sends its first.
func sentByBrowser(form *goquery.Selection) url.Values {
	v := url.Values{}
	crlf := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
	}
	form.Find("input[name], select[name], textarea[name]").Each(func(_ int, in *goquery.Selection) {
		name := in.AttrOr("name", "")
		switch goquery.NodeName(in) {
		case "select":
			opt := in.Find("option[selected]").First()
			if opt.Length() == 0 {
				opt = in.Find("option").First()
			}
			v.Add(name, opt.AttrOr("value", opt.Text()))
		case "textarea":
			v.Add(name, crlf(in.Text()))
		default:
			if t := in.AttrOr("type", "text"); (t == "checkbox" || t == "radio") && !in.Is("[checked]") {
				return
			}
			switch in.AttrOr("type", "text") {
			case "text", "url", "email", "tel", "search", "password":
				// A one-line input loses the line breaks of its value.
				v.Add(name, strings.NewReplacer("\r", "", "\n", "").Replace(in.AttrOr("value", "")))
				return
			}
			v.Add(name, crlf(in.AttrOr("value", "")))
		}
	})
	return v
}

// rowButton is the form of a row's status button on the page at path:
// the form posting to action whose fields are all hidden.
func rowButton(t *testing.T, c *http.Client, base, path, action string) url.Values {
	t.Helper()
	resp, err := c.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	var form *goquery.Selection
	doc.Find("form").EachWithBreak(func(_ int, f *goquery.Selection) bool {
		if f.AttrOr("action", "") == action && f.Find("input:not([type=hidden]), select, textarea").Length() == 0 && f.Find("input[name=Status]").Length() == 1 {
			form = f
			return false
		}
		return true
	})
	if form == nil {
		t.Fatalf("%s: no status button posting to %s", path, action)
	}
	return sentByBrowser(form)
}

// The Enable/Disable buttons of reference types, flags, authorisation
// domains, roles and authorities send the record back in hidden fields. A
// record saved before the text rule may hold text the rule refuses (a
// description on two lines, a tab in a name): sent back as stored it is
// let through and kept as it was, in the console and in the API's PUT, so
// that a status change needs no edit of that text; new or changed text is
// refused (docs/design.md §4).
func TestTextRuleLetsStatusButtonsSendStoredTextBack(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	su.must(201, "POST", "/references/contact-types", `{"Name":"Ops","Description":"operations"}`)
	flag := su.must(201, "POST", "/references/flags", `{"Name":"Watch","Description":"watched","Type":"Organisation"}`)["FlagId"].(string)
	legacy := "first line\nsecond line"
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE contact_types SET description = ? WHERE name = 'Ops'`, []any{legacy}},
		{`UPDATE flags SET name = ?, description = ? WHERE flag_id = ?`, []any{"Wat\tch", legacy, flag}},
		{`UPDATE authorisation_domains SET description = ? WHERE name = 'Payments'`, []any{legacy}},
		{`UPDATE authorisation_domain_roles SET description = ? WHERE domain = 'Payments' AND name = 'PISP'`, []any{legacy}},
		{`UPDATE authorities SET name = ? WHERE authority_id = ?`, []any{"Central\tBank", auth}},
	} {
		if _, err := env.DB.SQL().ExecContext(t.Context(), q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, tc := range []struct {
		what, page, action, api, member, stored, fresh string
	}{
		{"contact type", "/references/contact-types", "/references/contact-types/Ops", "/references/contact-types/Ops", "Description", legacy, "new\u202e"},
		{"flag", "/references/flags", "/references/flags/" + flag, "/references/flags/" + flag, "Name", "Wat\tch", "Wat\u202ech"},
		{"flag", "/references/flags", "/references/flags/" + flag, "/references/flags/" + flag, "Description", legacy, "new\u0007"},
		{"domain", "/references/authorisation-domains", "/references/authorisation-domains/Payments", "/references/authorisation-domains/Payments", "Description", legacy, "new\u202e"},
		{"role", "/references/authorisation-domains", "/references/authorisation-domains/Payments/roles/PISP", "/references/authorisation-domains/Payments/roles/PISP", "Description", legacy, "new\u202e"},
		{"authority", "/references/authorisation-domains", "/references/authorities/" + auth, "/references/authorities/" + auth, "AuthorityName", "Central\tBank", "Central\u202eBank"},
	} {
		// The console's button, as a browser sends it: Disable.
		form := rowButton(t, c, env.URL, tc.page, tc.action)
		if form.Get("Status") != "Inactive" {
			t.Fatalf("%s: the button sends Status %q, want Inactive", tc.what, form.Get("Status"))
		}
		status, doc := postForm(t, c, env.URL+tc.action, form)
		if status != http.StatusOK {
			t.Errorf("%s: Disable with %s as stored: %d, want 200; message %q", tc.what, tc.member, status, doc.Find("[data-testid=flash], [data-testid=form-error]").Text())
		}
		got := su.must(200, "GET", tc.api, "")
		if got["Status"] != "Inactive" || got[tc.member] != tc.stored {
			t.Errorf("%s: after Disable %s is %q and Status %v, want %q kept and Inactive", tc.what, tc.member, got[tc.member], got["Status"], tc.stored)
		}
		// The API: the record sent back as read, Active again.
		got["Status"] = "Active"
		if got := su.must(200, "PUT", tc.api, jsonBody(t, got)); got["Status"] != "Active" || got[tc.member] != tc.stored {
			t.Errorf("%s: API PUT as read: %s %q, Status %v", tc.what, tc.member, got[tc.member], got["Status"])
		}
		// New text against the rule is still refused, in both.
		got[tc.member] = tc.fresh
		if r, m := su.do("PUT", tc.api, jsonBody(t, got)); r.StatusCode != http.StatusUnprocessableEntity || fieldsOf(m)[tc.member] == "" {
			t.Errorf("%s: API PUT with a new %s %q: %d %v, want 422 naming it", tc.what, tc.member, tc.fresh, r.StatusCode, m)
		}
		form = rowButton(t, c, env.URL, tc.page, tc.action)
		form.Set(tc.member, tc.fresh)
		if status, _ := postForm(t, c, env.URL+tc.action, form); status != http.StatusUnprocessableEntity {
			t.Errorf("%s: console with a new %s %q: %d, want 422", tc.what, tc.member, tc.fresh, status)
		}
		if got := su.must(200, "GET", tc.api, ""); got["Status"] != "Active" || got[tc.member] != tc.stored {
			t.Errorf("%s: changed by a refused request: %v", tc.what, got)
		}
	}
}

// The edit form of a role metadata policy sends its description back in a
// hidden field: one saved before the text rule (on two lines) is let
// through and kept when sent back as stored, so the policy can be edited.
func TestTextRuleLetsPolicyEditSendStoredDescriptionBack(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	id := su.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"scope":{"essential":true}},"Description":"old"}`)["PolicyId"].(string)
	legacy := "first line\nsecond line"
	if _, err := env.DB.SQL().ExecContext(t.Context(), `UPDATE role_metadata_policies SET description = ? WHERE policy_id = ?`, legacy, id); err != nil {
		t.Fatal(err)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/references/role-metadata-policies/" + id + "/edit")
	if err != nil {
		t.Fatal(err)
	}
	form := sentByBrowser(docOf(t, resp).Find(`form[action="/references/role-metadata-policies/` + id + `"]`))
	form.Set("Policy", `{"scope":{"essential":false}}`)
	if status, doc := postForm(t, c, env.URL+"/references/role-metadata-policies/"+id, form); status != http.StatusOK {
		t.Errorf("edit with the description as stored: %d; page %q", status, doc.Find("main").Text())
	}
	got := su.must(200, "GET", "/references/role-metadata-policies/"+id, "")
	if got["Description"] != legacy || !strings.Contains(jsonBody(t, got["Policy"].(map[string]any)), "false") {
		t.Errorf("after the edit: %v", got)
	}
	got["Description"] = "new\u202e"
	if r, m := su.do("PUT", "/references/role-metadata-policies/"+id, jsonBody(t, got)); r.StatusCode != http.StatusUnprocessableEntity || fieldsOf(m)["Description"] == "" {
		t.Errorf("a new description against the rule: %d %v, want 422", r.StatusCode, m)
	}
}

// TestKeyMaterialEditKeepsStoredLines: the key material Edit form showed
// the Description in a one-line input; a browser drops the line breaks of
// such a value, so saving the form unchanged saved a description saved
// before the text rule on two lines as one ("first linesecond line")
// without the person knowing. Such a value is shown in a text area; saved
// unchanged, or with another Use, or revoked, it is kept as it was. A
// change to it must be one line (refused beside the field otherwise).
func TestKeyMaterialEditKeepsStoredLines(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Legacy Keys"))["OrganisationId"].(string)
	path := "/organisations/" + oid + "/key-material/" + su.must(201, "POST", "/organisations/"+oid+"/key-material",
		jsonBody(t, map[string]any{"PEM": webtest.ValidCert(t, "rsa2048", "km"), "Use": "enc", "Description": "old"}))["KeyMaterialID"].(string)
	legacy := "first line\nsecond line"
	if _, err := env.DB.SQL().ExecContext(t.Context(), `UPDATE key_material SET description = ? WHERE key_material_id = ?`, legacy, strings.TrimPrefix(path, "/organisations/"+oid+"/key-material/")); err != nil {
		t.Fatal(err)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	form := func(which string) url.Values {
		t.Helper()
		at := path
		if which == "Revoked" { // its own step, as a certificate's (issue 40)
			at += "/revoke"
		}
		resp, err := c.Get(env.URL + at)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		f := doc.Find(`form[action="` + path + `"]:has(input[name=Status][value=` + which + `])`)
		if f.Length() != 1 {
			t.Fatalf("no %s form on the page", which)
		}
		if which == "Active" && goquery.NodeName(f.Find("[name=Description]")) != "textarea" {
			t.Errorf("a description on two lines is shown in a <%s>, whose value loses its line breaks", goquery.NodeName(f.Find("[name=Description]")))
		}
		return sentByBrowser(f)
	}
	check := func(what, use, status string) {
		t.Helper()
		if got := su.must(200, "GET", path, ""); got["Description"] != legacy || got["Use"] != use || got["Status"] != status {
			t.Errorf("%s: Description %q, Use %v, Status %v; want %q, %s, %s", what, got["Description"], got["Use"], got["Status"], legacy, use, status)
		}
	}

	if status, doc := postForm(t, c, env.URL+path, form("Active")); status != http.StatusOK {
		t.Errorf("saved unchanged: %d; %q", status, doc.Find("main").Text())
	}
	check("saved unchanged", "enc", "Active")
	edit := form("Active")
	edit.Set("Use", "sig")
	if status, doc := postForm(t, c, env.URL+path, edit); status != http.StatusOK {
		t.Errorf("another Use: %d; %q", status, doc.Find("main").Text())
	}
	check("another Use", "sig", "Active")
	// Changed, and still on two lines: refused beside the field, kept.
	edit = form("Active")
	edit.Set("Description", "first line\r\nthird line")
	status, doc := postForm(t, c, env.URL+path, edit)
	besideField(t, "a changed description on two lines", status, http.StatusUnprocessableEntity, doc, "Description", nil)
	check("refused", "sig", "Active")
	// The Revoke step's form sends the description back in a hidden field.
	revoke := form("Revoked")
	revoke.Set("RevokeReason", "keycompromise")
	if status, doc := postForm(t, c, env.URL+path, revoke); status != http.StatusOK {
		t.Errorf("revoked: %d; %q", status, doc.Find("main").Text())
	}
	check("revoked", "sig", "Revoked")
}

// TestDomainsEditFormsKeepStoredLines: the edit forms of a domain, a role
// and an authority showed their text in one-line inputs; a value saved on
// several lines before the text rule was joined into one line unseen when
// the form was saved. Such a value is shown in a text area and, saved
// unchanged, kept as it was.
func TestDomainsEditFormsKeepStoredLines(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	legacy := "first line\nsecond line"
	for _, q := range []string{
		`UPDATE authorisation_domains SET description = ? WHERE name = 'Payments'`,
		`UPDATE authorisation_domain_roles SET description = ? WHERE domain = 'Payments' AND name = 'PISP'`,
		`UPDATE authorities SET name = ? WHERE authority_id = '` + auth + `'`,
	} {
		if _, err := env.DB.SQL().ExecContext(t.Context(), q, legacy); err != nil {
			t.Fatal(err)
		}
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, tc := range []struct{ what, action, api, member string }{
		{"domain", "/references/authorisation-domains/Payments", "/references/authorisation-domains/Payments", "Description"},
		{"role", "/references/authorisation-domains/Payments/roles/PISP", "/references/authorisation-domains/Payments/roles/PISP", "Description"},
		{"authority", "/references/authorities/" + auth, "/references/authorities/" + auth, "AuthorityName"},
	} {
		resp, err := c.Get(env.URL + tc.action + "/edit")
		if err != nil {
			t.Fatal(err)
		}
		f := docOf(t, resp).Find(`form[action="` + tc.action + `"]:has(input:not([type=hidden]), textarea, select)`)
		if f.Length() != 1 {
			t.Fatalf("%s: %d edit forms", tc.what, f.Length())
		}
		if n := goquery.NodeName(f.Find("[name=" + tc.member + "]")); n != "textarea" {
			t.Errorf("%s: %s on two lines is shown in a <%s>", tc.what, tc.member, n)
		}
		if status, doc := postForm(t, c, env.URL+tc.action, sentByBrowser(f)); status != http.StatusOK {
			t.Errorf("%s: saved unchanged: %d; %q", tc.what, status, doc.Find("[role=alert]").Text())
		}
		if got := su.must(200, "GET", tc.api, ""); got[tc.member] != legacy {
			t.Errorf("%s: saved unchanged, %s is %q, want %q", tc.what, tc.member, got[tc.member], legacy)
		}
	}
}

// TestEditFormsKeepStoredLegacyText: the edit forms of an organisation, a
// contact, an application, an authorisation server, a document, an
// identity provider, a webhook and a key material attachment (its row)
// showed their text in one-line inputs, and their updates applied the
// text rule to every member sent. A value saved before the rule on two
// lines was joined into one line unseen when the form was saved unchanged
// (a browser drops an input's line breaks); one holding a direction mark
// made every save of the form a 422 beside that field. Now a value on
// several lines is shown in a text area, and either one sent back
// unchanged, by the form or by the API's PUT, is kept as stored; a
// changed value is still refused beside its field (docs/design.md §4).
func TestEditFormsKeepStoredLegacyText(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	o := "/organisations/" + su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	contact := o + "/contacts/" + su.must(201, "POST", o+"/contacts", `{"ContactType":"Technical","FirstName":"Tom","LastName":"Adams","EmailAddress":"tom@acme.example"}`)["ContactId"].(string)
	app := o + "/softwarestatements/" + su.must(201, "POST", o+"/softwarestatements", `{"ClientName":"App","Description":"first"}`)["SoftwareStatementId"].(string)
	disc := discoveryServer(t, func(self string) string { return self })
	server := o + "/authorisationservers/" + su.must(201, "POST", o+"/authorisationservers", `{"CustomerFriendlyName":"AS","Issuer":"`+disc+`"}`)["AuthorisationServerId"].(string)
	doc := o + "/documents/" + su.must(201, "POST", o+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"REF-1","DocumentDescription":"licence"}`)["DocumentId"].(string)
	su.must(201, "POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","Description":"ours"}`)
	hook := "/references/webhooks/" + su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","Description":"all","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	km := o + "/key-material/" + su.must(201, "POST", o+"/key-material",
		jsonBody(t, map[string]any{"PEM": webtest.ValidCert(t, "rsa2048", "km"), "Use": "enc"}))["KeyMaterialID"].(string)
	_, att := su.multipart("POST", km+"/attachments", "a.txt", []byte("x"), "kept")
	attID := att["KeyMaterialAttachmentID"].(string)
	attachment := km + "/attachments/" + attID
	cert := app + "/certifications/" + su.must(201, "POST", app+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01","CertificationURI":"https://a.example/x"}`)["CertificationId"].(string)
	last := func(p string) string { return p[strings.LastIndex(p, "/")+1:] }
	type legacyText struct{ stored, formChange, apiChange string }

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, tc := range []struct {
		what, page, action, member string
		sql                        string // sets the member's column (?) of the record (?)
		key                        string
		field, msg                 string       // the field's id and the data-testid of the message beside it
		values                     []legacyText // the values stored before the rule, when not the usual two
	}{
		{"organisation", o + "/edit", o, "OrganisationName", `UPDATE organisations SET name = ? WHERE organisation_id = ?`, last(o), "", "", nil},
		{"contact", contact + "/edit", contact, "LastName", `UPDATE contacts SET last_name = ? WHERE contact_id = ?`, last(contact), "", "", nil},
		{"application", app + "/edit", app, "ClientName", `UPDATE software_statements SET client_name = ? WHERE software_statement_id = ?`, last(app), "", "", nil},
		{"authorisation server", server + "/edit", server, "CustomerFriendlyName", `UPDATE authorisation_servers SET customer_friendly_name = ? WHERE authorisation_server_id = ?`, last(server), "", "", nil},
		{"document", doc + "/edit", doc, "DocumentDescription", `UPDATE documents SET description = ? WHERE document_id = ?`, last(doc), "", "", nil},
		{"identity provider", "/references/identity-providers/kc", "/references/identity-providers/kc", "Description", `UPDATE identity_providers SET description = ? WHERE name = ?`, "kc", "", "", nil},
		{"webhook", hook, hook, "Description", `UPDATE webhooks SET description = ? WHERE webhook_id = ?`, last(hook), "", "", nil},
		{"attachment", km, attachment, "Description", `UPDATE key_material_attachments SET description = ? WHERE attachment_id = ?`, attID, "desc-" + attID, "error-desc-" + attID + "-error", nil},
		// A URI on two lines is no URL: see below.
		{what: "certification", page: cert + "/edit", action: cert, member: "CertificationURI", sql: `UPDATE certifications SET uri = ? WHERE certification_id = ?`, key: last(cert),
			values: []legacyText{{"https://a.example/x\u202ey", "https://a.example/x\u202eyz", "https://a.example/x\u202eyz"}}},
	} {
		if tc.field == "" {
			tc.field, tc.msg = "f-"+tc.member, "error-"+tc.member
		}
		form := func() url.Values {
			t.Helper()
			resp, err := c.Get(env.URL + tc.page)
			if err != nil {
				t.Fatal(err)
			}
			f := docOf(t, resp).Find(`form[action="` + tc.action + `"]:has([name=` + tc.member + `])`)
			if f.Length() != 1 {
				t.Fatalf("%s: %d edit forms on %s", tc.what, f.Length(), tc.page)
			}
			return sentByBrowser(f)
		}
		post := func(form url.Values) (int, *goquery.Document) {
			t.Helper()
			if tc.what != "attachment" {
				return postForm(t, c, env.URL+tc.action, form)
			}
			ct, body := multipartBody(t, "", nil, form.Get("Description"))
			resp, err := c.Post(env.URL+tc.action, ct, body)
			if err != nil {
				t.Fatal(err)
			}
			return resp.StatusCode, docOf(t, resp)
		}
		stored := func() map[string]any {
			t.Helper()
			return su.must(200, "GET", tc.action, "")
		}
		values := tc.values
		if values == nil {
			values = []legacyText{
				{"first line\nsecond line", "first line\r\nthird line", "first line\nthird line"},
				{"Acme\u202eBank", "Acme\u202eBanks", "Acme\u202eBanks"},
			}
		}
		for _, legacy := range values {
			what := fmt.Sprintf("%s %s %q", tc.what, tc.member, legacy.stored)
			if _, err := env.DB.SQL().ExecContext(t.Context(), tc.sql, legacy.stored, tc.key); err != nil {
				t.Fatal(err)
			}
			// The console's form, saved unchanged as a browser sends it.
			f := form()
			if strings.Contains(legacy.stored, "\n") && !strings.Contains(f.Get(tc.member), "\n") {
				t.Errorf("%s: the form sends %q: its line breaks are lost", what, f.Get(tc.member))
			}
			if status, page := post(f); status != http.StatusOK {
				t.Errorf("%s: saved unchanged: %d; %q", what, status, page.Find("[role=alert], [data-testid=flash]").Text())
			}
			if got := stored()[tc.member]; got != legacy.stored {
				t.Errorf("%s: saved unchanged, it is %q", what, got)
			}
			// The API: the record sent back as read.
			body := stored()
			if tc.what == "attachment" {
				body = map[string]any{"Description": body["Description"]}
			}
			if r, m := su.do("PUT", tc.action, jsonBody(t, body)); r.StatusCode != http.StatusOK || m[tc.member] != legacy.stored {
				t.Errorf("%s: API PUT as read: %d %v", what, r.StatusCode, m)
			}
			// Changed, it must follow the rule: refused beside the field.
			f = form()
			f.Set(tc.member, legacy.formChange)
			status, page := post(f)
			if status != http.StatusUnprocessableEntity || page.Find("[data-testid="+tc.msg+"]").Text() == "" || page.Find("#"+tc.field).AttrOr("aria-invalid", "") != "true" {
				t.Errorf("%s: changed to %q: %d, want 422 beside the field; %q", what, legacy.formChange, status, page.Find("main").Text())
			}
			body[tc.member] = legacy.apiChange
			if r, m := su.do("PUT", tc.action, jsonBody(t, body)); r.StatusCode != http.StatusUnprocessableEntity || fieldsOf(m)[tc.member] == "" {
				t.Errorf("%s: API PUT changed to %q: %d %v, want 422 naming it", what, legacy.apiChange, r.StatusCode, m)
			}
			if got := stored()[tc.member]; got != legacy.stored {
				t.Errorf("%s: changed by a refused request: %q", what, got)
			}
		}
	}
	// A certification URI saved on two lines: the form saved unchanged
	// sent it as one line ("https://a.example/xy") and stored that unseen.
	// It is shown in a text area; sent back, the text rule lets it through, but
	// it is no https URL: refused beside the field, and kept as stored.
	legacy := "https://a.example/x\ny"
	if _, err := env.DB.SQL().ExecContext(t.Context(), `UPDATE certifications SET uri = ? WHERE certification_id = ?`, legacy, last(cert)); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(env.URL + cert + "/edit")
	if err != nil {
		t.Fatal(err)
	}
	f := docOf(t, resp).Find(`form[action="` + cert + `"]`)
	if n := goquery.NodeName(f.Find("[name=CertificationURI]")); n != "textarea" {
		t.Errorf("certification URI on two lines is shown in a <%s>", n)
	}
	status, page := postForm(t, c, env.URL+cert, sentByBrowser(f))
	if status == http.StatusUnprocessableEntity && page.Find("[data-testid=error-CertificationURI]").Text() == "" {
		t.Errorf("certification URI on two lines: 422 without a message beside the field: %q", page.Find("main").Text())
	}
	// Read by SQL: the API's description says a URI is a URI.
	var got string
	if err := env.DB.SQL().QueryRowContext(t.Context(), `SELECT uri FROM certifications WHERE certification_id = ?`, last(cert)).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != legacy {
		t.Errorf("certification URI on two lines, form saved unchanged (%d): it is %q, want %q", status, got, legacy)
	}

}

// Lists are judged element by element: an application whose stored
// redirect URIs or WebAuthn origins hold one with a direction mark, saved
// before the text rule, saves by its form or by an API PUT of the record as
// read — that element, sent back as stored, is let through and kept; a new
// or changed element is refused beside the list (docs/design.md §4).
func TestEditFormsKeepStoredLegacyListMembers(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	o := "/organisations/" + su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := o + "/softwarestatements/" + su.must(201, "POST", o+"/softwarestatements", `{"ClientName":"App"}`)["SoftwareStatementId"].(string)
	appID := app[strings.LastIndex(app, "/")+1:]
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, tc := range []struct {
		what, page, action, member, sql, key string
		stored, fresh                        []string
	}{
		{"application", app + "/edit", app, "RedirectUri", `UPDATE software_statements SET redirect_uris = ? WHERE software_statement_id = ?`, appID,
			[]string{"https://a.example/cb", "https://a.example/c\u202eb"}, []string{"https://a.example/cb", "https://a.example/c\u202ebb"}},
		{"application", app + "/edit", app, "software_origins_uri", `UPDATE software_statements SET origins = ? WHERE software_statement_id = ?`, appID,
			[]string{"https://a\u202eb.example"}, []string{"https://a\u202eb.example", "https://c\u202ed.example"}},
	} {
		what := fmt.Sprintf("%s %s %q", tc.what, tc.member, tc.stored)
		if _, err := env.DB.SQL().ExecContext(t.Context(), tc.sql, mustMarshal(tc.stored), tc.key); err != nil {
			t.Fatal(err)
		}
		form := func() url.Values {
			t.Helper()
			resp, err := c.Get(env.URL + tc.page)
			if err != nil {
				t.Fatal(err)
			}
			f := docOf(t, resp).Find(`form[action="` + tc.action + `"]:has([name=` + tc.member + `])`)
			if f.Length() != 1 {
				t.Fatalf("%s: %d edit forms on %s", what, f.Length(), tc.page)
			}
			return sentByBrowser(f)
		}
		list := func() string {
			t.Helper()
			return mustMarshal(su.must(200, "GET", tc.action, "")[tc.member])
		}
		want := mustMarshal(tc.stored)
		// The console's form, saved unchanged.
		if status, page := postForm(t, c, env.URL+tc.action, form()); status != http.StatusOK {
			t.Errorf("%s: saved unchanged: %d; %q", what, status, page.Find("[role=alert], [data-testid=flash]").Text())
		}
		if got := list(); got != want {
			t.Errorf("%s: saved unchanged, it is %s", what, got)
		}
		// The API: the record sent back as read, the list in another order.
		body := su.must(200, "GET", tc.action, "")
		if l := body[tc.member].([]any); len(l) > 1 {
			l[0], l[1] = l[1], l[0]
		}
		if r, m := su.do("PUT", tc.action, jsonBody(t, body)); r.StatusCode != http.StatusOK {
			t.Errorf("%s: API PUT as read: %d %v", what, r.StatusCode, m)
		}
		if want = mustMarshal(body[tc.member]); list() != want {
			t.Errorf("%s: API PUT as read, it is %s, want %s", what, list(), want)
		}
		// A new or changed element must follow the rule.
		f := form()
		f.Set(tc.member, strings.Join(tc.fresh, "\r\n"))
		if status, page := postForm(t, c, env.URL+tc.action, f); status != http.StatusUnprocessableEntity || page.Find("[data-testid=error-"+tc.member+"]").Text() == "" {
			t.Errorf("%s: changed to %q: %d, want 422 beside the field; %q", what, tc.fresh, status, page.Find("main").Text())
		}
		body[tc.member] = tc.fresh
		if r, m := su.do("PUT", tc.action, jsonBody(t, body)); r.StatusCode != http.StatusUnprocessableEntity || len(fieldsOf(m)) != 1 {
			t.Errorf("%s: API PUT changed to %q: %d %v, want 422 naming the new element only", what, tc.fresh, r.StatusCode, m)
		}
		if got := list(); got != want {
			t.Errorf("%s: changed by a refused request: %s", what, got)
		}
	}
}

// An authority claim whose stored RegistrationId holds a direction mark,
// saved before the text rule, can be PUT back as read (to end it, say):
// the stored value is let through and kept; a new one is refused.
func TestClaimPutKeepsStoredLegacyText(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	id := grant(t, su, oid, auth, "Payments", "PISP")
	path := "/organisations/" + oid + "/authority-claims/" + id
	legacy := "REG\u202e-1"
	if _, err := env.DB.SQL().ExecContext(t.Context(), `UPDATE organisation_authority_claims SET registration_id = ? WHERE claim_id = ?`, legacy, id); err != nil {
		t.Fatal(err)
	}
	got := su.must(200, "GET", path, "")
	got["Status"] = "Inactive"
	if r, m := su.do("PUT", path, jsonBody(t, got)); r.StatusCode != http.StatusOK || m["RegistrationId"] != legacy || m["Status"] != "Inactive" {
		t.Errorf("PUT as read, Inactive: %d %v", r.StatusCode, m)
	}
	got = su.must(200, "GET", path, "")
	got["RegistrationId"] = "REG\u202e-2"
	if r, m := su.do("PUT", path, jsonBody(t, got)); r.StatusCode != http.StatusUnprocessableEntity || fieldsOf(m)["RegistrationId"] == "" {
		t.Errorf("a new RegistrationId against the rule: %d %v, want 422 naming it", r.StatusCode, m)
	}
	if got := su.must(200, "GET", path, ""); got["RegistrationId"] != legacy || got["Status"] != "Inactive" {
		t.Errorf("after: %v", got)
	}
}

// TestIdPFormDomainWithLineBreak: an identity provider's e-mail domains
// were shown joined with commas in a one-line input. A domain saved with
// a line break before the text rule ("a.example\nb.example") lost it in
// the browser, so saving the form unchanged stored another domain,
// "a.exampleb.example", unseen. The list is read with line breaks as
// separators; such a list is shown in a text area, as it will be saved.
func TestIdPFormDomainWithLineBreak(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`"}`)
	if _, err := env.DB.SQL().ExecContext(t.Context(), `UPDATE identity_providers SET email_domains = ? WHERE name = 'kc'`, "a.example\nb.example,c.example"); err != nil {
		t.Fatal(err)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/references/identity-providers/kc")
	if err != nil {
		t.Fatal(err)
	}
	f := docOf(t, resp).Find(`form[action="/references/identity-providers/kc"]:has([name=EmailDomains])`)
	if n := goquery.NodeName(f.Find("[name=EmailDomains]")); n != "textarea" {
		t.Errorf("e-mail domains with a line break are shown in a <%s>", n)
	}
	if status, page := postForm(t, c, env.URL+"/references/identity-providers/kc", sentByBrowser(f)); status != http.StatusOK {
		t.Errorf("saved unchanged: %d; %q", status, page.Find("[role=alert], [data-testid=flash]").Text())
	}
	if got := mustMarshal(su.must(200, "GET", "/references/identity-providers/kc", "")["EmailDomains"]); got != `["a.example","b.example","c.example"]` {
		t.Errorf("saved unchanged, the domains are %s, want the lines as shown", got)
	}
}
