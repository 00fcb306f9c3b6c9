package web_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestTrustMarkTypesAPI: Super Users define and change trust mark types
// (docs/design.md §17); a type without a URL gets the entity ID's; every
// refusal is a problem naming the field, and changes nothing.
func TestTrustMarkTypesAPI(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	resp, created := su.do("POST", "/references/trust-mark-types", `{"Name":"Payment Initiation","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP"}`)
	if resp.StatusCode != 201 || resp.Header.Get("ETag") == "" {
		t.Fatalf("create: %d %v", resp.StatusCode, created)
	}
	id := created["Id"].(string)
	if resp.Header.Get("Location") != "/api/references/trust-mark-types/"+id {
		t.Fatalf("Location %q", resp.Header.Get("Location"))
	}
	if created["TrustMarkType"] != env.URL+"/trust-marks/payment-initiation" || created["Lifetime"] != "24h" || created["Status"] != "Active" {
		t.Fatalf("defaults: %v", created)
	}
	cert := su.must(201, "POST", "/references/trust-mark-types", `{"Id":"0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a","TrustMarkType":"https://tm.example/fapi",
		"Name":"FAPI","Basis":"Certification","CertificationType":"FAPI","Lifetime":"1h","LogoUri":"https://tm.example/fapi.png","Ref":"https://tm.example/rules"}`)
	if cert["Id"] != "0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a" || cert["LogoUri"] != "https://tm.example/fapi.png" {
		t.Fatalf("chosen Id: %v", cert)
	}

	for _, c := range []struct{ body, field string }{
		{`{"Name":"X","Basis":"Role","AuthorisationDomain":"Payments","Role":"DATA"}`, "Role"},
		{`{"Name":"X","Basis":"Role","AuthorisationDomain":"Nowhere","Role":"PISP"}`, "AuthorisationDomain"},
		{`{"Name":"X","Basis":"Certification","CertificationType":"NOPE"}`, "CertificationType"},
		{`{"Name":"X","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","Lifetime":"721h"}`, "Lifetime"},
		{`{"Name":"X","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","TrustMarkType":"https://tm.example/fapi"}`, "TrustMarkType"},
		{`{"Name":"X","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","TrustMarkType":"http://tm.example/x"}`, "TrustMarkType"},
		{`{"Name":"X","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","LogoUri":"http://tm.example/x.png"}`, "LogoUri"},
		{`{"Id":"NOT-A-UUID","Name":"X","Basis":"Certification","CertificationType":"FAPI"}`, "Id"},
		{`{"Name":"X","Basis":"Flag"}`, "Basis"},
	} {
		resp, m := su.do("POST", "/references/trust-mark-types", c.body)
		if resp.StatusCode != 422 || fieldsOf(m)[c.field] == "" {
			t.Errorf("%s: %d %v, want 422 on %s", c.body, resp.StatusCode, m, c.field)
		}
	}
	if l := su.must(200, "GET", "/references/trust-mark-types", "")["list"].([]any); len(l) != 2 {
		t.Fatalf("a refused type was written: %d", len(l))
	}

	// Update: If-Match, the URL kept when left out and never changed.
	resp, got := su.do("GET", "/references/trust-mark-types/"+id, "")
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || got["Name"] != "Payment Initiation" {
		t.Fatalf("get: %d %v", resp.StatusCode, got)
	}
	if resp, m := su.do("PUT", "/references/trust-mark-types/"+id, `{"Name":"PISP","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","Status":"Inactive"}`, "If-Match", `"stale"`); resp.StatusCode != 412 {
		t.Fatalf("stale If-Match: %d %v", resp.StatusCode, m)
	}
	resp, m := su.do("PUT", "/references/trust-mark-types/"+id, `{"Name":"PISP","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","TrustMarkType":"https://tm.example/other"}`)
	if resp.StatusCode != 422 || fieldsOf(m)["TrustMarkType"] == "" {
		t.Fatalf("a changed URL: %d %v", resp.StatusCode, m)
	}
	resp, m = su.do("PUT", "/references/trust-mark-types/"+id, `{"Name":"PISP","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","Status":"Inactive"}`, "If-Match", etag)
	if resp.StatusCode != 200 || m["Status"] != "Inactive" || m["TrustMarkType"] != created["TrustMarkType"] || m["Lifetime"] != "24h" {
		t.Fatalf("update: %d %v", resp.StatusCode, m)
	}
	if resp, m := su.do("GET", "/references/trust-mark-types/"+strings.Repeat("0", 8), ""); resp.StatusCode != 404 {
		t.Fatalf("unknown: %d %v", resp.StatusCode, m)
	}
	// Create and update are in the audit log.
	recs := su.must(200, "GET", "/audit?Subject=TrustMarkType&SubjectId="+id, "")
	if n := recs["totalSize"].(float64); n != 2 {
		t.Fatalf("%v audit records: %v", n, recs)
	}
}

