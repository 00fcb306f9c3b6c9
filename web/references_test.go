package web_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestInTheWayOfReferenceTypesNamesWhatAPersonRecognises: when a contact,
// document or certification type cannot be deleted (or a certification
// type disabled) because records use it, each line of what is in the way
// names the record as a person knows it (the contact's name and e-mail,
// the document's type and reference number, the certification's type and
// the application or server that holds it) and its organisation's name,
// linked to the organisation's tab where the record is changed. Before,
// each line read "Contact: ContactId 1a2b…, Name Ann Doe, OrganisationId
// 4c…": ids no one recognises. The API's payload keeps its fields and
// gains the names.
func TestInTheWayOfReferenceTypesNamesWhatAPersonRecognises(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	acme := su.must(201, "POST", "/organisations", org("Acme Bank"))["OrganisationId"].(string)
	beta := su.must(201, "POST", "/organisations", org("Beta Savings"))["OrganisationId"].(string)

	ann := su.must(201, "POST", "/organisations/"+acme+"/contacts", `{"ContactType":"Billing","FirstName":"Ann","LastName":"Doe","EmailAddress":"ann@acme.example"}`)["ContactId"].(string)
	bea := su.must(201, "POST", "/organisations/"+beta+"/contacts", `{"ContactType":"Billing","LastName":"Zane","EmailAddress":"zane@beta.example"}`)["ContactId"].(string)
	lic := su.must(201, "POST", "/organisations/"+acme+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-123456","DocumentDescription":"payment institution licence"}`)["DocumentId"].(string)
	app := su.must(201, "POST", "/organisations/"+beta+"/softwarestatements", `{"ClientName":"Payments app"}`)["SoftwareStatementId"].(string)
	disc := discoveryServer(t, func(self string) string { return self })
	srv := su.must(201, "POST", "/organisations/"+acme+"/authorisationservers", `{"CustomerFriendlyName":"Acme login","Issuer":"`+disc+`"}`)["AuthorisationServerId"].(string)
	appCert := su.must(201, "POST", "/organisations/"+beta+"/softwarestatements/"+app+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01"}`)["CertificationId"].(string)
	srvCert := su.must(201, "POST", "/organisations/"+acme+"/authorisationservers/"+srv+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01"}`)["CertificationId"].(string)
	ids := []string{acme, beta, ann, bea, lic, app, srv, appCert, srvCert}

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	post := func(path string, form url.Values) *goquery.Document {
		t.Helper()
		return postRefused(t, c, env.URL+path, form)
	}
	// line checks the one line that names org: its words, no ids, and the
	// organisation's name linking to its tab.
	line := func(what string, doc *goquery.Document, orgName, orgID, tab string, words ...string) {
		t.Helper()
		var found *goquery.Selection
		doc.Find("[data-testid=in-the-way] li").Each(func(_ int, li *goquery.Selection) {
			if strings.Contains(li.Text(), orgName) {
				found = li
			}
		})
		if found == nil {
			t.Errorf("%s: no line names %s: %q", what, orgName, doc.Find("[data-testid=in-the-way]").Text())
			return
		}
		text := strings.Join(strings.Fields(found.Text()), " ")
		for _, want := range words {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the line %q does not name %s", what, text, want)
			}
		}
		for _, id := range ids {
			if strings.Contains(text, id) {
				t.Errorf("%s: the line %q shows the id %s", what, text, id)
			}
		}
		a := found.Find("a[data-testid=in-the-way-link]")
		if href, _ := a.Attr("href"); a.Length() != 1 || href != "/organisations/"+orgID+"/"+tab || strings.TrimSpace(a.Text()) != orgName {
			t.Errorf("%s: the line %q links %q to %q, want %s to its %s tab", what, text, a.Text(), href, orgName, tab)
		}
	}

	// Contact type: each contact by name and e-mail, each under its own
	// organisation.
	doc := post("/references/contact-types/Billing/delete", url.Values{})
	if n := doc.Find("[data-testid=in-the-way] li").Length(); n != 2 {
		t.Errorf("delete contact type: %d lines, want 2", n)
	}
	line("delete contact type", doc, "Acme Bank", acme, "contacts", "Contact:", "Ann Doe", "ann@acme.example")
	line("delete contact type", doc, "Beta Savings", beta, "contacts", "Contact:", "Zane", "zane@beta.example")

	// Document type: the document by type and reference number.
	doc = post("/references/document-types/Licence/delete", url.Values{})
	line("delete document type", doc, "Acme Bank", acme, "documents", "Document:", "Licence", "FCA-123456")

	// Certification type: disabling (Active holders) and deleting name the
	// application or server that holds the certification, linked to its
	// certifications (issue 40), not the organisation's tab.
	doc = post("/references/certification-types/FAPI", url.Values{"Description": {"FAPI"}, "Status": {"Inactive"}})
	line("disable certification type", doc, "Beta Savings", beta, "softwarestatements/"+app+"/certifications", "Certification:", "FAPI", "application Payments app")
	line("disable certification type", doc, "Acme Bank", acme, "authorisationservers/"+srv+"/certifications", "Certification:", "FAPI", "authorisation server Acme login")
	doc = post("/references/certification-types/FAPI/delete", url.Values{})
	line("delete certification type", doc, "Beta Savings", beta, "softwarestatements/"+app+"/certifications", "Certification:", "FAPI", "application Payments app")
	line("delete certification type", doc, "Acme Bank", acme, "authorisationservers/"+srv+"/certifications", "Certification:", "FAPI", "authorisation server Acme login")

	// The API keeps each payload's fields and adds the names.
	payload := func(method, path, body string) map[string][]map[string]any {
		t.Helper()
		resp, m := su.do(method, path, body)
		if resp.StatusCode != 409 {
			t.Fatalf("API %s %s: %d %v", method, path, resp.StatusCode, m)
		}
		_, p, ok := strings.Cut(m["errors"].([]any)[0].(map[string]any)["message"].(string), "|")
		if !ok {
			t.Fatalf("API %s %s: no payload in %v", method, path, m)
		}
		var out map[string][]map[string]any
		if err := json.Unmarshal([]byte(p), &out); err != nil {
			t.Fatalf("API %s %s: payload %q: %v", method, path, p, err)
		}
		return out
	}
	has := func(what string, recs []map[string]any, key string, want map[string]any) {
		t.Helper()
		for _, r := range recs {
			if r[key] != want[key] {
				continue
			}
			for k, v := range want {
				if r[k] != v {
					t.Errorf("%s: %s = %v, want %v (%v)", what, k, r[k], v, r)
				}
			}
			return
		}
		t.Errorf("%s: no record with %s %v in %v", what, key, want[key], recs)
	}
	// The OpenAPI description names every field the payload sends, of the
	// type it is sent as.
	spec, err := openapi3.NewLoader().LoadFromFile("../handlers/openapi/openapi-2.6.0.yaml")
	if err != nil {
		t.Fatal(err)
	}
	described := func(kind, schema string, recs []map[string]any) {
		t.Helper()
		ref := spec.Components.Schemas[schema]
		if ref == nil || ref.Value == nil {
			t.Fatalf("the OpenAPI description has no %s", schema)
		}
		if len(recs) == 0 {
			t.Errorf("no %s in the payload", kind)
		}
		for _, r := range recs {
			for k := range r {
				if ref.Value.Properties[k] == nil {
					t.Errorf("%s: the payload's %s is not described in %s", kind, k, schema)
				}
			}
			if err := ref.Value.VisitJSON(map[string]any(r)); err != nil {
				t.Errorf("%s: %v does not follow %s: %v", kind, r, schema, err)
			}
		}
	}

	p := payload("DELETE", "/references/contact-types/Billing", "")
	described("Contacts", "ConflictContact", p["Contacts"])
	has("API contacts", p["Contacts"], "ContactId", map[string]any{"ContactId": ann, "OrganisationId": acme, "Name": "Ann Doe",
		"OrganisationName": "Acme Bank", "EmailAddress": "ann@acme.example"})
	has("API contacts", p["Contacts"], "ContactId", map[string]any{"ContactId": bea, "OrganisationId": beta, "Name": "Zane",
		"OrganisationName": "Beta Savings", "EmailAddress": "zane@beta.example"})
	p = payload("DELETE", "/references/document-types/Licence", "")
	described("Documents", "ConflictDocument", p["Documents"])
	has("API documents", p["Documents"], "DocumentId", map[string]any{"DocumentId": lic, "OrganisationId": acme,
		"OrganisationName": "Acme Bank", "DocumentType": "Licence", "DocumentReferenceNumber": "FCA-123456", "DocumentDescription": "payment institution licence"})
	for _, req := range [][3]string{{"PUT", "/references/certification-types/FAPI", `{"Status":"Inactive"}`}, {"DELETE", "/references/certification-types/FAPI", ""}} {
		p = payload(req[0], req[1], req[2])
		described("Certifications", "ConflictCertification", p["Certifications"])
		has("API certifications "+req[0], p["Certifications"], "CertificationId", map[string]any{"CertificationId": appCert, "OrganisationId": beta,
			"SubjectType": "SoftwareStatement", "SubjectId": app, "OrganisationName": "Beta Savings", "CertificationType": "FAPI", "SubjectName": "Payments app"})
		has("API certifications "+req[0], p["Certifications"], "CertificationId", map[string]any{"CertificationId": srvCert, "OrganisationId": acme,
			"SubjectType": "AuthorisationServer", "SubjectId": srv, "OrganisationName": "Acme Bank", "CertificationType": "FAPI", "SubjectName": "Acme login"})
	}
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
