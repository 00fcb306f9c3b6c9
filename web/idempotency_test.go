package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestIdempotentCreates: a POST retried with the same Idempotency-Key by
// the same administrator gets the first answer and creates nothing; at the
// same moment too; the same key for another body is 422; a failed first
// attempt is not kept; the key is per administrator.
func TestIdempotentCreates(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	body := org("Acme")
	r1, m1 := a.do("POST", "/organisations", body, "Idempotency-Key", "key-1")
	r2, m2 := a.do("POST", "/organisations", body, "Idempotency-Key", "key-1")
	if r1.StatusCode != 201 || r2.StatusCode != 201 || r1.Header.Get("Location") == "" || r2.Header.Get("Location") != r1.Header.Get("Location") ||
		m1["OrganisationId"] != m2["OrganisationId"] || r2.Header.Get("Idempotent-Replayed") != "true" || r1.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry: %d %v / %d %v (%s, %s)", r1.StatusCode, m1, r2.StatusCode, m2, r1.Header.Get("Location"), r2.Header.Get("Location"))
	}
	if r, m := a.do("POST", "/organisations", org("Other"), "Idempotency-Key", "key-1"); r.StatusCode != 422 || fieldsOf(m) == nil {
		t.Fatalf("same key, other body: %d %v", r.StatusCode, m)
	}
	// A failed first attempt changes nothing and is not kept.
	if r, _ := a.do("POST", "/organisations", `{"OrganisationName":""}`, "Idempotency-Key", "key-2"); r.StatusCode != 422 {
		t.Fatalf("invalid: %d", r.StatusCode)
	}
	a.must(201, "POST", "/organisations", org("Fixed"))
	if r, m := a.do("POST", "/organisations", org("Beta"), "Idempotency-Key", "key-2"); r.StatusCode != 201 {
		t.Fatalf("after a failed first attempt: %d %v", r.StatusCode, m)
	}
	// Ten at once: one organisation.
	var wg sync.WaitGroup
	ids := make([]any, 10)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, m := a.do("POST", "/organisations", org("Gamma"), "Idempotency-Key", "key-3")
			if r.StatusCode == 201 {
				ids[i] = m["OrganisationId"]
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id == nil || id != ids[0] {
			t.Fatalf("concurrent retries: %v", ids)
		}
	}
	if n := a.must(200, "GET", "/organisations?q=Gamma", "")["totalSize"]; n != 1.0 {
		t.Fatalf("Gamma created %v times", n)
	}
	// Another administrator's key is theirs.
	dana := newAPIWithInvite(t, env, a, "dana@example.com")
	if r, m := dana.do("POST", "/organisations", body, "Idempotency-Key", "key-1"); r.StatusCode != 201 || m["OrganisationId"] == m1["OrganisationId"] {
		t.Fatalf("another administrator's key-1: %d %v", r.StatusCode, m)
	}
	if n := a.must(200, "GET", "/organisations?q=Acme", "")["totalSize"]; n != 2.0 {
		t.Fatalf("Acme: %v", n)
	}
}