// TestTrustMarkTypesAccess: Data Administrators read trust mark types and
// write none; without credentials nothing.
func TestTrustMarkTypesAccess(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	dana := newAPIWithInvite(t, env, su, "dana@example.com")
	id := su.must(201, "POST", "/references/trust-mark-types", `{"Name":"FAPI","Basis":"Certification","CertificationType":"FAPI"}`)["Id"].(string)
	if l := dana.must(200, "GET", "/references/trust-mark-types", "")["list"].([]any); len(l) != 1 {
		t.Fatalf("Data Administrator's list: %v", l)
	}
	dana.must(200, "GET", "/references/trust-mark-types/"+id, "")
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/references/trust-mark-types", `{"Name":"DCR","Basis":"Certification","CertificationType":"DCR"}`},
		{"PUT", "/references/trust-mark-types/" + id, `{"Name":"FAPI","Basis":"Certification","CertificationType":"FAPI","Status":"Inactive"}`},
	} {
		if r, m := dana.do(c.method, c.path, c.body); r.StatusCode != 403 {
			t.Errorf("Data Administrator %s %s: %d %v", c.method, c.path, r.StatusCode, m)
		}
	}
	if got := su.must(200, "GET", "/references/trust-mark-types/"+id, ""); got["Status"] != "Active" {
		t.Fatalf("a refused write changed the type: %v", got)
	}
	if l := su.must(200, "GET", "/references/trust-mark-types", "")["list"].([]any); len(l) != 1 {
		t.Fatalf("a refused create wrote: %v", l)
	}
	resp, err := http.Get(env.URL + "/api/references/trust-mark-types")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("no credentials: %d", resp.StatusCode)
	}
	// The console's pages are Reference Data: Super Users only.
	b := webtest.Browser()
	webtest.SignIn(t, b, env.URL, "dana@example.com").Body.Close()
	if r, _ := page(t, b, env.URL+"/references/trust-mark-types/"+id); r.StatusCode != 403 {
		t.Fatalf("Data Administrator on the console page: %d", r.StatusCode)
	}
}

