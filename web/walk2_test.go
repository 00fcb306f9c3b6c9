package web_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/trustframe/trustframe/web/webtest"
	"github.com/trustframe/trustframe/webhooks"
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

// TestWebhookDeliveriesReadLikeTheRestOfTheConsole: a webhook's delivery
// log shows its times as every other table does ("2026-11-23 08:05 UTC")
// and counts in words that agree ("1 delivery"). It showed
// "next 2026-11-23T08:05:24Z", "2026-11-23T08:05:24.053498734Z" and
// "1 deliveries".
func TestWebhookDeliveriesReadLikeTheRestOfTheConsole(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	hook := su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	su.must(201, "POST", "/organisations", org("Acme Bank"))
	// One attempt, refused by the receiver: the delivery has a last
	// attempt and waits for the next.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	d := &webhooks.Deliverer{Store: env.DB, Open: func(string, []byte) ([]byte, error) { return make([]byte, 32), nil },
		Client: &http.Client{Transport: refusingTransport{}}, Poll: 50 * time.Millisecond, Backoff: func(int) time.Duration { return time.Hour }}
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	var doc *goquery.Document
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := c.Get(env.URL + "/references/webhooks/" + hook)
		if err != nil {
			t.Fatal(err)
		}
		doc = docOf(t, resp)
		if strings.TrimSpace(doc.Find("[data-testid=delivery-attempts]").Text()) == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no attempt logged: %q", doc.Find("[data-testid=deliveries]").Text())
		}
	}
	row := doc.Find("[data-testid=delivery-row]")
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d UTC$`)
	status := strings.Join(strings.Fields(row.Find("[data-testid=delivery-status] small").Text()), " ")
	if !stamp.MatchString(strings.TrimPrefix(status, "next ")) {
		t.Errorf("the next attempt reads %q, want next YYYY-MM-DD HH:MM UTC", status)
	}
	if last := strings.TrimSpace(row.Find("td").Eq(6).Text()); !stamp.MatchString(last) {
		t.Errorf("the last attempt reads %q, want YYYY-MM-DD HH:MM UTC", last)
	}
	pages := strings.Join(strings.Fields(doc.Find(`nav[aria-label="Deliveries pages"]`).Text()), " ")
	if !strings.Contains(pages, "1 delivery") || strings.Contains(pages, "1 deliveries") {
		t.Errorf("the count reads %q, want 1 delivery", pages)
	}
}

// refusingTransport answers every request 503 without sending it.
type refusingTransport struct{}

func (refusingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusServiceUnavailable, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
}

// TestRequiredFieldsAreNamedAsTheirLabels: a required field left empty is
// named as its label says ("Receiver URL", "E-mail domains"), not by its
// API member: the forms said "Url is required." under "Receiver URL
// (https)" and "EmailDomains is required" under "E-mail domains it may
// vouch for".
func TestRequiredFieldsAreNamedAsTheirLabels(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, tc := range []struct{ path, field, want, not string }{
		{"/references/webhooks", "Url", "receiver URL", "Url is"},
		{"/references/identity-providers", "EmailDomains", "E-mail domains", "EmailDomains"},
		{"/references/webhooks?Url=ftp://x", "Url", "receiver URL must be https", "Url must"},
		{"/references/identity-providers?EmailClaim=a%20b", "EmailClaim", "The e-mail claim must be", "EmailClaim"},
		{"/references/identity-providers?GroupsClaim=a%20b", "GroupsClaim", "The groups claim must be", "GroupsClaim"},
		{"/references/identity-providers?ClientSecret=s3cret", "ClientSecret", "needs a client ID", "ClientId"},
	} {
		path, query, _ := strings.Cut(tc.path, "?")
		form, _ := url.ParseQuery(query)
		resp, err := c.PostForm(env.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s: status %d, want 422", tc.path, resp.StatusCode)
		}
		msg := doc.Find("#e-" + tc.field).Text()
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.not) {
			t.Errorf("%s: %s's message is %q, want it to name the %s", tc.path, tc.field, msg, tc.want)
		}
	}
}

// TestImportTakesASemicolonSeparatedFile: a spreadsheet saved as CSV where
// the decimal separator is a comma (Excel in much of Europe and Brazil)
// separates its columns with semicolons. The import refused it with
// `unknown column "OrganisationName;RegistrationNumber;CountryOfRegistration"`;
// it now reads it, and a file that is neither is still refused.
func TestImportTakesASemicolonSeparatedFile(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	upload := func(content string) (*http.Response, *goquery.Document) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("file", "orgs.csv")
		_, _ = io.WriteString(fw, content)
		_ = mw.Close()
		req, _ := http.NewRequest("POST", env.URL+"/organisations/import", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, docOf(t, resp)
	}
	resp, doc := upload("\ufeffOrganisationName;RegistrationNumber;CountryOfRegistration;City\r\nSemi Bank;998;GB;\"Leeds; West Yorkshire\"\r\n")
	if resp.StatusCode != http.StatusOK || !strings.Contains(doc.Find("[data-testid=flash]").Text(), "1 organisation was imported") {
		t.Fatalf("semicolons: %d %q %q", resp.StatusCode, doc.Find("[data-testid=flash]").Text(), strings.Join(strings.Fields(doc.Find("main").Text()), " "))
	}
	if !strings.Contains(doc.Find("main").Text(), "Semi Bank") {
		t.Errorf("Semi Bank is not listed")
	}
	resp, doc = upload("OrganisationName|RegistrationNumber|CountryOfRegistration\nPipe Bank|997|GB\n")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(doc.Find("main").Text(), "unknown column") {
		t.Errorf("pipes: %d %q", resp.StatusCode, strings.Join(strings.Fields(doc.Find("main").Text()), " "))
	}
}

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

// TestRedeliverOnAnInactiveWebhookSaysWhenItIsSent: Redeliver on a webhook
// that is not Active queues the delivery, which waits for the webhook to be
// Active again; the notice said only "Delivery 1 queued again.", and
// nothing came.
func TestRedeliverOnAnInactiveWebhookSaysWhenItIsSent(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	hook := su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	su.must(201, "POST", "/organisations", org("Acme Bank"))
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	redeliver := func() string {
		t.Helper()
		resp, err := c.PostForm(env.URL+"/references/webhooks/"+hook+"/deliveries/1/redeliver", url.Values{})
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return doc.Find("[data-testid=flash]").Text()
	}
	if msg := redeliver(); !strings.Contains(msg, "queued again") || strings.Contains(msg, "Active again") {
		t.Errorf("Active webhook: %q", msg)
	}
	resp, err := c.PostForm(env.URL+"/references/webhooks/"+hook, url.Values{"Status": {"Inactive"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if msg := redeliver(); !strings.Contains(msg, "queued again") || !strings.Contains(msg, "sent when the webhook is Active again") {
		t.Errorf("Inactive webhook: %q", msg)
	}
}

// TestGroupMappingRefusalsSpeakInLines: the identity provider form's group
// mappings are lines, and their refusals name lines: a line without "="
// is told its role is missing (it was told "Role must be DataAdministrator
// or SuperUser", as if it had named a wrong one), and a group mapped twice
// names the first line (it named "GroupRoles[0]", the API's index).
func TestGroupMappingRefusalsSpeakInLines(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/identity-providers", url.Values{"Name": {"Ops"}, "Issuer": {"https://op.example"},
		"EmailDomains": {"example.com"}, "GroupRoles": {"ops = DataAdministrator\nops = DataAdministrator\nauditors"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", resp.StatusCode)
	}
	msg := doc.Find("[data-testid=error-GroupRoles]").Text()
	if strings.Contains(msg, "GroupRoles[") {
		t.Errorf("the message names the API's index: %q", msg)
	}
	if !strings.Contains(msg, "Line 2: Group ops is mapped already (line 1)") {
		t.Errorf("the repeated group: %q", msg)
	}
	if !strings.Contains(msg, "Line 3: Role is required") {
		t.Errorf("the line without a role: %q", msg)
	}
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

// TestWebhookListSwitchStaysOnTheList: Deactivate/Activate on the webhooks
// list (a form that sends the Status only) saved and then showed that
// webhook's page, leaving the list the user was working down; it now comes
// back to the list, with the message. The webhook's own form still comes
// back to the webhook.
func TestWebhookListSwitchStaysOnTheList(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	hook := su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/webhooks/"+hook, url.Values{"Status": {"Inactive"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.Request.URL.Path != "/references/webhooks" || !strings.Contains(doc.Find("[data-testid=flash]").Text(), "Inactive") {
		t.Fatalf("after Deactivate on the list: at %s, flash %q", resp.Request.URL.Path, doc.Find("[data-testid=flash]").Text())
	}
	resp, err = c.PostForm(env.URL+"/references/webhooks/"+hook, url.Values{"Url": {"https://8.8.8.8/hook"}, "SubjectTypes": {"Organisation"}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/references/webhooks/"+hook {
		t.Fatalf("after saving the webhook's form: at %s", resp.Request.URL.Path)
	}
}

// TestFederationTabCrumbsNameTheEntity: the Federation tab of an
// application or authorisation server is that entity's page; its
// breadcrumb went Organisations › Acme Bank › Federation, with no way to
// the application itself. It now passes through the entity, linked.
func TestFederationTabCrumbsNameTheEntity(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme Bank"))["OrganisationId"].(string)
	aid := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.example/cb"]}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/organisations/" + oid + "/softwarestatements/" + aid + "/federation")
	if err != nil {
		t.Fatal(err)
	}
	crumbs := docOf(t, resp).Find(`nav[aria-label=breadcrumb]`)
	text := strings.Join(strings.Fields(crumbs.Text()), " ")
	href, _ := crumbs.Find(`a:contains("Payments app")`).Attr("href")
	if !strings.Contains(text, "Acme Bank") || !strings.Contains(text, "Payments app") || !strings.HasSuffix(text, "Federation") || href != "/organisations/"+oid+"/softwarestatements/"+aid {
		t.Fatalf("crumbs %q, application link %q", text, href)
	}
}
