package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestForbiddenPageOfASignedInAdministrator: a Data Administrator who
// opens Reference Data is refused (403), and the page says what to do: ask
// a Super User, or go back to the console. It told her to "ask a Super
// User to add your e-mail" (hers is added: she is signed in with it) and
// offered only "Sign out and use another e-mail": a dead end.
func TestForbiddenPageOfASignedInAdministrator(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/users/data-administrators", `{"Email":"da@example.com"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "da@example.com").Body.Close()
	for _, p := range []string{"/references", "/references/webhooks"} {
		resp, err := c.Get(env.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: status %d, want 403", p, resp.StatusCode)
		}
		page := strings.Join(strings.Fields(doc.Find("[data-testid=error-page]").Text()), " ")
		if strings.Contains(page, "add your e-mail") {
			t.Errorf("%s: a signed-in administrator is told to have her e-mail added: %q", p, page)
		}
		if !strings.Contains(page, "Super User") {
			t.Errorf("%s: the page does not say who can give access: %q", p, page)
		}
		if doc.Find(`[data-testid=error-page] a[href="/"]`).Length() == 0 {
			t.Errorf("%s: no way back to the console: %q", p, page)
		}
	}
}