// TestTrustMarkTypeConsole: the Reference Data index links the types; a
// type is added through the form (a refusal beside its field first); its
// page lists the entities entitled now.
func TestTrustMarkTypeConsole(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid, _ := setupApp(t, su) // an Active organisation holding PISP
	app := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Fed RP","Roles":["PISP"],"FederationEntityId":"https://rp.example"}`)
	su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"No role","FederationEntityId":"https://norole.example"}`)
	b := webtest.Browser()
	webtest.SignIn(t, b, env.URL, "admin@example.com").Body.Close()

	_, doc := page(t, b, env.URL+"/references")
	if href, _ := doc.Find(`[data-testid=ref-trust-mark-types]`).Attr("href"); href != "/references/trust-mark-types" {
		t.Fatalf("index link %q", href)
	}
	_, doc = page(t, b, env.URL+"/references/trust-mark-types/new")
	form := browserForm(doc, "/references/trust-mark-types")
	form.Set("Name", "Payment initiation")
	form.Set("Basis", "Role")
	form.Set("DomainRole", "Payments/NOPE") // a role deleted meanwhile, or a page sent by hand
	status, doc := postForm(t, b, env.URL+"/references/trust-mark-types", form)
	if status != 422 || !strings.Contains(doc.Find(`[data-testid=error-DomainRole]`).Text(), "NOPE") {
		t.Fatalf("refused: %d %q", status, doc.Find(`[data-testid=error-DomainRole]`).Text())
	}
	if v, _ := doc.Find(`#f-Name`).Attr("value"); v != "Payment initiation" {
		t.Fatalf("the form lost what was typed: %q", v)
	}
	if v, _ := doc.Find(`#f-DomainRole option[selected]`).Attr("value"); v != "Payments/NOPE" {
		t.Fatalf("the refused choice is not kept selected: %q", v)
	}
	form.Set("DomainRole", "Payments/PISP")
	status, doc = postForm(t, b, env.URL+"/references/trust-mark-types", form)
	if status != 200 {
		t.Fatalf("saved: %d", status)
	}
	// Redirected to the type's page: the application with the role is
	// entitled, the one without is not.
	if got := doc.Find(`[data-testid=trust-mark-type]`).Text(); got != env.URL+"/trust-marks/payment-initiation" {
		t.Fatalf("type page: %q", got)
	}
	rows := doc.Find(`[data-testid=entitled-row]`)
	if rows.Length() != 1 || !strings.Contains(rows.Text(), "https://rp.example") || !strings.Contains(rows.Text(), "Fed RP") {
		t.Fatalf("entitled: %q", rows.Text())
	}
	if href, _ := rows.Find("a").Attr("href"); href != "/organisations/"+oid+"/softwarestatements/"+app["SoftwareStatementId"].(string) {
		t.Fatalf("link %q", href)
	}
	// The edit form saves the type Inactive: nobody is entitled.
	id := su.must(200, "GET", "/references/trust-mark-types", "")["list"].([]any)[0].(map[string]any)["Id"].(string)
	_, doc = page(t, b, env.URL+"/references/trust-mark-types/"+id+"/edit")
	edit := browserForm(doc, "/references/trust-mark-types/"+id)
	if edit.Get("DomainRole") != "Payments/PISP" || edit.Get("Status") != "Active" {
		t.Fatalf("edit form: %v", edit)
	}
	edit.Set("Status", "Inactive")
	status, doc = postForm(t, b, env.URL+"/references/trust-mark-types/"+id, edit)
	if status != 200 || doc.Find(`[data-testid=entitled-empty]`).Length() != 1 {
		t.Fatalf("inactive: %d %q", status, doc.Find("main").Text())
	}
	_, doc = page(t, b, env.URL+"/references/trust-mark-types")
	if rows := doc.Find(`[data-testid=trust-mark-type-row]`); rows.Length() != 1 || !strings.Contains(rows.Text(), "Inactive") {
		t.Fatalf("list: %q", rows.Text())
	}
}

