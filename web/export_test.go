package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web/webtest"
)

// The organisation list downloads as CSV with its search, filters and sort,
// and no cell can turn into a spreadsheet formula.
func TestExportOrganisationsCSV(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	flag := a.must(201, "POST", "/references/flags", `{"Name":"Pilot","Type":"Organisation"}`)["FlagId"].(string)
	a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"A-1","CountryOfRegistration":"GB","Status":"Active","Flags":["`+flag+`"]}`)
	a.must(201, "POST", "/organisations", `{"OrganisationName":"=HYPERLINK(\"http://x\")","RegistrationNumber":"B-2","CountryOfRegistration":"GB"}`)
	gone := a.must(201, "POST", "/organisations", `{"OrganisationName":"Zed Payments","RegistrationNumber":"Z-3","CountryOfRegistration":"FR"}`)["OrganisationId"].(string)
	a.must(200, "PUT", "/organisations/"+gone, `{"OrganisationName":"Zed Payments","RegistrationNumber":"Z-3","CountryOfRegistration":"FR","Status":"Withdrawn"}`)

	resp, rows := getCSV(t, http.DefaultClient, env.URL+"/api/organisations/export.csv?sort=OrganisationName,desc", a.token)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), `attachment; filename="organisations-`) {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	if len(rows) != 4 || rows[0][1] != "OrganisationName" || rows[0][10] != "Flags" {
		t.Fatalf("rows %v", rows)
	}
	var names []string
	for _, r := range rows[1:] {
		names = append(names, r[1])
	}
	if got := strings.Join(names, "|"); got != `Zed Payments|Acme Bank|'=HYPERLINK("http://x")` {
		t.Errorf("order or formula guard: %s", got)
	}
	if rows[2][10] != "Pilot" || rows[2][9] != "Active" || rows[1][9] != "Withdrawn" {
		t.Errorf("flags and status: %v / %v", rows[2], rows[1])
	}
	// Filters as in the list.
	if _, rows := getCSV(t, http.DefaultClient, env.URL+"/api/organisations/export.csv?Status=Inactive", a.token); len(rows) != 2 || rows[1][1] != "Zed Payments" {
		t.Errorf("Status=Inactive: %v", rows)
	}
	if _, rows := getCSV(t, http.DefaultClient, env.URL+"/api/organisations/export.csv?Flag="+flag, a.token); len(rows) != 2 || rows[1][1] != "Acme Bank" {
		t.Errorf("Flag: %v", rows)
	}
	if _, rows := getCSV(t, http.DefaultClient, env.URL+"/api/organisations/export.csv?q=acme", a.token); len(rows) != 2 {
		t.Errorf("q: %v", rows)
	}
	for _, bad := range []string{"Status=Gone", "sort=Nope,asc", "sort=OrganisationName,up"} {
		if r, _ := getCSV(t, http.DefaultClient, env.URL+"/api/organisations/export.csv?"+bad, a.token); r.StatusCode != 400 {
			t.Errorf("%s: %d", bad, r.StatusCode)
		}
	}
	if r, _ := getCSV(t, http.DefaultClient, env.URL+"/api/organisations/export.csv", ""); r.StatusCode != 401 {
		t.Errorf("anonymous: %d", r.StatusCode)
	}
	// Every download is in the audit log: who, how many, which filter.
	l := a.must(200, "GET", "/audit?Action=export", "")
	if l["totalSize"] != float64(4) || !strings.Contains(toJSON(t, l), "1 organisations as CSV; q=acme") {
		t.Errorf("exports in the audit log: %v", l)
	}

	// In the browser: the list's link carries the filters.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	page, err := c.Get(env.URL + "/organisations?Status=Active&sort=OrganisationName,desc&page=0")
	if err != nil {
		t.Fatal(err)
	}
	href, _ := docOf(t, page).Find(`[data-testid=export-csv]`).Attr("href")
	if href != "/organisations/export.csv?Status=Active&sort=OrganisationName%2Cdesc" {
		t.Fatalf("link %q", href)
	}
	if _, rows := getCSV(t, c, env.URL+href, ""); len(rows) != 2 || rows[1][1] != "Acme Bank" {
		t.Fatalf("browser download: %v", rows)
	}
}

