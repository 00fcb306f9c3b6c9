package web_test

import (
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
	if f := doc.Find("[data-testid=flash]"); f.Text() != "Acme Bank was created." || !f.HasClass("tf-flash-success") {
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
	if !f.HasClass("tf-flash-warning") || !strings.Contains(f.Text(), "Acme Bank plc was created, but Acme Bank (Pending) already has registration number 12345678") {
		t.Fatalf("warning %q (%v)", f.Text(), f.AttrOr("class", ""))
	}
	if a.must(200, "GET", "/organisations?q=Acme", "")["totalSize"] != 2.0 {
		t.Fatal("the warned organisation was not created")
	}
}