// TestConsoleFormIsIdempotentAndWarnsOfSameRegistration: the console's
// form key makes a repeated post one organisation; a new organisation with
// the registration number and country of another is created with a warning.
func TestConsoleFormIsIdempotentAndWarnsOfSameRegistration(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	form := url.Values{"OrganisationName": {"Acme Bank"}, "RegistrationNumber": {"12345678"}, "CountryOfRegistration": {"GB"}, "IdempotencyKey": {"form-1"}}
	var locs []string
	for range 2 {
		r, err := c.PostForm(env.URL+"/organisations", form)
		if err != nil {
			t.Fatal(len(locs), err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusSeeOther {
			t.Fatalf("post: %d", r.StatusCode)
		}
		locs = append(locs, r.Header.Get("Location"))
	}
	if locs[0] != locs[1] || a.must(200, "GET", "/organisations?q=Acme", "")["totalSize"] != 1.0 {
		t.Fatalf("a repeated form post: %v", locs)
	}
	_, doc := page(t, c, env.URL+locs[0])
	if f := doc.Find("[data-testid=flash]"); f.Text() != "Acme Bank was added." || !f.HasClass("tf-flash-success") {
		t.Fatalf("first flash %q", f.Text())
	}
	form.Set("OrganisationName", "Acme Bank plc")
	form.Set("IdempotencyKey", "form-2")
	r, err := c.PostForm(env.URL+"/organisations", form)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("same registration: %d", r.StatusCode)
	}
	_, doc = page(t, c, env.URL+r.Header.Get("Location"))
	f := doc.Find("[data-testid=flash]")
	if !f.HasClass("tf-flash-warning") || !strings.Contains(f.Text(), "Acme Bank plc was added, but Acme Bank (Pending) already has registration number 12345678") {
		t.Fatalf("warning %q (%v)", f.Text(), f.AttrOr("class", ""))
	}
	if a.must(200, "GET", "/organisations?q=Acme", "")["totalSize"] != 2.0 {
		t.Fatal("the warned organisation was not created")
	}
}

// TestIdempotentReplayChecksTheRouteRoleFirst: a Super User who loses
// the role (Inactive as a Super User, still a Data Administrator) and
// sends a Super-User-only POST again with its key gets 403, as any new
// request would, not the answer stored when they had the role; in the
// console as in the API.
func TestIdempotentReplayChecksTheRouteRoleFirst(t *testing.T) {
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	bob := newAPIWithInvite(t, env, admin, "bob@example.com")
	admin.must(201, "POST", "/users/super", `{"Email":"bob@example.com","Status":"Active"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "bob@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	flag := `{"Name":"Fast track","Type":"Organisation"}`
	if r, m := bob.do("POST", "/references/flags", flag, "Idempotency-Key", "flag-1"); r.StatusCode != http.StatusCreated {
		t.Fatalf("API flag as a Super User: %d %v", r.StatusCode, m)
	}
	form := url.Values{"Name": {"Slow track"}, "Type": {"Organisation"}, "IdempotencyKey": {"form-1"}}
	r, err := c.PostForm(env.URL+"/references/flags", form)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("console flag as a Super User: %d", r.StatusCode)
	}
	admin.must(200, "PUT", "/users/super/bob@example.com", `{"Status":"Inactive"}`)
	if r, m := bob.do("POST", "/references/flags", flag, "Idempotency-Key", "flag-1"); r.StatusCode != http.StatusForbidden || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("API replay after losing the role: %d %v", r.StatusCode, m)
	}
	r, err = c.PostForm(env.URL+"/references/flags", form)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("console replay after losing the role: %d", r.StatusCode)
	}
}

// TestIdempotencyFingerprintCoversQueryAndContentType: the same key with
// the same body but another query string, or another Content-Type, is
// another request: 422 idempotency_key_reused, not the first answer.
func TestIdempotencyFingerprintCoversQueryAndContentType(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	body := org("Acme")
	if r, m := a.do("POST", "/organisations", body, "Idempotency-Key", "key-1"); r.StatusCode != http.StatusCreated {
		t.Fatalf("first: %d %v", r.StatusCode, m)
	}
	for _, retry := range []struct{ path, contentType string }{
		{"/organisations?dryRun=true", "application/json"},
		{"/organisations", "text/plain"},
	} {
		r, m := a.do("POST", retry.path, body, "Idempotency-Key", "key-1", "Content-Type", retry.contentType)
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(m["errors"]), "idempotency_key_reused") {
			t.Fatalf("%s as %s: %d %v", retry.path, retry.contentType, r.StatusCode, m)
		}
	}
	if r, _ := a.do("POST", "/organisations", body, "Idempotency-Key", "key-1"); r.StatusCode != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the same request again: %d", r.StatusCode)
	}
}

// TestIdempotentReplayNeedsTheSameRights: a reactivation checks the Super
// User role inside its handler, after the idempotency check; a Super User
// who lost the role and sends the same form with the same key again gets
// a refusal, not the answer kept for the Super User they were.
func TestIdempotentReplayNeedsTheSameRights(t *testing.T) {
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	newAPIWithInvite(t, env, admin, "bob@example.com")
	admin.must(201, "POST", "/users/super", `{"Email":"bob@example.com","Status":"Active"}`)
	id := admin.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	admin.must(200, "PUT", "/organisations/"+id, strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Withdrawn"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "bob@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	form := url.Values{"StatusReason": {"withdrawn by mistake"}, "IdempotencyKey": {"re-1"}}
	post := func() *http.Response {
		t.Helper()
		r, err := c.PostForm(env.URL+"/organisations/"+id+"/reactivate", form)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r
	}
	if r := post(); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("reactivation as a Super User: %d", r.StatusCode)
	}
	if r := post(); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the same form again as a Super User is not replayed: %d", r.StatusCode)
	}
	admin.must(200, "PUT", "/organisations/"+id, strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Withdrawn"}`)
	admin.must(200, "PUT", "/users/super/bob@example.com", `{"Status":"Inactive"}`)
	r := post()
	if r.StatusCode < 400 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("replay after losing the Super User role: %d, replayed %q", r.StatusCode, r.Header.Get("Idempotent-Replayed"))
	}
	if got := admin.must(200, "GET", "/organisations/"+id, "")["Status"]; got != "Withdrawn" {
		t.Fatalf("the refused replay changed the organisation: %v", got)
	}
}
