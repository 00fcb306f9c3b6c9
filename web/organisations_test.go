package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestConsoleCountryInAnyCase: a country typed "gb" in a console form is
// GB (the walk's first stumble); the API keeps its strict capitals.
func TestConsoleCountryInAnyCase(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r, err := c.PostForm(env.URL+"/organisations", url.Values{"OrganisationName": {"Lower Bank"}, "RegistrationNumber": {"L-1"}, "CountryOfRegistration": {" gb "}})
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("the form with country gb: %d", r.StatusCode)
	}
	got := a.must(200, "GET", "/organisations?q=Lower", "")["content"].([]any)[0].(map[string]any)
	if got["CountryOfRegistration"] != "GB" {
		t.Fatalf("CountryOfRegistration %v, want GB", got["CountryOfRegistration"])
	}
	a.must(422, "POST", "/organisations", `{"OrganisationName":"Api Bank","RegistrationNumber":"A-1","CountryOfRegistration":"gb"}`)
}

// TestOrganisationHeaderReadsAsWords: the line under an organisation's
// name reads "12345678 · GB · Pending"; the status word was glued to the
// dot ("GB ·Pending").
func TestOrganisationHeaderReadsAsWords(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", `{"OrganisationName":"Acme","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`)["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/organisations/" + oid)
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	line := strings.Join(strings.Fields(doc.Find("hgroup p").First().Text()), " ")
	if !strings.HasPrefix(line, "12345678 · GB · ") {
		t.Errorf("header line %q", line)
	}
}
