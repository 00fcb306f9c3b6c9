package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

func TestDocumentsAPI(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/documents"
	// An entry without the 2.6.0 fields stays valid (a description is enough).
	a.must(201, "POST", base, `{"DocumentType":"Registration","DocumentDescription":"company registration"}`)
	d := a.must(201, "POST", base, `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-123456","DocumentStartDate":"2026-01-01","DocumentExpiryDate":"2028-12-31","DocumentDescription":"payment institution licence"}`)
	if d["DocumentReferenceNumber"] != "FCA-123456" || d["DocumentStartDate"] != "2026-01-01" || d["DocumentExpiryDate"] != "2028-12-31" {
		t.Fatal(d)
	}
	id := d["DocumentId"].(string)
	for body, field := range map[string]string{
		`{"DocumentType":"Licence","DocumentStartDate":"2026-13-01"}`:                                   "DocumentStartDate",
		`{"DocumentType":"Licence","DocumentExpiryDate":"31/12/2028"}`:                                  "DocumentExpiryDate",
		`{"DocumentType":"Licence","DocumentStartDate":"2027-01-01","DocumentExpiryDate":"2026-01-01"}`: "DocumentExpiryDate",
		`{"DocumentType":"Horoscope"}`:                                                                  "DocumentType",
		`{}`:                                                                                            "DocumentType",
	} {
		if r, m := a.do("POST", base, body); r.StatusCode != 422 || fieldsOf(m)[field] == "" {
			t.Errorf("%s: %d %v", body, r.StatusCode, m)
		}
	}
	l := a.must(200, "GET", base, "")
	if l["totalSize"].(float64) != 2 {
		t.Fatalf("documents: %v", l)
	}
	u := a.must(200, "PUT", base+"/"+id, `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-654321","DocumentStartDate":"2026-01-01"}`)
	// An unset optional date is left out, never "" (format: date).
	if _, has := u["DocumentExpiryDate"]; u["DocumentReferenceNumber"] != "FCA-654321" || has {
		t.Fatal(u)
	}
	a.must(404, "GET", base+"/nope", "")
	// A document type in use cannot be deleted.
	r, m := a.do("DELETE", "/references/document-types/Licence", "")
	if r.StatusCode != 409 || !strings.Contains(m["errors"].([]any)[0].(map[string]any)["message"].(string), `|{"Documents":[`) {
		t.Fatalf("%d %v", r.StatusCode, m)
	}
}

func TestCertificationsAndTheDisableRule(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	live := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Live app"}`)["SoftwareStatementId"].(string)
	gone := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Old app"}`)["SoftwareStatementId"].(string)
	disc := discoveryServer(t, func(self string) string { return self })
	srv := a.must(201, "POST", "/organisations/"+oid+"/authorisationservers", `{"CustomerFriendlyName":"AS","Issuer":"`+disc+`"}`)["AuthorisationServerId"].(string)

	app := "/organisations/" + oid + "/softwarestatements/"
	c := a.must(201, "POST", app+live+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01","CertificationExpirationDate":"2027-03-01","CertificationURI":"https://openid.net/certification/acme"}`)
	if c["Status"] != "Active" || c["SubjectType"] != "SoftwareStatement" {
		t.Fatal(c)
	}
	a.must(201, "POST", app+gone+"/certifications", `{"CertificationType":"DCR","CertificationStartDate":"2026-03-01"}`)
	a.must(201, "POST", "/organisations/"+oid+"/authorisationservers/"+srv+"/certifications", `{"CertificationType":"CIBA","CertificationStartDate":"2026-04-01"}`)
	for body, field := range map[string]string{
		`{"CertificationType":"FAPI"}`: "CertificationStartDate",
		`{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01","CertificationExpirationDate":"2025-01-01"}`: "CertificationExpirationDate",
		`{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01","CertificationURI":"http://x"}`:              "CertificationURI",
		`{"CertificationType":"Astrology","CertificationStartDate":"2026-03-01"}`:                                       "CertificationType",
		`{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01","Status":"Expired"}`:                         "Status",
	} {
		if r, m := a.do("POST", app+live+"/certifications", body); r.StatusCode != 422 || fieldsOf(m)[field] == "" {
			t.Errorf("%s: %d %v", body, r.StatusCode, m)
		}
	}
	if l := a.must(200, "GET", app+live+"/certifications", ""); len(l["list"].([]any)) != 1 {
		t.Fatal(l)
	}
	a.must(200, "PUT", app+live+"/certifications/"+c["CertificationId"].(string), `{"CertificationType":"FAPI","CertificationStartDate":"2026-03-02"}`)
	a.must(404, "GET", app+gone+"/certifications/"+c["CertificationId"].(string), "")

	// Disabling: FAPI is held by an Active application, so it stays enabled.
	r, m := a.do("PUT", "/references/certification-types/FAPI", `{"Status":"Inactive"}`)
	msg, _ := m["errors"].([]any)[0].(map[string]any)["message"].(string)
	if r.StatusCode != 409 || !strings.Contains(msg, live) {
		t.Fatalf("FAPI held by an active application: %d %v", r.StatusCode, m)
	}
	// CIBA on an Active server: also refused; once the server is withdrawn, allowed.
	a.must(409, "PUT", "/references/certification-types/CIBA", `{"Status":"Inactive"}`)
	a.must(200, "PUT", "/organisations/"+oid+"/authorisationservers/"+srv, `{"CustomerFriendlyName":"AS","Issuer":"`+disc+`","Status":"Withdrawn"}`)
	a.must(200, "PUT", "/references/certification-types/CIBA", `{"Status":"Inactive"}`)
	// DCR is held only by an application that is not Active: it can be disabled.
	a.must(200, "PUT", "/organisations/"+oid+"/softwarestatements/"+gone, `{"ClientName":"Old app","Status":"Suspended"}`)
	a.must(200, "PUT", "/references/certification-types/DCR", `{"Status":"Inactive"}`)
	// A disabled type cannot be given to a new certification.
	if r, m := a.do("POST", app+live+"/certifications", `{"CertificationType":"DCR","CertificationStartDate":"2026-03-01"}`); r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["CertificationType"], "Inactive") {
		t.Fatalf("disabled type: %d %v", r.StatusCode, m)
	}
}

