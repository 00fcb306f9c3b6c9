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
