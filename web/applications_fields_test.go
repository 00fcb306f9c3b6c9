package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestClientIdIsNotWritableOnCreate: ClientId is the service's to assign
// (docs/decisions.md): one sent on create, by the API or the form, is
// ignored like every other server-set field, and the application gets its
// own id as ClientId.
func TestClientIdIsNotWritableOnCreate(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App","ClientId":"chosen-by-the-client"}`)
	if app["ClientId"] != app["SoftwareStatementId"] {
		t.Fatalf("API create: ClientId %v, want the id %v", app["ClientId"], app["SoftwareStatementId"])
	}

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/organisations/"+oid+"/softwarestatements", url.Values{"ClientName": {"Form app"}, "Status": {"Active"}, "ClientId": {"form-chosen"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	apps, err := env.DB.ListSoftwareStatements(context.Background(), oid)
	if err != nil || len(apps) != 2 {
		t.Fatalf("%d %v %v", resp.StatusCode, apps, err)
	}
	for _, s := range apps {
		if s.ClientID != s.SoftwareStatementID {
			t.Errorf("%s: ClientId %q, want its id %q", s.ClientName, s.ClientID, s.SoftwareStatementID)
		}
	}
}

// TestFieldLimits: every free-text field and list of applications (and the
// unbounded ones of servers, organisations and certifications) has a
// documented maximum (docs/decisions.md); one over it is a 422 naming the
// field, and nothing is created.
func TestFieldLimits(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	appID := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App"}`)["SoftwareStatementId"].(string)
	long := func(n int) string { return strings.Repeat("x", n) }
	list := func(n int, item string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf("%q", fmt.Sprintf(item, i))
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	apps := "/organisations/" + oid + "/softwarestatements"
	cases := []struct{ name, path, body, field string }{
		{"Version", apps, `{"ClientName":"A","Version":"` + long(51) + `"}`, "Version"},
		{"Version of 100,000", apps, `{"ClientName":"A","Version":"` + long(100000) + `"}`, "Version"},
		{"Roles count", apps, `{"ClientName":"A","Roles":` + list(21, "role-%d") + `}`, "Roles"},
		{"Roles item", apps, `{"ClientName":"A","Roles":["` + long(101) + `"]}`, "Roles"},
		{"RedirectUri count", apps, `{"ClientName":"A","RedirectUri":` + list(21, "https://app.example.com/cb%d") + `}`, "RedirectUri"},
		{"RedirectUri item", apps, `{"ClientName":"A","RedirectUri":["https://app.example.com/` + long(2000) + `"]}`, "RedirectUri"},
		{"JwksUri", apps, `{"ClientName":"A","JwksUri":"https://app.example.com/` + long(2000) + `"}`, "JwksUri"},
		{"notification endpoint", apps, `{"ClientName":"A","backchannel_token_delivery_mode":"ping","backchannel_client_notification_endpoint":"https://app.example.com/` + long(2000) + `"}`, "backchannel_client_notification_endpoint"},
		{"origins count", apps, `{"ClientName":"A","software_origins_uri":` + list(21, "https://o%d.example.com") + `}`, "software_origins_uri"},
		{"origin item", apps, `{"ClientName":"A","software_origins_uri":["https://` + long(300) + `.example.com"]}`, "software_origins_uri"},
		{"app Flags count", apps, `{"ClientName":"A","Flags":` + list(51, "00000000-0000-4000-8000-%012d") + `}`, "Flags"},
		{"app update Version", apps + "/" + appID, `{"ClientName":"A","Status":"Active","Version":"` + long(51) + `"}`, "Version"},
		{"server Issuer", "/organisations/" + oid + "/authorisationservers", `{"CustomerFriendlyName":"S","Issuer":"https://as.example.com/` + long(2000) + `"}`, "Issuer"},
		{"server discovery", "/organisations/" + oid + "/authorisationservers", `{"CustomerFriendlyName":"S","Issuer":"https://as.example.com","OpenIDDiscoveryDocument":"https://as.example.com/` + long(2000) + `"}`, "OpenIDDiscoveryDocument"},
		{"server Flags count", "/organisations/" + oid + "/authorisationservers", `{"CustomerFriendlyName":"S","Issuer":"https://as.example.com","Flags":` + list(51, "00000000-0000-4000-8000-%012d") + `}`, "Flags"},
		{"organisation Flags count", "/organisations", strings.TrimSuffix(org("Big"), "}") + `,"Flags":` + list(51, "00000000-0000-4000-8000-%012d") + `}`, "Flags"},
		{"certification URI", apps + "/" + appID + "/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01","CertificationURI":"https://c.example.com/` + long(2000) + `"}`, "CertificationURI"},
	}
	for _, c := range cases {
		method := "POST"
		if strings.HasSuffix(c.path, appID) {
			method = "PUT"
		}
		r, m := a.do(method, c.path, c.body)
		if r.StatusCode != 422 || !strings.Contains(fieldsOf(m)[c.field], "At most") {
			t.Errorf("%s: %d %.200v, want 422 naming %s", c.name, r.StatusCode, fieldsOf(m), c.field)
		}
	}
	if l := a.must(200, "GET", apps, ""); len(l["list"].([]any)) != 1 {
		t.Fatalf("refused requests created applications: %d", len(l["list"].([]any)))
	}
	// At the limits: accepted. Application roles must be held by the
	// organisation (docs/design.md §12), so it is given twenty.
	a.must(201, "POST", "/references/authorisation-domains", `{"Name":"Limits"}`)
	au := a.must(201, "POST", "/references/authorities", `{"AuthorityName":"Regulator","AuthorityCode":"RG","Country":"GB","AuthorisationDomains":["Limits"]}`)["AuthorityId"].(string)
	for i := range 20 {
		role := fmt.Sprintf("role-%d", i)
		a.must(201, "POST", "/references/authorisation-domains/Limits/roles", `{"Name":"`+role+`","Type":"Directory"}`)
		grant(t, a, oid, au, "Limits", role)
	}
	ok := `{"ClientName":"` + long(200) + `","Version":"` + long(50) + `","Roles":` + list(20, "role-%d") + `,"RedirectUri":` + list(20, "https://app.example.com/cb%d") + `}`
	a.must(201, "POST", apps, ok)
}

// TestApplicationFormKeepsVersion: the application form has a Version
// field, so editing in the browser keeps the Version the API set, and one
// over its limit is shown beside the field.
func TestApplicationFormKeepsVersion(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App","Version":"2.1"}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+oid+"/softwarestatements/"+aid+"/edit")
	form := url.Values{}
	doc.Find("[data-testid=application-form] input, [data-testid=application-form] textarea").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		if s.Is("textarea") {
			form.Set(name, s.Text())
		} else if typ, _ := s.Attr("type"); typ != "checkbox" {
			val, _ := s.Attr("value")
			form.Set(name, val)
		}
	})
	if form.Get("Version") != "2.1" {
		t.Fatalf("the form's Version: %q", form.Get("Version"))
	}
	form.Set("Status", "Active")
	form.Set("ClientName", "App renamed")
	resp, err := c.PostForm(env.URL+"/organisations/"+oid+"/softwarestatements/"+aid, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := a.must(200, "GET", "/organisations/"+oid+"/softwarestatements/"+aid, "")
	if got["ClientName"] != "App renamed" || got["Version"] != "2.1" {
		t.Fatalf("after a form edit: %v %v", got["ClientName"], got["Version"])
	}
	form.Set("Version", strings.Repeat("9", 51))
	resp, err = c.PostForm(env.URL+"/organisations/"+oid+"/softwarestatements/"+aid, form)
	if err != nil {
		t.Fatal(err)
	}
	if msg := docOf(t, resp).Find("[data-testid=error-Version]").Text(); resp.StatusCode != 422 || !strings.Contains(msg, "At most 50") {
		t.Fatalf("an oversized Version in the form: %d %q", resp.StatusCode, msg)
	}
}
