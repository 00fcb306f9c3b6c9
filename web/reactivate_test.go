package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestReactivation: leaving the end state (docs/design.md §4) is for a
// Super User with a StatusReason: 403 for a Data Administrator, 422
// without a reason, 409 to anything but Active; the reason is in the audit
// record. For organisations, authorisation servers and applications alike.
func TestReactivation(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	dana := newAPIWithInvite(t, env, su, "dana@example.com")
	id := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	opath := "/organisations/" + id
	app := su.must(201, "POST", opath+"/softwarestatements", `{"ClientName":"Payments","Status":"Withdrawn"}`)
	apath := opath + "/softwarestatements/" + app["SoftwareStatementId"].(string)
	disc := discoveryServer(t, func(self string) string { return self })
	srv := su.must(201, "POST", opath+"/authorisationservers", `{"CustomerFriendlyName":"AS","Issuer":"`+disc+`","Status":"Withdrawn"}`)
	spath := opath + "/authorisationservers/" + srv["AuthorisationServerId"].(string)
	su.must(200, "PUT", opath, strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Withdrawn"}`)

	cases := []struct{ name, path, body string }{
		{"organisation", opath, strings.TrimSuffix(org("Acme"), "}")},
		{"application", apath, `{"ClientName":"Payments"`},
		{"authorisation server", spath, `{"CustomerFriendlyName":"AS","Issuer":"` + disc + `"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if r, m := dana.do("PUT", c.path, c.body+`,"Status":"Active","StatusReason":"withdrawn by mistake"}`); r.StatusCode != 403 {
				t.Fatalf("Data Administrator: %d %v", r.StatusCode, m)
			}
			r, m := su.do("PUT", c.path, c.body+`,"Status":"Active"}`)
			if r.StatusCode != 422 || fieldsOf(m)["StatusReason"] == "" {
				t.Fatalf("no reason: %d %v", r.StatusCode, m)
			}
			// The Status field's message names what an API client sends, not only the console's page.
			if !strings.Contains(fieldsOf(m)["Status"], "sent as StatusReason") {
				t.Fatalf("no reason, Status: %v", m)
			}
			if r, m := su.do("PUT", c.path, c.body+`,"Status":"Active","StatusReason":"   "}`); r.StatusCode != 422 {
				t.Fatalf("blank reason: %d %v", r.StatusCode, m)
			}
			if r, m := su.do("PUT", c.path, c.body+`,"Status":"Pending","StatusReason":"x"}`); r.StatusCode != 409 && r.StatusCode != 422 {
				t.Fatalf("to another status: %d %v", r.StatusCode, m)
			}
			if got := su.must(200, "GET", c.path, "")["Status"]; got != "Withdrawn" {
				t.Fatalf("a refusal changed it: %v", got)
			}
			got := su.must(200, "PUT", c.path, c.body+`,"Status":"Active","StatusReason":"withdrawn by mistake (ticket 42)"}`)
			if got["Status"] != "Active" || got["StatusReason"] != nil {
				t.Fatalf("reactivated: %v", got)
			}
		})
	}
	l := su.must(200, "GET", "/audit?OrganisationId="+id+"&Action=reactivate", "")
	recs, _ := l["content"].([]any)
	if len(recs) != 3 {
		t.Fatalf("reactivation records: %v", l)
	}
	for _, rec := range recs {
		m := rec.(map[string]any)
		if m["Actor"] != "admin@example.com" || !strings.Contains(m["Summary"].(string), "reason: withdrawn by mistake (ticket 42)") || !strings.Contains(m["Summary"].(string), "Status: Withdrawn -> Active") {
			t.Fatalf("audit record %v", m)
		}
	}
}

// TestReactivationPage: the console's reactivation page names what it
// affects; a Data Administrator is refused (403) and changes nothing; no
// reason is a 422 beside the field; a reason reactivates and says so.
func TestReactivationPage(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	newAPIWithInvite(t, env, su, "dana@example.com")
	id := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	su.must(200, "PUT", "/organisations/"+id, strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Withdrawn"}`)
	reURL := env.URL + "/organisations/" + id + "/reactivate"

	dc := webtest.Browser()
	webtest.SignIn(t, dc, env.URL, "dana@example.com").Body.Close()
	if r, _ := page(t, dc, reURL); r.StatusCode != 403 {
		t.Fatalf("Data Administrator GET: %d", r.StatusCode)
	}
	r, err := dc.PostForm(reURL, url.Values{"StatusReason": {"please"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 403 {
		t.Fatalf("Data Administrator POST: %d", r.StatusCode)
	}
	_, doc := page(t, dc, env.URL+"/organisations/"+id)
	if doc.Find("[data-testid=reactivate-link]").Length() != 0 || doc.Find("[data-testid=reactivate-note]").Length() != 1 {
		t.Fatal("a Data Administrator is offered reactivation")
	}

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc = page(t, c, env.URL+"/organisations/"+id)
	if href, _ := doc.Find("[data-testid=reactivate-link]").Attr("href"); href != "/organisations/"+id+"/reactivate" {
		t.Fatalf("reactivate link %q", href)
	}
	_, doc = page(t, c, reURL)
	if head := doc.Find("hgroup"); strings.Contains(head.Text(), "@StatusBadge") || head.Find("[data-testid=status]").Text() != "Withdrawn" {
		t.Fatalf("the page's heading shows the status as %q", head.Text())
	}
	if affects := doc.Find("[data-testid=reactivation-affects]").Text(); !strings.Contains(affects, "participants") {
		t.Fatalf("affects %q", affects)
	}
	r, _ = c.PostForm(reURL, url.Values{"StatusReason": {""}})
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("no reason: %d", r.StatusCode)
	}
	r.Body.Close()
	if got := su.must(200, "GET", "/organisations/"+id, "")["Status"]; got != "Withdrawn" {
		t.Fatalf("after refusals: %v", got)
	}
	r, _ = c.PostForm(reURL, url.Values{"StatusReason": {"withdrawn by mistake"}})
	r.Body.Close()
	if got := su.must(200, "GET", "/organisations/"+id, "")["Status"]; got != "Active" {
		t.Fatalf("after reactivation: %v", got)
	}
}

// TestStatusReasonHasAMaximum: StatusReason, kept in the audit record, has
// the 500 characters the OpenAPI description gives it (docs/decisions.md,
// "Field limits"): one more is a 422 naming it, on a reactivation and on
// an update that changes no status alike, and nothing is written.
func TestStatusReasonHasAMaximum(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	body := func(status, reason string) string {
		return `{"OrganisationName":"Why","RegistrationNumber":"REG-Why","CountryOfRegistration":"GB","Status":"` + status + `","StatusReason":"` + reason + `"}`
	}
	oid := a.must(201, "POST", "/organisations", body("Active", ""))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App","Status":"Withdrawn"}`)["SoftwareStatementId"].(string)
	long := strings.Repeat("é", 501)
	for _, c := range []struct{ path, body string }{
		{"/organisations/" + oid, body("Active", long)},
		{"/organisations/" + oid, body("Withdrawn", long)},
		{"/organisations/" + oid + "/softwarestatements/" + aid, `{"ClientName":"App","Status":"Active","StatusReason":"` + long + `"}`},
	} {
		n := auditTotal(a)
		r, m := a.do("PUT", c.path, c.body)
		if r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["StatusReason"], "500") {
			t.Errorf("PUT %s with a reason of 501 characters: %d %v, want 422 naming StatusReason", c.path, r.StatusCode, m)
		}
		if auditTotal(a) != n {
			t.Errorf("PUT %s with a reason of 501 characters wrote an audit record", c.path)
		}
	}
	if got := a.must(200, "GET", "/organisations/"+oid+"/softwarestatements/"+aid, ""); got["Status"] != "Withdrawn" {
		t.Fatalf("a refused reactivation reactivated: %v", got["Status"])
	}
	a.must(200, "PUT", "/organisations/"+oid+"/softwarestatements/"+aid, `{"ClientName":"App","Status":"Active","StatusReason":"`+strings.Repeat("é", 500)+`"}`)
}

// TestEndStateConfirmationSaysWhoCanUndoIt: the confirmation of Withdraw
// said "cannot be undone", though a Super User can reactivate.
func TestEndStateConfirmationSaysWhoCanUndoIt(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, su)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+oid+"/softwarestatements/"+aid)
	confirm, _ := doc.Find("[data-testid=set-status-Withdrawn]").Attr("data-confirm")
	if strings.Contains(confirm, "cannot be undone") || !strings.Contains(confirm, "only a Super User can set it back") {
		t.Fatalf("the end state's confirmation reads %q", confirm)
	}
	// The status words are explained beside the buttons that set them.
	for _, path := range []string{"/organisations/" + oid, "/organisations/" + oid + "/softwarestatements/" + aid} {
		_, doc := page(t, c, env.URL+path)
		help := doc.Find("[data-testid=status-help]").Text()
		for _, word := range []string{"Active", "Pending", "Suspended", "Withdrawn", "Inactive"} {
			if !strings.Contains(help, word) {
				t.Errorf("%s: the statuses' help does not explain %s: %q", path, word, help)
			}
		}
	}
}
