package web_test

import (
	"net/http"
	"net/url"
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

// TestTryItShowsRefusalsBesideTheirFields: the policy simulator's refusals
// ("Name at least one role.", metadata that is not a JSON object) are shown
// beside the field they are about, which is marked invalid and described by
// them, as on every other form. They were one paragraph below the Try it
// button ("Roles: Name at least one role."), in the text colour, with
// nothing on the field.
func TestTryItShowsRefusalsBesideTheirFields(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/role-metadata-policies/try", url.Values{"EntityType": {"openid_relying_party"}, "Metadata": {"[1]"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", resp.StatusCode)
	}
	for field, want := range map[string]string{"try-roles": "Name at least one role.", "try-metadata": "Metadata must be a JSON object"} {
		el := doc.Find("#" + field)
		if v, _ := el.Attr("aria-invalid"); v != "true" {
			t.Errorf("#%s is not marked invalid", field)
		}
		by, _ := el.Attr("aria-describedby")
		msg := doc.Find("#" + by)
		if by == "" || !strings.Contains(msg.Text(), want) {
			t.Errorf("#%s is described by %q (%q), want a message %q", field, by, msg.Text(), want)
		}
		if !msg.HasClass("tf-field-error") {
			t.Errorf("#%s: its message is not shown as an error", field)
		}
	}
}