// TestTrustMarkTypeFormChoosesFromReferenceData: the form's authorisation
// domain and role (one list, as the role metadata policy form has) and its
// certification type are drop-downs filled from Reference Data, each with
// its label; the basis chosen decides which choice is saved, without
// JavaScript; an unknown certification type is still refused (the API
// takes text), beside its field with the choice kept selected.
func TestTrustMarkTypeFormChoosesFromReferenceData(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	su.must(200, "PUT", "/references/certification-types/DCR", `{"Name":"DCR","Status":"Inactive"}`) // FAPI, DCR and CIBA come with the directory
	su.must(200, "PUT", "/references/authorisation-domains/Payments/roles/AISP", `{"Type":"Federation","Status":"Inactive"}`)
	b := webtest.Browser()
	webtest.SignIn(t, b, env.URL, "admin@example.com").Body.Close()

	_, doc := page(t, b, env.URL+"/references/trust-mark-types/new")
	options := func(doc *goquery.Document, sel string) []string {
		var out []string
		doc.Find(sel + " option").Each(func(_ int, o *goquery.Selection) { out = append(out, o.AttrOr("value", "?")) })
		return out
	}
	if got := options(doc, "select#f-DomainRole"); !slices.Equal(got, []string{"", "Data/DATA", "Payments/EXCL", "Payments/PISP"}) {
		t.Fatalf("domain roles offered: %q", got)
	}
	if got := options(doc, "select#f-CertificationType"); !slices.Equal(got, []string{"", "CIBA", "FAPI"}) {
		t.Fatalf("certification types offered: %q", got)
	}
	for _, id := range []string{"f-Basis", "f-DomainRole", "f-CertificationType"} {
		if doc.Find(`label[for=`+id+`]`).Length() != 1 || doc.Find(`input#`+id).Length() != 0 {
			t.Errorf("%s: not a labelled drop-down", id)
		}
	}

	// Based on a certification: the role still chosen in the other list is
	// not saved.
	form := browserForm(doc, "/references/trust-mark-types")
	form.Set("Name", "FAPI certified")
	form.Set("Basis", "Certification")
	form.Set("DomainRole", "Payments/PISP")
	form.Set("CertificationType", "NOPE")
	status, doc := postForm(t, b, env.URL+"/references/trust-mark-types", form)
	if status != 422 || !strings.Contains(doc.Find(`[data-testid=error-CertificationType]`).Text(), "NOPE") {
		t.Fatalf("unknown certification type: %d %q", status, doc.Find(`[data-testid=error-CertificationType]`).Text())
	}
	if v := doc.Find(`#f-CertificationType option[selected]`).AttrOr("value", ""); v != "NOPE" {
		t.Fatalf("the refused certification type is not kept selected: %q", v)
	}
	if v := doc.Find(`#f-Basis option[selected]`).AttrOr("value", ""); v != "Certification" {
		t.Fatalf("the basis is not kept: %q", v)
	}
	form.Set("CertificationType", "FAPI")
	if status, doc = postForm(t, b, env.URL+"/references/trust-mark-types", form); status != 200 {
		t.Fatalf("saved: %d %q", status, doc.Find("main").Text())
	}
	l := su.must(200, "GET", "/references/trust-mark-types", "")["list"].([]any)
	if got := l[0].(map[string]any); len(l) != 1 || got["CertificationType"] != "FAPI" || got["AuthorisationDomain"] != nil || got["Role"] != nil {
		t.Fatalf("saved as %v", l)
	}
	// The edit form shows the choice, and a Role basis without a role is
	// refused beside the list.
	id := l[0].(map[string]any)["Id"].(string)
	_, doc = page(t, b, env.URL+"/references/trust-mark-types/"+id+"/edit")
	edit := browserForm(doc, "/references/trust-mark-types/"+id)
	if edit.Get("CertificationType") != "FAPI" || edit.Get("DomainRole") != "" {
		t.Fatalf("edit form: %v", edit)
	}
	edit.Set("Basis", "Role")
	status, doc = postForm(t, b, env.URL+"/references/trust-mark-types/"+id, edit)
	if status != 422 || doc.Find(`[data-testid=error-DomainRole]`).Text() != "Choose a domain and role." || doc.Find(`#f-DomainRole[aria-invalid=true]`).Length() != 1 {
		t.Fatalf("no role: %d %q", status, doc.Find(`[data-testid=error-DomainRole]`).Text())
	}
}

// TestTrustMarkTypeNamesAreUnique: a second type of the same name (in any
// letter case) is refused on Name, created or renamed, even with its own
// URL; a type saved again under its own name passes.
func TestTrustMarkTypeNamesAreUnique(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	su.must(201, "POST", "/references/trust-mark-types", `{"Name":"Payment Initiation","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP"}`)
	r, m := su.do("POST", "/references/trust-mark-types", `{"Name":"payment initiation","TrustMarkType":"https://tm.example/other","Basis":"Role","AuthorisationDomain":"Payments","Role":"AISP"}`)
	if r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["Name"], "Another trust mark type is called") {
		t.Fatalf("a second type of the same name: %d %v", r.StatusCode, m)
	}
	other := su.must(201, "POST", "/references/trust-mark-types", `{"Name":"Account information","Basis":"Role","AuthorisationDomain":"Payments","Role":"AISP"}`)
	id := other["Id"].(string)
	r, m = su.do("PUT", "/references/trust-mark-types/"+id, `{"Name":"PAYMENT INITIATION","Basis":"Role","AuthorisationDomain":"Payments","Role":"AISP"}`)
	if r.StatusCode != 422 || fieldsOf(m)["Name"] == "" {
		t.Fatalf("renamed to another type's name: %d %v", r.StatusCode, m)
	}
	su.must(200, "PUT", "/references/trust-mark-types/"+id, `{"Name":"Account information","Description":"AISPs","Basis":"Role","AuthorisationDomain":"Payments","Role":"AISP"}`)
}