// The audit log downloads as CSV, oldest first, with the page's filters and
// a period (From and To dates, To included).
func TestExportAuditCSV(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	a.must(200, "PUT", "/organisations/"+oid, `{"OrganisationName":"Acme 2","RegistrationNumber":"REG-Acme","CountryOfRegistration":"GB","Status":"Active"}`)
	today := time.Now().UTC().Format("2006-01-02")
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")

	_, rows := getCSV(t, http.DefaultClient, env.URL+"/api/audit/export.csv?OrganisationId="+oid, a.token)
	if len(rows) != 3 || rows[0][3] != "Action" || rows[1][3] != "create" || rows[2][3] != "status" || rows[1][2] != "admin@example.com" {
		t.Fatalf("rows %v", rows)
	}
	if _, rows := getCSV(t, http.DefaultClient, env.URL+"/api/audit/export.csv?Action=status&From="+today+"&To="+today, a.token); len(rows) != 2 {
		t.Errorf("today's status changes: %v", rows)
	}
	if _, rows := getCSV(t, http.DefaultClient, env.URL+"/api/audit/export.csv?To="+yesterday, a.token); len(rows) != 1 {
		t.Errorf("nothing before today: %v", rows)
	}
	for _, bad := range []string{"From=2026-13-01", "To=yesterday", "From=" + today + "&To=" + yesterday} {
		if r, _ := getCSV(t, http.DefaultClient, env.URL+"/api/audit/export.csv?"+bad, a.token); r.StatusCode != 400 {
			t.Errorf("%s: %d", bad, r.StatusCode)
		}
		if r, _ := a.do("GET", "/audit?"+bad, ""); r.StatusCode != 400 {
			t.Errorf("list %s: %d", bad, r.StatusCode)
		}
	}
	// The page's link keeps the filters, not the page number.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	page, err := c.Get(env.URL + "/audit?Action=status&From=" + today + "&page=0")
	if err != nil {
		t.Fatal(err)
	}
	href, _ := docOf(t, page).Find(`[data-testid=export-audit]`).Attr("href")
	if href != "/audit/export.csv?Action=status&From="+today {
		t.Fatalf("link %q", href)
	}
	if _, rows := getCSV(t, c, env.URL+href, ""); len(rows) != 2 || rows[1][3] != "status" {
		t.Fatalf("browser download: %v", rows)
	}
}

// In the console, an exact identifier typed in the search leads to what it
// names; the API list is unchanged.
func TestSearchFindsIdentifiers(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	good := discoveryServer(t, func(self string) string { return self })
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app"}`)
	a.must(201, "POST", "/organisations/"+oid+"/authorisationservers", `{"CustomerFriendlyName":"Acme AS","Issuer":"`+good+`"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for q, want := range map[string]string{
		oid:                       "/organisations/" + oid,
		app["ClientId"].(string):  "/organisations/" + oid + "/softwarestatements/" + app["SoftwareStatementId"].(string),
		good + "/":                "/organisations/" + oid + "/authorisationservers",
		"  " + oid + "  ":         "/organisations/" + oid,
		"no such id 8c1e0f4a-xyz": "/organisations",
	} {
		resp, err := c.Get(env.URL + "/organisations?q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Request.URL.Path != want {
			t.Errorf("q=%q led to %d %s, want %s", q, resp.StatusCode, resp.Request.URL.Path, want)
		}
	}
	if l := a.must(200, "GET", "/organisations?q="+url.QueryEscape(oid), ""); l["totalSize"] != float64(0) {
		t.Errorf("the API list searches names: %v", l["totalSize"])
	}
}
