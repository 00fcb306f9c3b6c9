package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// The header's Find (find=1) finds applications, authorisation servers and
// contacts by name — the start of any word, case and accents ignored —
// and certificates by the start of their kid: one match goes straight
// there, several (not all organisations) show a results page by kind.
func TestHeaderFindByName(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	acme := a.must(201, "POST", "/organisations", org("Acme Bank"))["OrganisationId"].(string)
	zeta := a.must(201, "POST", "/organisations", org("Zeta"))["OrganisationId"].(string)
	wallet := a.must(201, "POST", "/organisations/"+acme+"/softwarestatements", `{"ClientName":"Acme Wallet"}`)["SoftwareStatementId"].(string)
	disc := discoveryServer(t, func(self string) string { return self })
	a.must(201, "POST", "/organisations/"+zeta+"/authorisationservers", `{"CustomerFriendlyName":"Zeta Login","Issuer":"`+disc+`"}`)
	muller := a.must(201, "POST", "/organisations/"+zeta+"/contacts", `{"ContactType":"Technical","FirstName":"José","LastName":"Müller","EmailAddress":"jose.mueller@zeta.example"}`)["ContactId"].(string)
	if r, m := postPEM(t, a, "/organisations/"+zeta+"/certificates/qseal", webtest.ValidCert(t, "p256", "seal.zeta.example")); r.StatusCode != 201 {
		t.Fatalf("upload: %d %v", r.StatusCode, m)
	}
	kid := a.must(200, "GET", "/organisations/"+zeta+"/certificates", "")["list"].([]any)[0].(map[string]any)["kid"].(string)

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	find := func(q string) (string, string) {
		t.Helper()
		resp, doc := page(t, c, env.URL+"/organisations?find=1&q="+url.QueryEscape(q))
		if resp.StatusCode != 200 {
			t.Fatalf("%q: %d", q, resp.StatusCode)
		}
		return resp.Request.URL.Path, doc.Find("main").Text()
	}
	for q, want := range map[string]string{
		"Acme Wallet": "/organisations/" + acme + "/softwarestatements/" + wallet, // two words, one application
		"wal":         "/organisations/" + acme + "/softwarestatements/" + wallet, // the start of a word, any case
		"zeta log":    "/organisations/" + zeta + "/authorisationservers",
		"mull":        "/organisations/" + zeta + "/contacts/" + muller + "/edit", // Müller, accents folded: the contact itself
		"jose.mue":    "/organisations/" + zeta + "/contacts/" + muller + "/edit", // the e-mail address's words
		kid[:8]:       "/organisations/" + zeta + "/certificates",
	} {
		if got, _ := find(q); got != want {
			t.Errorf("%q went to %s, want %s", q, got, want)
		}
	}
	// "acme": the organisation and its application — a results page.
	resp, doc := page(t, c, env.URL+"/organisations?find=1&q=acme")
	if resp.Request.URL.Path != "/organisations" || doc.Find("[data-testid=search-group]").Length() != 2 {
		t.Fatalf("acme: %s, %d groups", resp.Request.URL, doc.Find("[data-testid=search-group]").Length())
	}
	if got := doc.Find("[data-testid=search-result] a[href='/organisations/" + acme + "/softwarestatements/" + wallet + "']").Text(); got != "Acme Wallet" {
		t.Errorf("results page: %q", doc.Find("main").Text())
	}
	// "zeta": the organisation, its server and its contact (by e-mail) — a
	// contact on the results page opens that contact, not the tab.
	if _, doc = page(t, c, env.URL+"/organisations?find=1&q=zeta"); doc.Find("[data-testid=search-result] a[href='/organisations/"+zeta+"/contacts/"+muller+"/edit']").Length() != 1 {
		t.Errorf("zeta: no link to the contact: %q", doc.Find("main").Text())
	}
	// Without find=1 the organisation list's search filters organisations.
	if _, doc = page(t, c, env.URL+"/organisations?q=wallet"); doc.Find("[data-testid=search-group]").Length() != 0 {
		t.Error("the list's own search went across the directory")
	}
	// Only organisations match: the organisation list is the results page.
	a.must(201, "POST", "/organisations", org("Omega One"))
	a.must(201, "POST", "/organisations", org("Omega Two"))
	if _, doc = page(t, c, env.URL+"/organisations?find=1&q=omega"); !strings.Contains(doc.Find("[data-testid=org-count]").Text(), "2 organisations") {
		t.Errorf("organisations only: %q", doc.Find("main").Text())
	}
}

// An Organisation Administrator's Find shows again (issue 40) and finds
// only their own organisations' things.
func TestHeaderFindWithinOrgAdmin(t *testing.T) {
	w := newOrgAdminWorld(t)
	su := newAPI(t, w.env, "admin@example.com")
	su.must(201, "POST", "/organisations/"+w.other+"/softwarestatements", `{"ClientName":"Payments Other"}`)
	resp, doc := page(t, w.orgAdmin, w.env.URL+"/organisations?find=1&q=payments")
	// Theirs alone: Acme's "Payments" application, straight there.
	if resp.Request.URL.Path != "/organisations/"+w.acme+"/softwarestatements/"+w.app {
		t.Fatalf("went to %s: %s", resp.Request.URL, doc.Find("main").Text())
	}
	resp, doc = page(t, w.dataAdmin, w.env.URL+"/organisations?find=1&q=payments")
	if resp.Request.URL.Path != "/organisations" || doc.Find("[data-testid=search-result]").Length() != 2 {
		t.Fatalf("a Data Administrator finds both: %s %d", resp.Request.URL, doc.Find("[data-testid=search-result]").Length())
	}
	resp, doc = page(t, w.orgAdmin, w.env.URL+"/organisations?find=1&q=other")
	if strings.Contains(doc.Find("main").Text(), "Payments Other") || strings.Contains(resp.Request.URL.Path, w.other) {
		t.Fatalf("another organisation's application revealed: %s", resp.Request.URL)
	}
}
