package web_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestAuditPeriodRefusalKeepsTheFilters: a period the audit page cannot
// use (To before From) is refused (400) on the audit page itself, the
// message beside the field and the filters kept to correct. It was an error
// page ("Bad Request … Back to the start page"): the filters were gone.
// The API still answers a problem.
func TestAuditPeriodRefusalKeepsTheFilters(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/audit?From=2026-12-01&To=2026-01-01&Action=login")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
	form := doc.Find("[data-testid=audit-filter]")
	if form.Length() == 0 {
		t.Fatalf("no filter form: %q", strings.Join(strings.Fields(doc.Find("main").Text()), " "))
	}
	if v, _ := form.Find("input[name=From]").Attr("value"); v != "2026-12-01" {
		t.Errorf("From is %q, want the period sent", v)
	}
	to := form.Find("input[name=To]")
	if v, _ := to.Attr("aria-invalid"); v != "true" {
		t.Errorf("To is not marked invalid")
	}
	by, _ := to.Attr("aria-describedby")
	if msg := doc.Find("#" + by).Text(); by == "" || !strings.Contains(msg, "To must not be before From") {
		t.Errorf("To is described by %q: %q", by, msg)
	}
	if doc.Find("[data-testid=audit] tbody tr").Length() != 0 {
		t.Errorf("records are listed for a period refused")
	}
	su := newAPI(t, env, "admin@example.com")
	su.must(400, "GET", "/audit?From=2026-12-01&To=2026-01-01", "")
}

// TestAuditSaysWhatWasDoneToAWebhook: the audit log (and the home page's
// latest activity) says in words what was done: "made a new secret for
// webhook …", "queued a delivery again to webhook …". It read "rotate
// secret webhook …" and "redeliver webhook …", the action's code.
func TestAuditSaysWhatWasDoneToAWebhook(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	hook := su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	su.must(201, "POST", "/organisations", org("Acme Bank"))
	su.must(200, "POST", "/references/webhooks/"+hook+"/rotate-secret", "")
	su.must(202, "POST", "/references/webhooks/"+hook+"/deliveries/1/redeliver", "")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, p := range []string{"/audit", "/"} {
		resp, err := c.Get(env.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(docOf(t, resp).Find("main").Text()), " ")
		// The webhook is named by its receiver URL, as people know it, not by an id.
		for _, want := range []string{"made a new secret for webhook https://8.8.8.8/hook", "queued a delivery again to webhook https://8.8.8.8/hook"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not say %q", p, want)
			}
		}
		for _, code := range []string{"rotate secret webhook", "redeliver webhook"} {
			if strings.Contains(text, code) {
				t.Errorf("%s says %q", p, code)
			}
		}
	}
}

// TestAuditSubjectTypeIsPicked: the audit log's Subject type filter is a
// list of the subject types the log holds, as Action is: typed by hand, a
// user had to guess AuthorityClaim or RoleMetadataPolicy, and "organisation"
// (lower case) found nothing.
func TestAuditSubjectTypeIsPicked(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	grant(t, su, oid, auth, "Payments", "PISP")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/audit?Subject=AuthorityClaim")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	sel := doc.Find(`[data-testid=audit-filter] select[name=Subject]`)
	if sel.Length() != 1 {
		t.Fatalf("no Subject type list in the audit filter")
	}
	var opts []string
	sel.Find("option").Each(func(_ int, o *goquery.Selection) {
		v, _ := o.Attr("value")
		opts = append(opts, v)
	})
	for _, want := range []string{"", "AuthorityClaim", "Organisation", "Role", "AuthorisationDomain"} {
		if !slices.Contains(opts, want) {
			t.Errorf("Subject type options %v lack %q", opts, want)
		}
	}
	if v, _ := sel.Find("option[selected]").Attr("value"); v != "AuthorityClaim" {
		t.Errorf("selected %q, want AuthorityClaim", v)
	}
	if n := doc.Find("[data-testid=audit-count]").Text(); !strings.HasPrefix(strings.TrimSpace(n), "1 event") {
		t.Errorf("count %q, want 1 event", n)
	}
	if id, _ := sel.Attr("id"); id == "" || doc.Find(`label[for="`+id+`"]`).Length() != 1 && sel.Closest("label").Length() != 1 {
		t.Error("the Subject type list has no label")
	}
}
