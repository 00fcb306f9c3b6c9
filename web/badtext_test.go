package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestTextNoEngineCanKeepIsRefused: a NUL character (which PostgreSQL's
// text cannot hold) or bytes that are not UTF-8 are refused in the API and
// in console forms, naming the field, and nothing is saved: both engines
// then store the same thing.
func TestTextNoEngineCanKeepIsRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for body, field := range map[string]string{
		`{"OrganisationName":"Ac\u0000me","RegistrationNumber":"1","CountryOfRegistration":"GB"}`:                   "OrganisationName",
		`{"OrganisationName":"Acme","RegistrationNumber":"1","CountryOfRegistration":"GB","AddressLine1":"\u0000"}`: "AddressLine1",
	} {
		resp, m := a.do("POST", "/organisations", body)
		if f := fieldsOf(m); resp.StatusCode != http.StatusUnprocessableEntity || len(f) != 1 || f[field] == "" {
			t.Fatalf("%s: %d %v, want 422 naming %s", body, resp.StatusCode, m, field)
		}
	}

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, name := range []string{"Ac\x00me", "Ac\xffme"} {
		form := url.Values{"OrganisationName": {name}, "RegistrationNumber": {"2"}, "CountryOfRegistration": {"GB"}}
		req, _ := http.NewRequest("POST", env.URL+"/organisations", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", env.URL)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("form with %q: %d, want 422", name, resp.StatusCode)
		}
	}
	if l := a.must(200, "GET", "/organisations", ""); l["totalSize"] != 0.0 {
		t.Fatalf("saved despite the refusal: %v", l["totalSize"])
	}
	// Ordinary text, accents and all, still goes through.
	a.must(201, "POST", "/organisations", `{"OrganisationName":"Société Générale ☃","RegistrationNumber":"3","CountryOfRegistration":"FR"}`)
}
