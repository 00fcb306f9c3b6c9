package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
	"github.com/trustframe/trustframe/webhooks"
)

type received struct {
	ID   string
	Body struct {
		Type      string       `json:"type"`
		Timestamp time.Time    `json:"timestamp"`
		Data      store.Change `json:"data"`
	}
}

type webhookAnswer struct {
	store.Webhook
	Secret string `json:"Secret"`
}

// TestWebhookDeliveriesSignedOnceRetriedAndStoppedWhenInactive is the
// receiver's whole story: every change of its subject type arrives once,
// signed; an answer 500 brings the same message again until a 2xx; the
// log shows it and Redeliver sends it again; nothing comes once the
// webhook is Inactive.
func TestWebhookDeliveriesSignedOnceRetriedAndStoppedWhenInactive(t *testing.T) {
	env := startDelivering(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	rc := newReceiver(t)
	wh := createWebhook(t, env, tok, `{"Url":"`+rc.srv.URL+`/hook","SubjectTypes":["SuperUser"],"Description":"ops"}`)
	if !strings.HasPrefix(wh.Secret, "whsec_") || len(wh.Secret) < 40 || wh.Status != "Active" {
		t.Fatalf("created %+v", wh)
	}
	rc.mu.Lock()
	rc.secret = wh.Secret
	rc.mu.Unlock()
	// The secret is shown once: never in a read.
	_, b := do(t, "GET", env.URL+"/api/references/webhooks/"+wh.WebhookID, tok, "")
	if strings.Contains(b, wh.Secret) || strings.Contains(b, "Secret") {
		t.Fatalf("GET shows the secret: %s", b)
	}

	for _, e := range []string{"a", "b", "c"} {
		if resp, b := do(t, "POST", env.URL+"/api/users/super", tok, `{"Email":"`+e+`@example.com","Status":"Active"}`); resp.StatusCode != 201 {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
	}
	// A change of another subject type is not sent to it.
	if resp, b := do(t, "POST", env.URL+"/api/references/contact-types", tok, `{"Name":"Ops","Description":"x","Status":"Active"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	waitFor(t, 10*time.Second, "three deliveries", func() bool { return len(rc.received()) >= 3 })
	time.Sleep(500 * time.Millisecond) // room for a duplicate to show
	got := rc.received()
	if len(got) != 3 {
		t.Fatalf("received %d messages, want 3: %+v", len(got), got)
	}
	// Each change once; deliveries are not ordered (docs/decisions.md, webhooks).
	ids, subjects := map[string]bool{}, map[string]bool{}
	for i, g := range got {
		if ids[g.ID] {
			t.Fatalf("webhook-id %s received twice", g.ID)
		}
		ids[g.ID] = true
		subjects[g.Body.Data.SubjectID] = true
		if g.Body.Type != "SuperUser.create" || g.Body.Data.Cursor == "" || g.Body.Data.Actor != "admin@example.com" {
			t.Fatalf("message %d: %+v", i, g.Body)
		}
	}
	for _, e := range []string{"a", "b", "c"} {
		if !subjects[e+"@example.com"] {
			t.Fatalf("no message about %s@example.com: %+v", e, got)
		}
	}

	// 500 twice, then 200: the same message comes back until it is taken.
	rc.mu.Lock()
	rc.answer = func(n int) int {
		if n < 5 {
			return 500
		}
		return 200
	}
	rc.mu.Unlock()
	if resp, b := do(t, "POST", env.URL+"/api/users/super", tok, `{"Email":"d@example.com","Status":"Active"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	waitFor(t, 10*time.Second, "the retries", func() bool { return len(rc.received()) >= 6 })
	got = rc.received()
	if got[3].ID != got[4].ID || got[4].ID != got[5].ID || got[3].Body.Data.SubjectID != "d@example.com" || ids[got[3].ID] {
		t.Fatalf("retries are not the same new message: %s %s %s", got[3].ID, got[4].ID, got[5].ID)
	}
	var log struct {
		Content []store.WebhookDelivery `json:"content"`
	}
	waitFor(t, 5*time.Second, "the delivery log", func() bool {
		_, b := do(t, "GET", env.URL+"/api/references/webhooks/"+wh.WebhookID+"/deliveries", tok, "")
		_ = json.Unmarshal([]byte(b), &log)
		return len(log.Content) == 4 && log.Content[0].Status == "Delivered"
	})
	if d := log.Content[0]; d.Attempts != 3 || d.LastStatusCode != 200 || d.Change.SubjectID != "d@example.com" || d.LastAttemptOn == "" {
		t.Fatalf("delivery log: %+v", d)
	}

	// Redeliver: the same message once more.
	resp, b := do(t, "POST", env.URL+"/api/references/webhooks/"+wh.WebhookID+"/deliveries/"+strconv.FormatInt(log.Content[1].DeliveryID, 10)+"/redeliver", tok, "")
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("redeliver: %d %s", resp.StatusCode, b)
	}
	waitFor(t, 5*time.Second, "the redelivery", func() bool { return len(rc.received()) >= 7 })
	epoch, _, err := store.DecodeCursor(log.Content[1].Change.Cursor)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rc.received(), webhooks.MessageID(epoch, log.Content[1].DeliveryID); got[6].ID != want || !ids[want] {
		t.Fatalf("redelivered %s, want %s (one of the first three)", got[6].ID, want)
	}

	// Inactive: nothing more.
	wh2 := wh.Webhook
	wh2.Status = "Inactive"
	in, _ := json.Marshal(wh2)
	if resp, b := do(t, "PUT", env.URL+"/api/references/webhooks/"+wh.WebhookID, tok, string(in)); resp.StatusCode != 200 || !strings.Contains(b, `"Status":"Inactive"`) {
		t.Fatalf("deactivate: %d %s", resp.StatusCode, b)
	}
	if resp, b := do(t, "POST", env.URL+"/api/users/super", tok, `{"Email":"e@example.com","Status":"Active"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	time.Sleep(1500 * time.Millisecond)
	if n := len(rc.received()); n != 7 {
		t.Fatalf("%d messages after Inactive, want none more", n-7)
	}
	_, total, _ := env.DB.ListWebhookDeliveries(context.Background(), wh.WebhookID, 0, 50)
	if total != 4 {
		t.Fatalf("%d deliveries queued, want 4 (none while Inactive)", total)
	}
}

// TestWebhookReceiverMisbehaves: a receiver that hangs, answers slowly,
// redirects or sends a huge body is bounded by the attempt's timeout and
// the read limit; a redirect is not followed and counts as a failure.
func TestWebhookReceiverMisbehaves(t *testing.T) {
	env := startDelivering(t, func(c *web.Config) { c.WebhookBackoff = func(int) time.Duration { return time.Hour } })
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	var followed sync.Mutex
	redirectTargetHit := false
	mux := http.NewServeMux()
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // then the server notices the client leave
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.WriteHeader(204)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/target", func(w http.ResponseWriter, r *http.Request) {
		followed.Lock()
		redirectTargetHit = true
		followed.Unlock()
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.WriteHeader(200)
		chunk := []byte(strings.Repeat("x", 64<<10))
		for i := 0; i < 16<<10; i++ { // up to 1 GiB, if anyone read it all
			if _, err := w.Write(chunk); err != nil || r.Context().Err() != nil {
				return
			}
		}
	})
	// A refusal's own words are kept with it, as one line, cut at 300 bytes.
	mux.HandleFunc("/refuses", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		fmt.Fprint(w, "{\"error\": \"signature mismatch\"}\n\r\n\tsee   the log\x00")
	})
	mux.HandleFunc("/refuses-at-length", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		fmt.Fprint(w, "x"+strings.Repeat("é", 5000)) // two bytes each: byte 300 is half of one
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	hooks := map[string]string{}
	for _, p := range []string{"hang", "slow", "redirect", "huge", "refuses", "refuses-at-length"} {
		hooks[p] = createWebhook(t, env, tok, `{"Url":"`+srv.URL+`/`+p+`","SubjectTypes":["SuperUser"]}`).WebhookID
	}
	t0 := time.Now()
	if resp, b := do(t, "POST", env.URL+"/api/users/super", tok, `{"Email":"x@example.com","Status":"Active"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	attempted := func(id string) store.WebhookDelivery {
		ds, _, err := env.DB.ListWebhookDeliveries(context.Background(), id, 0, 10)
		if err != nil || len(ds) != 1 {
			t.Fatalf("deliveries of %s: %v %d", id, err, len(ds))
		}
		return ds[0]
	}
	waitFor(t, 10*time.Second, "an attempt to each", func() bool {
		for _, id := range hooks {
			if attempted(id).Attempts == 0 {
				return false
			}
		}
		return true
	})
	if took := time.Since(t0); took > 5*time.Second {
		t.Fatalf("the attempts took %s: not bounded by the 1 s timeout", took)
	}
	if d := attempted(hooks["hang"]); d.Status != "Pending" || d.LastStatusCode != 0 || !strings.Contains(d.LastError, "no answer within 1s") || d.NextAttemptOn == "" || d.LastDurationMs > 3000 {
		t.Errorf("hanging receiver: %+v", d)
	}
	if d := attempted(hooks["slow"]); d.Status != "Delivered" || d.LastStatusCode != 204 || d.LastDurationMs < 300 {
		t.Errorf("slow receiver: %+v", d)
	}
	if d := attempted(hooks["redirect"]); d.Status != "Pending" || d.LastStatusCode != 307 || !strings.Contains(d.LastError, "redirects are not followed") {
		t.Errorf("redirecting receiver: %+v", d)
	}
	if d := attempted(hooks["refuses"]); d.LastStatusCode != 401 || d.LastError != `HTTP 401: the receiver answered: {"error": "signature mismatch"} see the log` {
		t.Errorf("refusing receiver: %q", d.LastError)
	}
	if d := attempted(hooks["refuses-at-length"]); d.LastStatusCode != 500 || d.LastError != "HTTP 500: the receiver answered: x"+strings.Repeat("é", 149)+"…" {
		t.Errorf("refusing receiver, at length: %q", d.LastError)
	}
	followed.Lock()
	if redirectTargetHit {
		t.Error("the redirect was followed")
	}
	followed.Unlock()
	if d := attempted(hooks["huge"]); d.Status != "Delivered" || d.LastDurationMs > 3000 {
		t.Errorf("huge body: %+v", d)
	}
}

// TestWebhookPausedAfterFailingAndShownOnHome: a webhook whose every
// attempt fails for the retry window is Paused, the Super User's home page
// says so, and Active resumes it.
func TestWebhookPausedAfterFailingAndShownOnHome(t *testing.T) {
	env := startDelivering(t, func(c *web.Config) { c.WebhookRetryFor = 1500 * time.Millisecond })
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	rc := newReceiver(t)
	rc.answer = func(int) int { return 503 }
	wh := createWebhook(t, env, tok, `{"Url":"`+rc.srv.URL+`/down","SubjectTypes":["SuperUser"]}`)
	rc.mu.Lock()
	rc.secret = wh.Secret
	rc.mu.Unlock()
	if resp, b := do(t, "POST", env.URL+"/api/users/super", tok, `{"Email":"p@example.com","Status":"Active"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var cur store.Webhook
	waitFor(t, 10*time.Second, "the pause", func() bool {
		cur, _ = env.DB.GetWebhook(context.Background(), wh.WebhookID)
		return cur.Status == "Paused"
	})
	if !strings.Contains(cur.PausedReason, "HTTP 503") {
		t.Fatalf("reason %q", cur.PausedReason)
	}
	c := webtest.Browser()
	resp := webtest.SignIn(t, c, env.URL, "admin@example.com")
	doc, _ := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if got := doc.Find(`[data-testid="paused-webhook"]`).Text(); !strings.Contains(got, rc.srv.URL+"/down") || !strings.Contains(got, "Paused") {
		t.Fatalf("home page: %q", got)
	}
	// Resume: Active again, the receiver answers, the waiting delivery goes.
	rc.mu.Lock()
	rc.answer = func(int) int { return 200 }
	rc.mu.Unlock()
	n := len(rc.received())
	cur.Status = "Active"
	in, _ := json.Marshal(cur)
	if resp, b := do(t, "PUT", env.URL+"/api/references/webhooks/"+wh.WebhookID, tok, string(in)); resp.StatusCode != 200 {
		t.Fatalf("resume: %d %s", resp.StatusCode, b)
	}
	if resp, b := do(t, "POST", env.URL+"/api/users/super", tok, `{"Email":"q@example.com","Status":"Active"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	waitFor(t, 10*time.Second, "the delivery after resuming", func() bool {
		got := rc.received()
		return len(got) > n && got[len(got)-1].Body.Data.SubjectID == "q@example.com"
	})
	ds, _, _ := env.DB.ListWebhookDeliveries(context.Background(), wh.WebhookID, 0, 10)
	if len(ds) != 2 || ds[1].Status != "Failed" || ds[1].Attempts < 2 {
		t.Fatalf("the delivery that failed for the whole window: %+v", ds)
	}
}

// TestWebhookBadInput: every bad webhook is a 422 naming its field (or a
// 400/404/412), and nothing is created or changed.
func TestWebhookBadInput(t *testing.T) {
	env := webtest.Start(t, nil) // private receivers not allowed
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	ok := `"SubjectTypes":["Organisation"]`
	cases := []struct {
		name, method, path, body string
		status                   int
		field                    string
	}{
		{"http URL", "POST", "", `{"Url":"http://hooks.example.com/x",` + ok + `}`, 422, "Url"},
		{"loopback", "POST", "", `{"Url":"https://127.0.0.1/x",` + ok + `}`, 422, "Url"},
		{"private", "POST", "", `{"Url":"https://10.1.2.3/x",` + ok + `}`, 422, "Url"},
		{"link-local metadata", "POST", "", `{"Url":"https://169.254.169.254/latest",` + ok + `}`, 422, "Url"},
		{"IPv6 loopback", "POST", "", `{"Url":"https://[::1]/x",` + ok + `}`, 422, "Url"},
		{"localhost", "POST", "", `{"Url":"https://localhost/x",` + ok + `}`, 422, "Url"},
		{"single-label host", "POST", "", `{"Url":"https://intranet/x",` + ok + `}`, 422, "Url"},
		{"credentials", "POST", "", `{"Url":"https://u:p@8.8.8.8/x",` + ok + `}`, 422, "Url"},
		{"port 0", "POST", "", `{"Url":"https://8.8.8.8:0/x",` + ok + `}`, 422, "Url"},
		{"port 99999", "POST", "", `{"Url":"https://8.8.8.8:99999/x",` + ok + `}`, 422, "Url"},
		{"6to4 of loopback", "POST", "", `{"Url":"https://[2002:7f00:1::]/x",` + ok + `}`, 422, "Url"},
		{"Teredo", "POST", "", `{"Url":"https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x",` + ok + `}`, 422, "Url"},
		{"site-local", "POST", "", `{"Url":"https://[fec0::1]/x",` + ok + `}`, 422, "Url"},
		{"IPv4-translated loopback", "POST", "", `{"Url":"https://[::ffff:0:7f00:1]/x",` + ok + `}`, 422, "Url"},
		{"not a URL", "POST", "", `{"Url":"hooks",` + ok + `}`, 422, "Url"},
		{"no URL", "POST", "", `{` + ok + `}`, 422, "Url"},
		{"no subject types", "POST", "", `{"Url":"https://8.8.8.8/x","SubjectTypes":[]}`, 422, "SubjectTypes"},
		{"unknown subject type", "POST", "", `{"Url":"https://8.8.8.8/x","SubjectTypes":["Planet"]}`, 422, "SubjectTypes"},
		{"Paused on create", "POST", "", `{"Url":"https://8.8.8.8/x",` + ok + `,"Status":"Paused"}`, 422, "Status"},
		{"secret without prefix", "POST", "", `{"Url":"https://8.8.8.8/x",` + ok + `,"Secret":"abc"}`, 422, "Secret"},
		{"secret too short", "POST", "", `{"Url":"https://8.8.8.8/x",` + ok + `,"Secret":"whsec_` + base64.StdEncoding.EncodeToString(make([]byte, 16)) + `"}`, 422, "Secret"},
		{"secret not base64", "POST", "", `{"Url":"https://8.8.8.8/x",` + ok + `,"Secret":"whsec_***"}`, 422, "Secret"},
		{"unknown field", "POST", "", `{"Url":"https://8.8.8.8/x",` + ok + `,"Colour":"red"}`, 400, ""},
		{"unknown webhook", "GET", "/" + store.NewID(), ``, 404, ""},
		{"unknown delivery", "POST", "/{id}/deliveries/99999/redeliver", ``, 404, ""},
		{"delivery not a number", "POST", "/{id}/deliveries/x/redeliver", ``, 404, ""},
		{"update to http", "PUT", "/{id}", `{"Url":"http://8.8.8.8/x",` + ok + `}`, 422, "Url"},
		{"update to Paused", "PUT", "/{id}", `{"Url":"https://8.8.8.8/x",` + ok + `,"Status":"Paused"}`, 422, "Status"},
		{"secret in an update", "PUT", "/{id}", `{"Url":"https://8.8.8.8/x",` + ok + `,"Secret":"whsec_` + base64.StdEncoding.EncodeToString(make([]byte, 32)) + `"}`, 422, "Secret"},
		{"stale If-Match", "PUT", "/{id}", `{"Url":"https://8.8.8.8/y",` + ok + `}`, 412, ""},
	}
	good := createWebhook(t, env, tok, `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, _ := env.DB.ListWebhooks(context.Background())
			req, _ := http.NewRequest(c.method, env.URL+"/api/references/webhooks"+strings.ReplaceAll(c.path, "{id}", good.WebhookID), strings.NewReader(c.body))
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			if c.status == 412 {
				req.Header.Set("If-Match", `"stale"`)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var prob struct {
				Status int
				Errors []struct{ Field string }
			}
			_ = json.NewDecoder(resp.Body).Decode(&prob)
			if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, resp.Header.Get("Content-Type"), c.status)
			}
			if c.field != "" && (len(prob.Errors) == 0 || prob.Errors[0].Field != c.field) {
				t.Fatalf("errors %+v, want field %s", prob.Errors, c.field)
			}
			after, _ := env.DB.ListWebhooks(context.Background())
			if len(after) != len(before) || after[0].URL != before[0].URL || after[0].Status != before[0].Status {
				t.Fatal("a refused request changed the webhooks")
			}
		})
	}
}

// TestWebhookAccess: webhooks are Reference Data: Super Users only, in
// the API and in the console; the feed is for every administrator.
func TestWebhookAccess(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.AllowPrivateWebhookURLs = true })
	su := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	if resp, b := do(t, "POST", env.URL+"/api/users/data-administrators", su, `{"Email":"da@example.com"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	da := webtest.Token(t, env.URL, "da@example.com", nil).AccessToken
	wh := createWebhook(t, env, su, `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)
	base := "/api/references/webhooks"
	routes := []struct{ method, path, body string }{
		{"GET", base, ""},
		{"POST", base, `{"Url":"https://8.8.8.8/two","SubjectTypes":["Organisation"]}`},
		{"GET", base + "/" + wh.WebhookID, ""},
		{"PUT", base + "/" + wh.WebhookID, `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Contact"]}`},
		{"POST", base + "/" + wh.WebhookID + "/rotate-secret", ""},
		{"GET", base + "/" + wh.WebhookID + "/deliveries", ""},
		{"POST", base + "/" + wh.WebhookID + "/test", ""},
		{"DELETE", base + "/" + wh.WebhookID, ""},
	}
	for _, r := range routes {
		for _, who := range []struct {
			name, tok string
			status    int
		}{{"no token", "", 401}, {"data administrator", da, 403}} {
			if resp, b := do(t, r.method, env.URL+r.path, who.tok, r.body); resp.StatusCode != who.status {
				t.Errorf("%s %s as %s: %d %s", r.method, r.path, who.name, resp.StatusCode, b)
			}
		}
		want := map[string]int{"GET": 200, "POST": 201, "PUT": 200, "DELETE": 204}[r.method]
		if strings.HasSuffix(r.path, "rotate-secret") {
			want = 200
		}
		if strings.HasSuffix(r.path, "/test") {
			want = 202
		}
		resp, b := do(t, r.method, env.URL+r.path, su, r.body)
		if resp.StatusCode != want {
			t.Errorf("%s %s as Super User: %d %s", r.method, r.path, resp.StatusCode, b)
		}
		if strings.HasSuffix(r.path, "rotate-secret") && !strings.Contains(b, `"Secret":"whsec_`) {
			t.Errorf("rotate-secret answers no new secret: %s", b)
		}
	}
	// The console: Data Administrators are refused the pages.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "da@example.com").Body.Close()
	for _, p := range []string{"/references/webhooks", "/references/webhooks/new"} {
		resp, err := c.Get(env.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s as data administrator: %d", p, resp.StatusCode)
		}
	}
}

// TestWebhookSecretNotKeptForReplays: a create sent again with the same
// Idempotency-Key answers the same webhook without its secret, and the
// secret is nowhere in the database in the clear.
func TestWebhookSecretNotKeptForReplays(t *testing.T) {
	env := webtest.Start(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	withKey := true
	send := func(path string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", env.URL+path, strings.NewReader(`{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		if withKey {
			req.Header.Set("Idempotency-Key", "k-"+path)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.Header.Get("Trustframe-Secret-Member") != "" {
			t.Error("the internal header was sent")
		}
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	st1, first := send("/api/references/webhooks")
	st2, replay := send("/api/references/webhooks")
	secret, _ := first["Secret"].(string)
	if st1 != 201 || st2 != 201 || !strings.HasPrefix(secret, "whsec_") || replay["WebhookId"] != first["WebhookId"] || replay["Secret"] != nil {
		t.Fatalf("first %d %v, replay %d %v", st1, first, st2, replay)
	}
	id := first["WebhookId"].(string)
	st3, rot := send("/api/references/webhooks/" + id + "/rotate-secret")
	st4, rotReplay := send("/api/references/webhooks/" + id + "/rotate-secret")
	if st3 != 200 || st4 != 200 || rot["Secret"] == nil || rotReplay["Secret"] != nil {
		t.Fatalf("rotate %d %v, replay %d %v", st3, rot, st4, rotReplay)
	}
	ws, _ := env.DB.ListWebhooks(context.Background())
	if len(ws) != 1 {
		t.Fatalf("%d webhooks after a replayed create", len(ws))
	}
	// containing counts the rows whose column holds key (read whole, so the
	// check is the same on both engines).
	containing := func(query, key string) int {
		rows, err := env.DB.SQL().Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var b []byte
			if err := rows.Scan(&b); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), key) {
				n++
			}
		}
		return n
	}
	for _, s := range []string{secret, rot["Secret"].(string)} {
		key := strings.TrimPrefix(s, "whsec_")
		if n := containing(`SELECT body FROM idempotency_keys`, key); n != 0 {
			t.Fatalf("the secret is kept in the clear for replays (%d rows)", n)
		}
		if n := containing(`SELECT secret_sealed FROM webhooks`, key); n != 0 {
			t.Fatalf("the secret is stored in the clear (%d rows)", n)
		}
	}
	// Without an Idempotency-Key the internal header is not sent either.
	withKey = false
	if st, m := send("/api/references/webhooks"); st != 201 || m["Secret"] == nil {
		t.Fatalf("without a key: %d %v", st, m)
	}
}

// TestWebhookConsole: the Reference Data pages of webhooks without a
// browser: the new form refuses a bad URL beside the field and keeps what
// was typed; created, the page shows the secret once; the list sets it
// Inactive and Active; the page rotates the secret (shown once) and
// deletes the webhook.
func TestWebhookConsole(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	page := func(resp *http.Response, err error) (*goquery.Document, int) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return doc, resp.StatusCode
	}
	doc, st := page(c.Get(env.URL + "/references/webhooks"))
	if st != 200 || doc.Find(`[data-testid=empty]`).Length() != 1 || doc.Find(`a[href="/references/webhooks/new"]`).Length() != 1 {
		t.Fatalf("empty list: %d", st)
	}
	doc, st = page(c.PostForm(env.URL+"/references/webhooks", url.Values{"Url": {"http://8.8.8.8/x"}, "SubjectTypes": {"Organisation", "Contact"}, "Description": {"ops"}}))
	if st != 422 || !strings.Contains(doc.Find(`[data-testid=error-Url]`).Text(), "https") ||
		doc.Find(`input[name=SubjectTypes][value=Contact][checked]`).Length() != 1 || doc.Find(`#f-Description`).AttrOr("value", "") != "ops" {
		t.Fatalf("refused form: %d %q", st, doc.Find(`[data-testid=error-Url]`).Text())
	}
	// The choices read as words, with the API name beside each.
	if lbl := doc.Find(`input[name=SubjectTypes][value=AuthorisationServer]`).Parent().Text(); !strings.Contains(lbl, "Authorisation server") || !strings.Contains(lbl, "AuthorisationServer") {
		t.Fatalf("subject type label %q", lbl)
	}
	doc, st = page(c.PostForm(env.URL+"/references/webhooks", url.Values{"Url": {"https://8.8.8.8/x"}, "SubjectTypes": {"Organisation", "Contact"}, "Status": {"Active"}}))
	secret := doc.Find(`[data-testid=webhook-secret]`).Text()
	if st != 201 || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("created: %d secret %q", st, secret)
	}
	ws, _ := env.DB.ListWebhooks(context.Background())
	if len(ws) != 1 || strings.Join(ws[0].SubjectTypes, ",") != "Contact,Organisation" {
		t.Fatalf("stored %+v", ws)
	}
	id := ws[0].WebhookID
	doc, _ = page(c.Get(env.URL + "/references/webhooks/" + id))
	if doc.Find(`[data-testid=webhook-secret]`).Length() != 0 || strings.Contains(doc.Text(), secret) {
		t.Fatal("the secret is shown again")
	}
	// Deactivate from the list, then Activate.
	doc, _ = page(c.PostForm(env.URL+"/references/webhooks/"+id, url.Values{"Status": {"Inactive"}}))
	if w, _ := env.DB.GetWebhook(context.Background(), id); w.Status != "Inactive" || w.URL != "https://8.8.8.8/x" || len(w.SubjectTypes) != 2 {
		t.Fatalf("after Deactivate: %+v", w)
	}
	if !strings.Contains(doc.Find(`[data-testid=flash]`).Text(), "Inactive") {
		t.Fatalf("flash %q", doc.Find(`[data-testid=flash]`).Text())
	}
	doc, _ = page(c.Get(env.URL + "/references/webhooks"))
	if doc.Find(`[data-testid=webhook-row] [data-testid=activate]`).Length() != 1 {
		t.Fatal("no Activate on the list for an Inactive webhook")
	}
	page(c.PostForm(env.URL+"/references/webhooks/"+id, url.Values{"Status": {"Active"}}))
	if w, _ := env.DB.GetWebhook(context.Background(), id); w.Status != "Active" {
		t.Fatalf("after Activate: %+v", w)
	}
	// Rotate: a new secret, shown once.
	doc, st = page(c.PostForm(env.URL+"/references/webhooks/"+id+"/rotate-secret", url.Values{}))
	if s2 := doc.Find(`[data-testid=webhook-secret]`).Text(); st != 200 || !strings.HasPrefix(s2, "whsec_") || s2 == secret {
		t.Fatalf("rotate: %d %q", st, s2)
	}
	// Delete.
	doc, _ = page(c.PostForm(env.URL+"/references/webhooks/"+id+"/delete", url.Values{}))
	if ws, _ := env.DB.ListWebhooks(context.Background()); len(ws) != 0 || doc.Find(`[data-testid=empty]`).Length() != 1 {
		t.Fatalf("after delete: %+v", ws)
	}
	if _, st = page(c.Get(env.URL + "/references/webhooks/" + id)); st != 404 {
		t.Fatalf("deleted webhook page: %d", st)
	}
}

// TestHangingReceiverDoesNotSlowTheOthers: a receiver that never answers
// holds at most one delivery at a time (one worker, one timeout) and its
// next deliveries wait for its retry, so a healthy receiver subscribed to
// the same changes gets all twelve well within one timeout of the
// hanging one.
func TestHangingReceiverDoesNotSlowTheOthers(t *testing.T) {
	const timeout = 3 * time.Second
	env := startDelivering(t, func(c *web.Config) {
		c.WebhookTimeout = timeout
		c.WebhookBackoff = func(int) time.Duration { return 100 * time.Millisecond }
	})
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	var mu sync.Mutex
	inFlight, most, hangs := 0, 0, 0
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		hangs++
		most = max(most, inFlight)
		mu.Unlock()
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		_, _ = io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	t.Cleanup(func() { hang.CloseClientConnections(); hang.Close() })
	createWebhook(t, env, tok, `{"Url":"`+hang.URL+`/hang","SubjectTypes":["Organisation"]}`)
	rc := newReceiver(t)
	healthy := createWebhook(t, env, tok, `{"Url":"`+rc.srv.URL+`/ok","SubjectTypes":["Organisation"]}`)
	rc.mu.Lock()
	rc.secret = healthy.Secret
	rc.mu.Unlock()

	ctx := context.Background()
	t0 := time.Now()
	for i := range 12 {
		if err := env.DB.RecordEvent(ctx, store.AuditRecord{Actor: "x", Action: "update", SubjectType: "Organisation", SubjectID: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, timeout, "the healthy receiver's twelve changes", func() bool { return len(rc.received()) >= 12 })
	if took := time.Since(t0); took > timeout/2 {
		t.Fatalf("the healthy receiver got its twelve changes after %s: the hanging one held it up (timeout %s)", took, timeout)
	}
	seen := map[string]bool{}
	for _, r := range rc.received() {
		seen[r.Body.Data.SubjectID] = true
	}
	if len(seen) != 12 {
		t.Fatalf("the healthy receiver got %d distinct changes, want 12", len(seen))
	}
	mu.Lock()
	defer mu.Unlock()
	if hangs == 0 || most != 1 {
		t.Fatalf("the hanging receiver had %d requests, at most %d at once; want some, one at a time", hangs, most)
	}
}

// TestWebhookOnReferenceListTypes: a webhook subscribed to contact,
// document and certification types (reference data) is accepted and told
// when one is created.
func TestWebhookOnReferenceListTypes(t *testing.T) {
	env := startDelivering(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	rc := newReceiver(t)
	wh := createWebhook(t, env, tok, `{"Url":"`+rc.srv.URL+`/refs","SubjectTypes":["ContactType","DocumentType","CertificationType"]}`)
	rc.mu.Lock()
	rc.secret = wh.Secret
	rc.mu.Unlock()
	for _, p := range []string{"contact-types", "document-types", "certification-types"} {
		if resp, b := do(t, "POST", env.URL+"/api/references/"+p, tok, `{"Name":"Legal","Description":"x"}`); resp.StatusCode != http.StatusCreated {
			t.Fatalf("%s: %d %s", p, resp.StatusCode, b)
		}
	}
	waitFor(t, 5*time.Second, "three reference changes", func() bool { return len(rc.received()) >= 3 })
	types := map[string]bool{}
	for _, r := range rc.received() {
		types[r.Body.Type] = true
	}
	for _, want := range []string{"ContactType.create", "DocumentType.create", "CertificationType.create"} {
		if !types[want] {
			t.Errorf("no %s delivered (got %v)", want, types)
		}
	}
}

// TestRedeliverRestartsTheBackoff: a delivery redelivered after failing
// three times is retried on the schedule's first step again (5 s by
// default), not where the earlier attempts had left it; the log keeps
// counting every attempt.
func TestRedeliverRestartsTheBackoff(t *testing.T) {
	var mu sync.Mutex
	var steps []int
	env := startDelivering(t, func(c *web.Config) {
		c.WebhookBackoff = func(n int) time.Duration {
			mu.Lock()
			steps = append(steps, n)
			mu.Unlock()
			if n < 3 {
				return 50 * time.Millisecond
			}
			return time.Hour
		}
	})
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	rc := newReceiver(t)
	rc.answer = func(int) int { return 500 }
	wh := createWebhook(t, env, tok, `{"Url":"`+rc.srv.URL+`/fail","SubjectTypes":["Organisation"]}`)
	rc.mu.Lock()
	rc.secret = wh.Secret
	rc.mu.Unlock()
	if err := env.DB.RecordEvent(context.Background(), store.AuditRecord{Actor: "x", Action: "update", SubjectType: "Organisation", SubjectID: "o1"}); err != nil {
		t.Fatal(err)
	}
	backoffs := func() []int { mu.Lock(); defer mu.Unlock(); return slices.Clone(steps) }
	waitFor(t, 5*time.Second, "three failed attempts", func() bool { return len(backoffs()) >= 3 })
	if got := backoffs(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("retries before the redelivery took steps %v, want [1 2 3]", got)
	}
	ds, _, err := env.DB.ListWebhookDeliveries(context.Background(), wh.WebhookID, 0, 10)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries: %v %d", err, len(ds))
	}
	resp, b := do(t, "POST", env.URL+"/api/references/webhooks/"+wh.WebhookID+"/deliveries/"+strconv.FormatInt(ds[0].DeliveryID, 10)+"/redeliver", tok, "")
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("redeliver: %d %s", resp.StatusCode, b)
	}
	waitFor(t, 5*time.Second, "the redelivery's attempt", func() bool { return len(backoffs()) >= 4 })
	if got := backoffs(); got[3] != 1 {
		t.Fatalf("the failed redelivery is retried at step %d of the backoff, want 1 (steps %v)", got[3], got)
	}
	waitFor(t, 5*time.Second, "the attempt recorded", func() bool {
		d, err := env.DB.GetWebhookDelivery(context.Background(), wh.WebhookID, ds[0].DeliveryID)
		return err == nil && d.Attempts == 4 && d.Status == "Pending"
	})
}

// TestPrivateReceiverNeverContacted: with private receivers not allowed
// (the default), a webhook whose URL came to point at a private address
// after it was accepted (here: changed in the database, as a name
// re-pointed at a loopback address would be) is refused at the
// connection: the receiver never sees a request, and the attempt is
// logged as failed.
func TestPrivateReceiverNeverContacted(t *testing.T) {
	env := startDelivering(t, func(c *web.Config) {
		c.AllowPrivateWebhookURLs = false
		c.WebhookBackoff = func(int) time.Duration { return time.Hour }
	})
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	var hits sync.Mutex
	n := 0
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Lock()
		n++
		hits.Unlock()
	}))
	t.Cleanup(private.Close)
	if resp, b := do(t, "POST", env.URL+"/api/references/webhooks", tok, `{"Url":"`+private.URL+`/hook","SubjectTypes":["Organisation"]}`); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a private URL was accepted: %d %s", resp.StatusCode, b)
	}
	wh := createWebhook(t, env, tok, `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`)
	if _, err := env.DB.SQL().Exec(`UPDATE webhooks SET url = ? WHERE webhook_id = ?`, private.URL+"/hook", wh.WebhookID); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.RecordEvent(context.Background(), store.AuditRecord{Actor: "x", Action: "update", SubjectType: "Organisation", SubjectID: "o1"}); err != nil {
		t.Fatal(err)
	}
	var d store.WebhookDelivery
	waitFor(t, 10*time.Second, "the refused attempt", func() bool {
		ds, _, err := env.DB.ListWebhookDeliveries(context.Background(), wh.WebhookID, 0, 10)
		if err != nil || len(ds) != 1 {
			return false
		}
		d = ds[0]
		return d.Attempts == 1
	})
	if d.Status != "Pending" || d.LastStatusCode != 0 || !strings.Contains(d.LastError, "not public") {
		t.Fatalf("attempt at a private address: %+v", d)
	}
	hits.Lock()
	defer hits.Unlock()
	if n != 0 {
		t.Fatalf("the private receiver was contacted %d times", n)
	}
	t.Logf("refused: %s", d.LastError)
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

// TestWebhookIdCannotChange: a webhook's PUT naming another WebhookId
// than its URL's is a 422 naming it, as an organisation's, a domain's or
// an authority's is, not an update of the webhook of the URL.
func TestWebhookIdCannotChange(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	other := a.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.4.4/h","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	before := toJSON(t, a.must(200, "GET", "/references/webhooks/"+id, ""))
	n := auditTotal(a)
	for _, wid := range []string{`"` + other + `"`, `"nope"`, `5`} {
		r, m := a.do("PUT", "/references/webhooks/"+id, `{"WebhookId":`+wid+`,"Url":"https://1.1.1.1/h","SubjectTypes":["Application"]}`)
		if r.StatusCode != 422 || fieldsOf(m)["WebhookId"] == "" {
			t.Errorf("PUT with WebhookId %s: %d %v, want 422 naming WebhookId", wid, r.StatusCode, m)
		}
	}
	if after := toJSON(t, a.must(200, "GET", "/references/webhooks/"+id, "")); after != before || auditTotal(a) != n {
		t.Fatalf("a refused PUT changed the webhook: %s -> %s", before, after)
	}
	// Its own id, sent back as read, is fine.
	a.must(200, "PUT", "/references/webhooks/"+id, `{"WebhookId":"`+id+`","Url":"https://1.1.1.1/h","SubjectTypes":["Application"]}`)
}
