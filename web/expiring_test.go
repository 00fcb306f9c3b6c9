package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web/webtest"
)

// GET /api/expiring and the home page list what needs renewing within the
// horizon, soonest first, and leave out what is revoked, Inactive, far off,
// undated or of a Withdrawn organisation.
func TestExpiring(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format("2006-01-02") }
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	gone := a.must(201, "POST", "/organisations", org("Gone"))["OrganisationId"].(string)

	// Certificates: one ending in 10 days, one in 100, one revoked in 5.
	key := webtest.Key(t, "p256")
	soon := webtest.Cert(t, key, "soon.acme.example", time.Now().Add(-time.Hour), time.Now().Add(10*24*time.Hour))
	later := webtest.Cert(t, key, "later.acme.example", time.Now().Add(-time.Hour), time.Now().Add(100*24*time.Hour))
	revoked := webtest.Cert(t, key, "revoked.acme.example", time.Now().Add(-time.Hour), time.Now().Add(5*24*time.Hour))
	for _, p := range []string{soon, later, revoked} {
		if r, m := postPEM(t, a, "/organisations/"+oid+"/certificates/qseal", p); r.StatusCode != 201 {
			t.Fatalf("upload: %d %v", r.StatusCode, m)
		}
	}
	_, certs := a.do("GET", "/organisations/"+oid+"/certificates", "")
	for _, c := range certs["list"].([]any) {
		cm := c.(map[string]any)
		if strings.Contains(cm["SubjectDN"].(string), "revoked") {
			a.must(204, "PUT", "/organisations/"+oid+"/certificates/kid/"+cm["kid"].(string), `{"RevokeReason":"superseded"}`)
		}
	}
	// Documents: expired 3 days ago, ending in 20 days, in 200 days, undated.
	docs := "/organisations/" + oid + "/documents"
	a.must(201, "POST", docs, `{"DocumentType":"Licence","DocumentReferenceNumber":"OLD-1","DocumentExpiryDate":"`+day(-3)+`"}`)
	a.must(201, "POST", docs, `{"DocumentType":"Licence","DocumentReferenceNumber":"SOON-2","DocumentExpiryDate":"`+day(20)+`"}`)
	a.must(201, "POST", docs, `{"DocumentType":"Licence","DocumentReferenceNumber":"FAR-3","DocumentExpiryDate":"`+day(200)+`"}`)
	a.must(201, "POST", docs, `{"DocumentType":"Registration","DocumentDescription":"company registration"}`)
	// A Withdrawn organisation's document is nobody's worry.
	a.must(201, "POST", "/organisations/"+gone+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"GONE-4","DocumentExpiryDate":"`+day(1)+`"}`)
	a.must(200, "PUT", "/organisations/"+gone, `{"OrganisationName":"Gone","RegistrationNumber":"REG-Gone","CountryOfRegistration":"GB","Status":"Withdrawn"}`)
	// Certifications: an Active one ending in 15 days, an Inactive one in 2.
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app"}`)["SoftwareStatementId"].(string)
	certs2 := "/organisations/" + oid + "/softwarestatements/" + app + "/certifications"
	a.must(201, "POST", certs2, `{"CertificationType":"FAPI","CertificationStartDate":"`+day(-300)+`","CertificationExpirationDate":"`+day(15)+`"}`)
	a.must(201, "POST", certs2, `{"CertificationType":"DCR","CertificationStartDate":"`+day(-300)+`","CertificationExpirationDate":"`+day(2)+`","Status":"Inactive"}`)

	e := a.must(200, "GET", "/expiring", "")
	names := func(kind, field string) string {
		var out []string
		for _, it := range e[kind].([]any) {
			out = append(out, it.(map[string]any)[field].(string))
		}
		return strings.Join(out, ",")
	}
	if got := names("Certificates", "SubjectDN"); !strings.Contains(got, "soon.acme.example") || strings.Contains(got, "later") || strings.Contains(got, "revoked") {
		t.Errorf("certificates within 30 days: %s", got)
	}
	if got := names("Documents", "DocumentReferenceNumber"); got != "OLD-1,SOON-2" {
		t.Errorf("documents within 30 days, soonest first: %s", got)
	}
	if got := names("Certifications", "CertificationType"); got != "FAPI" {
		t.Errorf("certifications within 30 days: %s", got)
	}
	if got := e["Certifications"].([]any)[0].(map[string]any)["SubjectName"]; got != "Payments app" {
		t.Errorf("certification held by %v", got)
	}
	e = a.must(200, "GET", "/expiring?days=365", "")
	if got := names("Documents", "DocumentReferenceNumber"); got != "OLD-1,SOON-2,FAR-3" {
		t.Errorf("documents within a year: %s", got)
	}
	if got := names("Certificates", "SubjectDN"); !strings.Contains(got, "later.acme.example") {
		t.Errorf("certificates within a year: %s", got)
	}
	for _, bad := range []string{"-1", "366", "x", "1.5"} {
		a.must(400, "GET", "/expiring?days="+bad, "")
	}
	if r, _ := do(t, "GET", env.URL+"/api/expiring", "", ""); r.StatusCode != 401 {
		t.Fatalf("anonymous: %d", r.StatusCode)
	}

	// The home page shows the same, and the Pending onboarding queue (new
	// organisations start Pending: Acme and Newco).
	a.must(201, "POST", "/organisations", `{"OrganisationName":"Newco","RegistrationNumber":"N-1","CountryOfRegistration":"GB","Status":"Pending"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("home: %v %v", err, resp)
	}
	doc := docOf(t, resp)
	if n := doc.Find(`[data-testid=expiring-document]`).Length(); n != 2 {
		t.Errorf("home: %d documents", n)
	}
	if txt := doc.Find(`[data-testid=expiring-document]`).First().Text(); !strings.Contains(txt, "OLD-1") || !strings.Contains(txt, "expired 3 days ago") {
		t.Errorf("first document row %q", txt)
	}
	if txt := doc.Find(`[data-testid=expiring-certification]`).Text(); !strings.Contains(txt, "Payments app") || !strings.Contains(txt, "expires in 15 days") {
		t.Errorf("certification row %q", txt)
	}
	if txt := doc.Find(`[data-testid=pending]`).Text(); !strings.Contains(txt, "2 organisations are Pending") {
		t.Errorf("pending %q", txt)
	}
	// Every page has the quick search for organisations.
	if action, _ := doc.Find(`[data-testid=quick-search]`).Attr("action"); action != "/organisations" || doc.Find(`[data-testid=quick-search] input[name=q]`).Length() != 1 {
		t.Errorf("quick search form: %q", action)
	}
	// The latest activity, newest first: the sign-in, then Newco's creation.
	if n := doc.Find(`[data-testid=recent-change]`).Length(); n != 8 {
		t.Errorf("%d latest changes, want 8", n)
	}
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	first, second := words(doc.Find(`[data-testid=recent-change]`).Eq(0).Text()), words(doc.Find(`[data-testid=recent-change]`).Eq(1).Text())
	if !strings.Contains(first, "signed in") || !strings.Contains(second, "created organisation") || !strings.Contains(second, "Newco") || !strings.Contains(second, "admin@example.com") {
		t.Errorf("latest changes %q, %q", first, second)
	}
	resp, _ = c.Get(env.URL + "/?days=0")
	doc = docOf(t, resp)
	if doc.Find(`[data-testid=expiring-document]`).Length() != 1 || doc.Find(`[data-testid=expiring-certificate]`).Length() != 0 {
		t.Errorf("days=0 shows only what has expired")
	}
	if resp, _ := c.Get(env.URL + "/?days=999"); resp.StatusCode != 400 {
		t.Errorf("home with days=999: %d", resp.StatusCode)
	}
}

// A Pending organisation's page shows what it has in place; an Active one
// does not; every organisation links to its history.
func TestOnboardingChecklist(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	a.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Business","LastName":"Doe","EmailAddress":"doe@acme.example"}`)
	a.must(201, "POST", "/organisations/"+oid+"/documents", `{"DocumentType":"Licence","DocumentExpiryDate":"2001-01-01"}`) // expired: does not count
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	page := func() *goquery.Document {
		resp, err := c.Get(env.URL + "/organisations/" + oid)
		if err != nil {
			t.Fatal(err)
		}
		return docOf(t, resp)
	}
	doc := page()
	var items []string
	doc.Find(`[data-testid=check-item]`).Each(func(_ int, s *goquery.Selection) {
		ok, _ := s.Attr("data-ok")
		items = append(items, ok+" "+strings.Join(strings.Fields(strings.NewReplacer("✓", "", "✗", "").Replace(s.Text())), " "))
	})
	want := []string{"true Done: 1 contact Contacts", "false Missing: no regulatory documents in date Documents",
		"false Missing: no active certificates in date Certificates", "false Missing: no authorisation servers, no applications Applications"}
	if strings.Join(items, "|") != strings.Join(want, "|") {
		t.Fatalf("checklist:\n%s\nwant\n%s", strings.Join(items, "\n"), strings.Join(want, "\n"))
	}
	if warn, _ := doc.Find(`[data-testid=set-status-Active]`).Attr("data-confirm"); warn != "This organisation has no regulatory document in date, no active certificate in date, no authorisation server or application. Set it Active anyway?" {
		t.Fatalf("Set Active asks %q", warn)
	}
	if href, _ := doc.Find(`[data-testid=history]`).Attr("href"); href != "/audit?OrganisationId="+oid {
		t.Fatalf("history link %q", href)
	}
	a.must(200, "PUT", "/organisations/"+oid, `{"OrganisationName":"Acme","RegistrationNumber":"REG-Acme","CountryOfRegistration":"GB","Status":"Active"}`)
	if page().Find(`[data-testid=onboarding]`).Length() != 0 {
		t.Fatal("an Active organisation shows the onboarding checklist")
	}
}