func TestDocumentWizardAndCertificationPage(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App"}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+oid+"/documents/new")
	if doc.Find("[data-testid=document-form] select[name=DocumentType]").Length() != 1 {
		t.Fatal("the page asks for the type")
	}
	if doc.Find("#f-DocumentReferenceNumber").Length() != 1 || doc.Find("#f-DocumentStartDate").Length() != 1 {
		t.Fatal("the page has the 2.6.0 fields")
	}
	resp, err := c.PostForm(env.URL+"/organisations/"+oid+"/documents", url.Values{"DocumentType": {"Licence"}, "DocumentStartDate": {"2027-01-01"}, "DocumentExpiryDate": {"2026-01-01"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != 422 || !strings.Contains(doc.Find("[data-testid=error-DocumentExpiryDate]").Text(), "before the start") {
		t.Fatalf("dates: %d", resp.StatusCode)
	}
	resp, err = c.PostForm(env.URL+"/organisations/"+oid+"/documents", url.Values{"DocumentType": {"Licence"}, "DocumentReferenceNumber": {"L-1"}, "DocumentStartDate": {"2026-01-01"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if doc.Find("[data-testid=document-row]").Length() != 1 || !strings.Contains(doc.Find("[data-testid=document-row]").Text(), "L-1") {
		t.Fatalf("after save: %s", resp.Request.URL)
	}
	_, doc = page(t, c, env.URL+"/organisations/"+oid+"/softwarestatements/"+aid+"/certifications/new")
	if doc.Find("main h1").Text() != "Add certification" || doc.Find("[data-testid=certification-form] #f-CertificationStartDate").Length() != 1 || doc.Find("dialog[open]").Length() != 0 {
		t.Fatal("the Add Certification page has its heading and a Start Date, no dialog")
	}
	resp, err = c.PostForm(env.URL+"/organisations/"+oid+"/softwarestatements/"+aid+"/certifications", url.Values{"CertificationType": {"FAPI"}, "CertificationStartDate": {"2026-05-01"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if !strings.Contains(doc.Find("[data-testid=certification-row]").Text(), "2026-05-01") {
		t.Fatal("the certification is listed")
	}
}

// TestCertificationsTabLeadsToItsHolders: the organisation's Certifications
// tab said to add a certification "on its holder's page" and linked to
// none: a new organisation's tab was a dead end. It links each application
// and authorisation server to the form that adds one.
func TestCertificationsTabLeadsToItsHolders(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+oid+"/certifications")
	want := "/organisations/" + oid + "/softwarestatements/" + app + "/certifications/new"
	link := doc.Find(`main a[href="` + want + `"]`)
	if link.Length() != 1 || !strings.Contains(link.Text(), "Payments app") {
		t.Fatalf("no link to add a certification to Payments app (%q)", strings.Join(strings.Fields(doc.Find("main").Text()), " "))
	}
}
