package web_test

import (
	"github.com/PuerkitoBio/goquery"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestCertificationBreadcrumbsLinkEveryParent: the certifications of an
// application or a server (and their form) have breadcrumbs whose every
// parent is a link — the application itself above all (issue 40: after
// adding a certification, the application was plain text).
func TestCertificationBreadcrumbsLinkEveryParent(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Wallet"}`)["SoftwareStatementId"].(string)
	good := discoveryServer(t, func(self string) string { return self })
	sid := a.must(201, "POST", "/organisations/"+oid+"/authorisationservers", `{"CustomerFriendlyName":"Main","Issuer":"`+good+`"}`)["AuthorisationServerId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	app := "/organisations/" + oid + "/softwarestatements/" + aid
	srv := "/organisations/" + oid + "/authorisationservers/" + sid
	for _, tc := range []struct{ page, name, href string }{
		{app + "/certifications", "Wallet", app},
		{app + "/certifications/new", "Wallet", app},
		{srv + "/certifications", "Main", srv + "/edit"},
	} {
		_, doc := page(t, c, env.URL+tc.page)
		crumbs := doc.Find(`nav[aria-label=breadcrumb] li`)
		if crumbs.Length() < 4 {
			t.Fatalf("%s: breadcrumbs %q", tc.page, crumbs.Text())
		}
		last := crumbs.Last()
		if last.Find("a").Length() != 0 {
			t.Errorf("%s: the current page is a link", tc.page)
		}
		crumbs.Slice(0, crumbs.Length()-1).Each(func(_ int, li *goquery.Selection) {
			if li.Find("a").Length() != 1 {
				t.Errorf("%s: the parent %q is not a link", tc.page, strings.TrimSpace(li.Text()))
			}
		})
		if got := crumbs.FilterFunction(func(_ int, li *goquery.Selection) bool { return strings.TrimSpace(li.Text()) == tc.name }).Find("a").AttrOr("href", ""); got != tc.href {
			t.Errorf("%s: %s links to %q, want %q", tc.page, tc.name, got, tc.href)
		}
	}
}

// TestDuplicateCertificateRefusedWhenRead: a certificate already uploaded
// is refused at the wizard's first step, when its PEM is read, with the
// message beside the PEM field (issue 40: only at the last step).
func TestDuplicateCertificateRefusedWhenRead(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	cert := webtest.ValidCert(t, "p256", "seal.acme.example")
	if r, m := postPEM(t, a, "/organisations/"+oid+"/certificates/qseal", cert); r.StatusCode != 201 {
		t.Fatalf("upload: %d %v", r.StatusCode, m)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/certificates/new/review", url.Values{"type": {"qseal"}, "PEM": {cert}})
	if status != http.StatusUnprocessableEntity || !strings.Contains(doc.Find("main").Text(), "already uploaded") {
		t.Fatalf("a duplicate when read: %d %s", status, strings.Join(strings.Fields(doc.Find("main").Text()), " "))
	}
	// A new one goes on to the review.
	if status, _ := postForm(t, c, env.URL+"/organisations/"+oid+"/certificates/new/review", url.Values{"type": {"qseal"}, "PEM": {webtest.ValidCert(t, "p256", "other.acme.example")}}); status != http.StatusSeeOther {
		t.Fatalf("a new certificate: %d", status)
	}
}
