package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEveryAddIsAPage: every list of an organisation's tabs and of
// Reference Data adds through a link to a page of its own (issue 40: a
// modal, inline forms and pages did the one job) with a heading, a form
// and a way back to the list; no dialog, no form to add under the list;
// the link and the heading say "Add …", never "New …" (both were used).
func TestEveryAddIsAPage(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	o := "/organisations/" + oid
	// Lists with more than one Add: a domain, an authority, a role to each
	// of the two domains.
	adds := map[string]int{"/references/authorisation-domains": 4}
	for _, list := range []string{
		o + "/contacts", o + "/authorisationservers", o + "/softwarestatements", o + "/certificates", o + "/key-material",
		o + "/documents", o + "/authority-claims", o + "/administrators", o + "/softwarestatements/" + app + "/certifications",
		"/references/super-users", "/references/data-administrators", "/references/contact-types", "/references/document-types",
		"/references/certification-types", "/references/flags", "/references/trust-mark-types", "/references/webhooks",
		"/references/authorisation-domains", "/references/role-metadata-policies", "/references/identity-providers", "/organisations",
	} {
		_, doc := page(t, c, env.URL+list)
		add := doc.Find(`main a[role=button][href$="/new"]`)
		if want := adds[list]; add.Length() != max(want, 1) {
			t.Errorf("%s: %d Add links to a page of its own", list, add.Length())
			continue
		}
		if n := doc.Find(`main form[method=post]`).FilterFunction(func(_ int, f *goquery.Selection) bool {
			return f.Find("input:not([type=hidden]), textarea").Length() > 0
		}).Length(); n != 0 {
			t.Errorf("%s: %d forms with fields under the list", list, n)
		}
		add.Each(func(_ int, a *goquery.Selection) {
			href, _ := a.Attr("href")
			if label := strings.TrimSpace(a.Text()); strings.HasPrefix(label, "New ") {
				t.Errorf("%s: the link to %s reads %q, not Add …", list, href, label)
			}
			resp, form := page(t, c, env.URL+href)
			h1 := strings.TrimSpace(form.Find("main h1").Text())
			if resp.StatusCode != 200 || h1 == "" || strings.HasPrefix(h1, "New ") || form.Find("main form").Length() == 0 || form.Find("dialog[open]").Length() != 0 {
				t.Errorf("%s: %d, heading %q, %d forms, %d open dialogs", href, resp.StatusCode, h1, form.Find("main form").Length(), form.Find("dialog[open]").Length())
			}
			if form.Find(`main a[href="`+list+`"], nav[aria-label=breadcrumb] a[href="`+list+`"]`).Length() == 0 {
				t.Errorf("%s: no way back to %s", href, list)
			}
			// Under an organisation the breadcrumb ends with what the page
			// does, after the list as a link (a server's and an
			// application's ended "Authorisation server", the list
			// missing), and the window's title says it too.
			if strings.HasPrefix(list, o+"/") {
				crumbs := form.Find("nav[aria-label=breadcrumb] li")
				last := strings.TrimSpace(crumbs.Last().Text())
				parent, _ := crumbs.Eq(crumbs.Length() - 2).Find("a").Attr("href")
				title := strings.TrimSpace(form.Find("title").Text())
				if !strings.HasPrefix(last, "Add") && !strings.HasPrefix(last, "Invite") && !strings.HasPrefix(last, "Upload") ||
					parent != list || !strings.HasPrefix(title, last) {
					t.Errorf("%s: breadcrumb ends %q after %q, title %q", href, last, parent, title)
				}
			}
		})
	}
}

// TestRowDangerousActionsAsk: a dangerous action in a table row (withdraw,
// deactivate, disable, delete, retire, revoke) asks first in the page's
// confirmation (data-confirm, views.ConfirmDialog), or is a link to a page
// of its own, or is disabled with the reason (issue 40).
func TestRowDangerousActionsAsk(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	o := "/organisations/" + oid
	su.must(201, "POST", o+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"L-1","DocumentStartDate":"2026-01-01"}`)
	su.must(201, "POST", "/references/flags", `{"Name":"Pilot","Type":"Organisation"}`)
	su.must(201, "POST", "/users/data-administrators", `{"Email":"dana@example.com"}`)
	su.must(201, "POST", o+"/administrators", `{"Email":"olga@example.com"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	dangerous := []string{"Withdraw", "Deactivate", "Disable", "Delete", "Retire", "Revoke", "Set Inactive"}
	seen := 0
	for _, list := range []string{o + "/documents", o + "/administrators", o + "/authority-claims", "/references/flags", "/references/super-users",
		"/references/data-administrators", "/references/contact-types", "/references/authorisation-domains", "/references/signing-keys"} {
		_, doc := page(t, c, env.URL+list)
		doc.Find("main tr button[type=submit]").Each(func(_ int, b *goquery.Selection) {
			label := strings.TrimSpace(b.Text())
			for _, d := range dangerous {
				if strings.HasPrefix(label, d) {
					seen++
					if _, ok := b.Attr("data-confirm"); !ok {
						t.Errorf("%s: the row's %q does not ask in the page first", list, label)
					}
				}
			}
		})
	}
	if seen < 6 {
		t.Fatalf("only %d dangerous row buttons seen", seen)
	}
}
