package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestAdministratorCreationRefusesLookAlikeEmails: a Super User or Data
// Administrator is made only with an ordinary address of plain ASCII, on
// the API and in the console's form alike: fullwidth letters, the Kelvin
// sign for k or a Cyrillic а would make an administrator that reads as
// another one, and two @ are no address at all. Nothing is made.
func TestAdministratorCreationRefusesLookAlikeEmails(t *testing.T) {
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	for _, email := range []string{"ａdmin@example.com", "\u212Aate@example.com", "\u0430dmin@example.org", "admin@example.com@partner.example"} {
		for path, body := range map[string]string{"/users/super": `{"Email":"` + email + `","Status":"Active"}`, "/users/data-administrators": `{"Email":"` + email + `"}`} {
			r, m := admin.do("POST", path, body)
			if r.StatusCode != 422 || fieldsOf(m)["Email"] == "" {
				t.Fatalf("POST %s %q: %d %v", path, email, r.StatusCode, m)
			}
		}
	}
	if m := admin.must(200, "GET", "/users/super", ""); len(m["list"].([]any)) != 1 {
		t.Fatalf("a Super User was made: %v", m)
	}
	if m := admin.must(200, "GET", "/users/data-administrators", ""); len(m["list"].([]any)) != 0 {
		t.Fatalf("a Data Administrator was made: %v", m)
	}
	// The console's form says why beside the field.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/super-users", url.Values{"Email": {"ａdmin@example.com"}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if msg := doc.Find(`[data-testid=error-Email]`).Text(); resp.StatusCode != 422 || !strings.Contains(msg, "plain ASCII") {
		t.Fatalf("form: %d %q", resp.StatusCode, msg)
	}
}
