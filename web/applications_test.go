package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestApplicationFormSpeaksToUsers: the application form's labels are for
// its users; the Federation entity ID's label cited the project's design
// document ("docs/design.md §13"), which a user of the console cannot open.
func TestApplicationFormSpeaksToUsers(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/organisations/" + oid + "/softwarestatements/new")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	label := doc.Find(`label[for=f-FederationEntityId]`).Text()
	if !strings.Contains(label, "Federation entity ID") {
		t.Fatalf("label %q", label)
	}
	if txt := doc.Find("main").Text(); strings.Contains(txt, "design.md") || strings.Contains(txt, "§") {
		t.Errorf("the form cites the design document: %q", label)
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
