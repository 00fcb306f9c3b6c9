package web_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestWebhookSendTest: POST …/webhooks/{id}/test queues one test event
// to that webhook alone. The receiver gets it once, verified as Standard
// Webhooks (the receiver checks every signature), typed Webhook.test and
// naming the webhook and the sender; another Active webhook subscribed
// to Webhook (the subject of the test's audit record) gets nothing; the
// delivery log shows the receiver's answer; a failed test is retried
// like any delivery, under the same webhook-id.
func TestWebhookSendTest(t *testing.T) {
	env := startDelivering(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	// Each receiver knows its secret before its webhook exists (the create
	// brings it): the deliverer may send the creation before the answer
	// to the create is read.
	secret := func() string {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		return "whsec_" + base64.StdEncoding.EncodeToString(key)
	}
	other := newReceiver(t)
	other.secret = secret()
	createWebhook(t, env, tok, `{"Url":"`+other.srv.URL+`/hook","SubjectTypes":["Webhook"],"Secret":"`+other.secret+`"}`)
	rc := newReceiver(t)
	rc.answer = func(int) int { return http.StatusAccepted }
	rc.secret = secret()
	wh := createWebhook(t, env, tok, `{"Url":"`+rc.srv.URL+`/hook","SubjectTypes":["Webhook"],"Secret":"`+rc.secret+`"}`)
	// The two creations are Webhook changes: other gets both, the
	// target its own. Let them arrive first.
	waitFor(t, 10*time.Second, "the creations", func() bool { return len(other.received()) == 2 && len(rc.received()) == 1 })

	resp, b := do(t, "POST", env.URL+"/api/references/webhooks/"+wh.WebhookID+"/test", tok, "")
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("test: %d %s", resp.StatusCode, b)
	}
	var d store.WebhookDelivery
	if err := json.Unmarshal([]byte(b), &d); err != nil {
		t.Fatal(err)
	}
	if d.DeliveryID == 0 || d.WebhookID != wh.WebhookID || d.Status != "Pending" || d.Change.Action != "test" || d.Change.SubjectType != "Webhook" {
		t.Fatalf("queued %s", b)
	}
	waitFor(t, 10*time.Second, "the test event", func() bool { return len(rc.received()) == 2 })
	time.Sleep(500 * time.Millisecond) // room for a duplicate or a stray delivery to show
	got := rc.received()
	if len(got) != 2 {
		t.Fatalf("the receiver got %d messages, want 2 (its creation, the test): %+v", len(got), got)
	}
	m := got[1]
	if m.Body.Type != "Webhook.test" || m.Body.Data.SubjectID != wh.WebhookID || m.Body.Data.Actor != "admin@example.com" ||
		m.Body.Data.Action != "test" || !strings.HasSuffix(m.ID, "_"+strconv.FormatInt(d.DeliveryID, 10)) {
		t.Fatalf("test event %+v (delivery %d)", m, d.DeliveryID)
	}
	if n := len(other.received()); n != 2 {
		t.Fatalf("another webhook subscribed to Webhook got %d messages, want 2 (the creations only): %+v", n, other.received())
	}
	// The log: Delivered, with the receiver's status code.
	var log struct{ Content []store.WebhookDelivery }
	waitFor(t, 5*time.Second, "the attempt in the log", func() bool {
		_, b := do(t, "GET", env.URL+"/api/references/webhooks/"+wh.WebhookID+"/deliveries", tok, "")
		log.Content = nil
		_ = json.Unmarshal([]byte(b), &log)
		return len(log.Content) > 0 && log.Content[0].DeliveryID == d.DeliveryID && log.Content[0].Status == "Delivered"
	})
	if e := log.Content[0]; e.LastStatusCode != http.StatusAccepted || e.Attempts != 1 || e.LastAttemptOn == "" {
		t.Fatalf("log entry %+v", e)
	}
	// Audited: who sent a test to which webhook.
	recs, _, err := env.DB.ListAudit(context.Background(), store.AuditFilter{SubjectType: "Webhook", Action: "test", Size: 10})
	if err != nil || len(recs) != 1 || recs[0].SubjectID != wh.WebhookID || recs[0].Actor != "admin@example.com" {
		t.Fatalf("audit %+v %v", recs, err)
	}

	// Retried like any delivery: a 503 brings the same message again.
	rc.mu.Lock()
	rc.answer = func(n int) int {
		if n == 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}
	rc.mu.Unlock()
	if resp, b := do(t, "POST", env.URL+"/api/references/webhooks/"+wh.WebhookID+"/test", tok, ""); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("second test: %d %s", resp.StatusCode, b)
	}
	waitFor(t, 10*time.Second, "the retry", func() bool { return len(rc.received()) == 4 })
	got = rc.received()
	if got[2].ID != got[3].ID || got[2].ID == got[1].ID || got[3].Body.Type != "Webhook.test" {
		t.Fatalf("retry: %s then %s (first test %s)", got[2].ID, got[3].ID, got[1].ID)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(other.received()); n != 2 {
		t.Fatalf("another webhook got %d messages after the second test, want 2", n)
	}
}

