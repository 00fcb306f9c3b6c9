package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// What the console shows of a refused key, certificate, issuer or
// reactivation is in plain words: no library text, no resolver address,
// no API member names (issue 40).
func TestConsoleMessagesInPlainWords(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	raw := []string{"go-jose", "x509:", "asn1", "dial tcp", "context deadline exceeded", "PublicJwk", "OpenIDDiscoveryDocument", "StatusReason"}
	for name, s := range map[string]struct {
		path string
		form url.Values
		want string
	}{
		"invalid EC key": {"/organisations/" + oid + "/key-material", url.Values{"Key": {`{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}`}, "Use": {"sig"}}, "not a usable key"},
		"malformed certificate": {"/organisations/" + oid + "/key-material", url.Values{"Key": {"-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----"}, "Use": {"sig"}},
			"not an X.509 certificate"},
		"unknown issuer host": {"/organisations/" + oid + "/authorisationservers", url.Values{"CustomerFriendlyName": {"AS"}, "Issuer": {"https://no-such-host.invalid"}}, "host name no-such-host.invalid"},
	} {
		resp, err := c.PostForm(env.URL+s.path, s.form)
		if err != nil {
			t.Fatal(err)
		}
		text := docOf(t, resp).Find("main").Text()
		if resp.StatusCode != 422 || !strings.Contains(text, s.want) {
			t.Errorf("%s: %d, want %q in %q", name, resp.StatusCode, s.want, text)
		}
		for _, r := range raw {
			if strings.Contains(text, r) {
				t.Errorf("%s: the page shows %q", name, r)
			}
		}
		if m := resolverAddr.FindString(text); m != "" {
			t.Errorf("%s: the page shows the resolver address %q", name, m)
		}
	}
	// A reactivation without a reason: the refusal names no member.
	a.must(200, "PUT", "/organisations/"+oid, `{"OrganisationName":"Acme","RegistrationNumber":"REG-Acme","CountryOfRegistration":"GB","Status":"Withdrawn"}`)
	resp, err := c.PostForm(env.URL+"/organisations/"+oid+"/status", url.Values{"Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	text := docOf(t, resp).Text()
	if !strings.Contains(text, "needs a reason") || strings.Contains(text, "StatusReason") {
		t.Errorf("reactivation without a reason: %d %q", resp.StatusCode, text)
	}
}
