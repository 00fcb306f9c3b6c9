package web_test

import (
	"github.com/PuerkitoBio/goquery"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestNoConfirmationForWhatTheServerRefuses: a button whose action the
// server would refuse is disabled with the reason beside it, not a
// confirmation followed by a refusal (issue 40): retiring the only Active
// key of an enabled algorithm, deactivating the last Active Super User.
// Once the action would go through, the button asks as the others do.
func TestNoConfirmationForWhatTheServerRefuses(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	_, doc := page(t, c, env.URL+"/references/signing-keys")
	ps := doc.Find("[data-testid=key-row]").FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.HasPrefix(s.Find("td").First().Text(), "PS256") })
	if ps.Length() != 1 || ps.Find("[data-testid=retire-refused][disabled]").Length() != 1 ||
		!strings.Contains(ps.Find("[data-testid=refused-reason]").Text(), "rotate PS256 first") || ps.Find("form").Length() != 0 {
		t.Fatalf("the only PS256 key's Retire: %s", ps.Text())
	}
	a.must(201, "POST", "/references/signing-keys", `{"alg":"PS256"}`)
	_, doc = page(t, c, env.URL+"/references/signing-keys")
	ps = doc.Find("[data-testid=key-row]").FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.HasPrefix(s.Find("td").First().Text(), "PS256") })
	if n := ps.Find("[data-testid=retire-refused]").Length(); n != 0 {
		t.Fatalf("%d keys still refused with two PS256 keys", n)
	}
	if n := ps.Find("form button[data-confirm]").Length(); n != 2 {
		t.Fatalf("%d Retire buttons that ask", n)
	}

	_, doc = page(t, c, env.URL+"/references/super-users")
	su := doc.Find("[data-testid=super-user-row]")
	if su.Length() != 1 || su.Find("button[disabled]").Length() != 1 || su.Find("button[data-confirm]").Length() != 0 ||
		!strings.Contains(su.Find("[data-testid=refused-reason]").Text(), "only Active Super User") {
		t.Fatalf("the last Super User's Deactivate: %s", su.Text())
	}
	a.must(201, "POST", "/users/super", `{"Email":"ann@example.com","Status":"Active"}`)
	_, doc = page(t, c, env.URL+"/references/super-users")
	if n := doc.Find("[data-testid=super-user-row] button[data-confirm]").Length(); n != 2 {
		t.Fatalf("%d Deactivate buttons that ask with two Super Users", n)
	}
}

// TestKeyMaterialRevokedAsACertificateIs: revoking a key is the same
// step as revoking a certificate (issue 40): a link in the key's danger
// zone to a page of its own with the reason; a refused reason comes back
// beside the field on that page; a good one revokes.
func TestKeyMaterialRevokedAsACertificateIs(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	path := "/organisations/" + oid + "/key-material/" + a.must(201, "POST", "/organisations/"+oid+"/key-material",
		jsonBody(t, map[string]any{"PEM": webtest.ValidCert(t, "p256", "km"), "Use": "sig"}))["KeyMaterialID"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+path)
	if href := doc.Find("[data-testid=danger-zone] [data-testid=revoke]").AttrOr("href", ""); href != path+"/revoke" {
		t.Fatalf("the key's Revoke goes to %q", href)
	}
	if doc.Find("select[name=RevokeReason]").Length() != 0 {
		t.Fatal("the key's page still revokes inline")
	}
	_, doc = page(t, c, env.URL+path+"/revoke")
	f := doc.Find("[data-testid=revoke-zone] form[data-testid=revoke-form]")
	if f.AttrOr("action", "") != path || f.Find("select[name=RevokeReason] option").Length() < 2 {
		t.Fatalf("the revoke step: %s", doc.Find("main").Text())
	}
	form := browserForm(doc, path)
	form.Set("RevokeReason", "no-such-reason")
	status, doc := postForm(t, c, env.URL+path, form)
	if status != 422 || doc.Find("[data-testid=revoke-form] #e-RevokeReason, [data-testid=revoke-form] .tf-field-error").Length() == 0 {
		t.Fatalf("a bad reason: %d %s", status, doc.Find("main").Text())
	}
	form.Set("RevokeReason", "keycompromise")
	if status, doc := postForm(t, c, env.URL+path, form); status != 200 {
		t.Fatalf("revoke: %d %s", status, doc.Find("main").Text())
	}
	if got := a.must(200, "GET", path, "")["Status"]; got != "Revoked" {
		t.Fatalf("status %v", got)
	}
}