// TestWebhookSendTestRefusals: the access matrix (Super User 202, Data
// Administrator 403, no token 401), an unknown webhook 404, and an
// Inactive one 409 webhook_not_active naming its status; each refusal
// is a problem and queues nothing.
func TestWebhookSendTestRefusals(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.AllowPrivateWebhookURLs = true })
	su := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	if resp, b := do(t, "POST", env.URL+"/api/users/data-administrators", su, `{"Email":"da@example.com"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	da := webtest.Token(t, env.URL, "da@example.com", nil).AccessToken
	wh := createWebhook(t, env, su, `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)
	off := createWebhook(t, env, su, `{"Url":"https://8.8.8.8/off","SubjectTypes":["Organisation"],"Status":"Inactive"}`)
	count := func(id string) int {
		_, n, err := env.DB.ListWebhookDeliveries(context.Background(), id, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	path := func(id string) string { return env.URL + "/api/references/webhooks/" + url.PathEscape(id) + "/test" }
	for _, c := range []struct {
		name, tok, id string
		status        int
		code          string
	}{
		{"no token", "", wh.WebhookID, 401, ""},
		{"data administrator", da, wh.WebhookID, 403, "forbidden"},
		{"unknown webhook", su, "no-such-webhook", 404, "not_found"},
		{"Inactive webhook", su, off.WebhookID, 409, "webhook_not_active"},
	} {
		resp, b := do(t, "POST", path(c.id), c.tok, "")
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
			t.Errorf("%s: %d %s %s", c.name, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		if c.code != "" && !strings.Contains(b, `"`+c.code+`"`) {
			t.Errorf("%s: no code %s in %s", c.name, c.code, b)
		}
		if c.code == "webhook_not_active" && (!strings.Contains(b, "Inactive") || !strings.Contains(b, "Set it Active")) {
			t.Errorf("%s: the problem does not say why and what to do: %s", c.name, b)
		}
	}
	if n := count(wh.WebhookID) + count(off.WebhookID); n != 0 {
		t.Fatalf("refused tests queued %d deliveries", n)
	}
	if recs, _, _ := env.DB.ListAudit(context.Background(), store.AuditFilter{Action: "test", Size: 10}); len(recs) != 0 {
		t.Fatalf("refused tests were audited: %+v", recs)
	}
	resp, b := do(t, "POST", path(wh.WebhookID), su, "")
	if resp.StatusCode != http.StatusAccepted || count(wh.WebhookID) != 1 {
		t.Fatalf("Super User: %d %s", resp.StatusCode, b)
	}
	// Sent again with the same Idempotency-Key: the same delivery, one test.
	var first string
	for i := range 2 {
		req, _ := http.NewRequest("POST", path(wh.WebhookID), nil)
		req.Header.Set("Authorization", "Bearer "+su)
		req.Header.Set("Idempotency-Key", "test-once-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var d store.WebhookDelivery
		_ = json.NewDecoder(resp.Body).Decode(&d)
		resp.Body.Close()
		id := strconv.FormatInt(d.DeliveryID, 10)
		if resp.StatusCode != http.StatusAccepted || (i == 1 && (id != first || resp.Header.Get("Idempotent-Replayed") != "true")) {
			t.Fatalf("keyed test %d: %d delivery %s (first %s) replayed %q", i, resp.StatusCode, id, first, resp.Header.Get("Idempotent-Replayed"))
		}
		first = id
	}
	if n := count(wh.WebhookID); n != 2 {
		t.Fatalf("%d deliveries after a keyed test sent twice, want 2", n)
	}
}

// TestWebhookSendTestConsole: the webhook's page has a Send test event
// button while the webhook is Active; pressing it queues the test and
// comes back to the page with a flash and the delivery in the log. An
// Inactive webhook's page has no button and says why; a form posted
// anyway is refused with a flash, nothing queued.
func TestWebhookSendTestConsole(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.AllowPrivateWebhookURLs = true })
	su := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	wh := createWebhook(t, env, su, `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)
	off := createWebhook(t, env, su, `{"Url":"https://8.8.8.8/off","SubjectTypes":["Organisation"],"Status":"Inactive"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	page := func(resp *http.Response, err error) (*goquery.Document, int) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return docOf(t, resp), resp.StatusCode
	}
	doc, _ := page(c.Get(env.URL + "/references/webhooks/" + wh.WebhookID))
	form := doc.Find(`form:has([data-testid=send-test])`)
	if form.AttrOr("action", "") != "/references/webhooks/"+wh.WebhookID+"/test" || form.AttrOr("method", "") != "post" {
		t.Fatalf("no Send test event form: %q", form.AttrOr("action", ""))
	}
	doc, st := page(c.PostForm(env.URL+"/references/webhooks/"+wh.WebhookID+"/test", url.Values{}))
	if st != 200 || !strings.Contains(doc.Find(`[data-testid=flash]`).Text(), "Test event queued") {
		t.Fatalf("after Send test event: %d flash %q", st, doc.Find(`[data-testid=flash]`).Text())
	}
	if row := doc.Find(`[data-testid=delivery-row]`); row.Length() != 1 || !strings.Contains(row.Text(), "Webhook.test") || !strings.Contains(row.Find(`[data-testid=delivery-status]`).Text(), "Pending") {
		t.Fatalf("delivery log: %q", row.Text())
	}
	// Not tried yet: the log reloads itself (htmx) until it has been,
	// watching that delivery, and passes none of its htmx attributes on to
	// the links and forms inside it (Older, Redeliver).
	poll := doc.Find(`#delivery-log[hx-get][hx-trigger]`)
	watch := poll.AttrOr("hx-get", "")
	if poll.Length() != 1 || poll.AttrOr("hx-select", "") != "#delivery-log" || poll.AttrOr("hx-disinherit", "") != "*" ||
		!strings.HasPrefix(watch, "/references/webhooks/"+wh.WebhookID+"?watch=") {
		t.Fatalf("the delivery log of a test not yet tried does not reload itself as it should: hx-get %q", watch)
	}
	// The page opened another way (a link, a reload without ?watch) does
	// not poll, though the delivery is still untried; nor does the watch
	// once the delivery is a minute old.
	if doc, _ := page(c.Get(env.URL + "/references/webhooks/" + wh.WebhookID)); doc.Find(`#delivery-log[hx-get]`).Length() != 0 {
		t.Fatal("the page polls without a test to watch")
	}
	if doc, _ := page(c.Get(env.URL + watch)); doc.Find(`#delivery-log[hx-get]`).Length() != 1 {
		t.Fatal("the watch stops before the delivery was tried")
	}
	if _, err := env.DB.SQL().Exec(`UPDATE webhook_deliveries SET created_at = ? WHERE webhook_id = ?`,
		time.Now().Add(-2*time.Minute).UTC().Format(time.RFC3339Nano), wh.WebhookID); err != nil {
		t.Fatal(err)
	}
	if doc, _ := page(c.Get(env.URL + watch)); doc.Find(`#delivery-log[hx-get]`).Length() != 0 {
		t.Fatal("the watch goes on past a minute")
	}

	doc, _ = page(c.Get(env.URL + "/references/webhooks/" + off.WebhookID))
	if doc.Find(`[data-testid=send-test]`).Length() != 0 || !strings.Contains(doc.Find(`[data-testid=send-test-inactive]`).Text(), "Active") {
		t.Fatal("an Inactive webhook's page offers a test, or does not say why not")
	}
	if doc.Find(`#delivery-log`).Length() != 1 || doc.Find(`#delivery-log[hx-get]`).Length() != 0 {
		t.Fatal("a log with nothing waiting reloads itself")
	}
	doc, st = page(c.PostForm(env.URL+"/references/webhooks/"+off.WebhookID+"/test", url.Values{}))
	if flash := doc.Find(`[data-testid=flash]`).Text(); st != 200 || !strings.Contains(flash, "No test event sent") || !strings.Contains(flash, "Inactive") {
		t.Fatalf("refused: %d flash %q", st, flash)
	}
	if _, n, _ := env.DB.ListWebhookDeliveries(context.Background(), off.WebhookID, 0, 10); n != 0 {
		t.Fatalf("the Inactive webhook got %d deliveries", n)
	}
}

// TestWebhookSendTestSaysWhatItWaitsFor: a webhook's deliveries go out in
// order, so a test event queued behind others says so, and when one of
// them failed and waits for its retry, says until when.
func TestWebhookSendTestSaysWhatItWaitsFor(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.AllowPrivateWebhookURLs = true })
	su := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	wh := createWebhook(t, env, su, `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	flash := func() string {
		t.Helper()
		resp, err := c.PostForm(env.URL+"/references/webhooks/"+wh.WebhookID+"/test", url.Values{})
		if err != nil {
			t.Fatal(err)
		}
		return docOf(t, resp).Find(`[data-testid=flash]`).Text()
	}
	if f := flash(); strings.Contains(f, "behind") {
		t.Fatalf("nothing queued before it, yet: %q", f)
	}
	// Two more: the organisation's creation, and the first test (not sent:
	// this server has no deliverer running).
	if resp, b := do(t, "POST", env.URL+"/api/organisations", su, `{"OrganisationName":"Acme","RegistrationNumber":"1","CountryOfRegistration":"GB"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if f := flash(); !strings.Contains(f, "behind 2 earlier deliveries") || strings.Contains(f, "retried") {
		t.Fatalf("behind two untried deliveries: %q", f)
	}
	// One of them failed: its retry holds the rest.
	retry := time.Date(2031, 5, 4, 3, 2, 0, 0, time.UTC)
	if _, err := env.DB.SQL().Exec(`UPDATE webhook_deliveries SET attempts = 1, next_attempt_at = ? WHERE delivery_id = (SELECT MIN(delivery_id) FROM webhook_deliveries WHERE webhook_id = ?)`,
		retry.UnixMilli(), wh.WebhookID); err != nil {
		t.Fatal(err)
	}
	if f := flash(); !strings.Contains(f, "behind 3 earlier deliveries") || !strings.Contains(f, "retried at 2031-05-04 03:02 UTC") || !strings.Contains(f, "Redeliver that one") {
		t.Fatalf("behind a failed delivery: %q", f)
	}
}