// TestTypesCanBeEdited: a contact, document or certification type's
// description is changed in a form of its own, reached from the list
// (issue 40); a refusal comes back beside the field, a save over another
// change shows both as every edit form does.
func TestTypesCanBeEdited(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, path := range []string{"/references/contact-types", "/references/document-types", "/references/certification-types"} {
		a.must(201, "POST", path, `{"Name":"Extra","Description":"old","Status":"Active"}`)
		_, doc := page(t, c, env.URL+path)
		if href := doc.Find("[data-testid=edit-Extra]").AttrOr("href", ""); href != path+"/Extra/edit" {
			t.Fatalf("%s: Edit goes to %q", path, href)
		}
		_, doc = page(t, c, env.URL+path+"/Extra/edit")
		form := browserForm(doc, path+"/Extra")
		if form.Get("Description") != "old" || form.Get("IfMatch") == "" {
			t.Fatalf("%s: the edit form holds %v", path, form)
		}
		form.Set("Description", "two\r\nlines")
		if status, doc := postForm(t, c, env.URL+path+"/Extra", form); status != 422 || doc.Find("[data-testid=edit-item-form] #e-Description").Length() != 1 {
			t.Fatalf("%s: a refused description: %d %s", path, status, doc.Find("main").Text())
		}
		a.must(200, "PUT", path+"/Extra", `{"Name":"Extra","Description":"theirs","Status":"Active"}`)
		form.Set("Description", "mine")
		status, doc := postForm(t, c, env.URL+path+"/Extra", form)
		if status != 412 || doc.Find("[data-testid=stale] tr[data-field=Description] [data-testid=stale-stored]").Text() != "theirs" {
			t.Fatalf("%s: a save over another change: %d %s", path, status, doc.Find("main").Text())
		}
		if status, doc := postForm(t, c, env.URL+path+"/Extra", browserForm(doc, path+"/Extra")); status != 200 {
			t.Fatalf("%s: save: %d %s", path, status, doc.Find("main").Text())
		}
		if got := a.must(200, "GET", path+"/Extra", "")["Description"]; got != "mine" {
			t.Fatalf("%s: description %v", path, got)
		}
	}
}

// TestDangerousActionsInADangerZone: the end state (Set Withdrawn) of an
// organisation and an application, a key's revocation and a webhook's
// delete are in the page's marked danger zone, outlined — not a filled
// button beside Edit that outweighs it (issue 40).
func TestDangerousActionsInADangerZone(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Wallet"}`)["SoftwareStatementId"].(string)
	hook := a.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, tc := range []struct{ page, button string }{
		{"/organisations/" + oid, "set-status-Withdrawn"},
		{"/organisations/" + oid + "/softwarestatements/" + aid, "set-status-Withdrawn"},
		{"/references/webhooks/" + hook, "delete"},
	} {
		_, doc := page(t, c, env.URL+tc.page)
		b := doc.Find("[data-testid=danger-zone] [data-testid=" + tc.button + "]")
		if b.Length() != 1 || !strings.Contains(b.AttrOr("class", ""), "outline") || b.AttrOr("data-confirm", "") == "" {
			t.Errorf("%s: %s in the danger zone: %d, class %q", tc.page, tc.button, b.Length(), b.AttrOr("class", ""))
		}
		if n := doc.Find("[data-testid=" + tc.button + "]").Length(); n != 1 {
			t.Errorf("%s: %d %s buttons", tc.page, n, tc.button)
		}
	}
}
