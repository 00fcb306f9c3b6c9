package web_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// rawText is what a console page never shows: Go's and libraries' error
// text, a resolver's address, API member names in a refusal (issue 40).
var rawText = []string{"dial tcp", "lookup ", "context deadline exceeded", "x509:", "go-jose", "json:", "strconv.", "EOF",
	"invalid character", "looking for beginning", "unexpected end of JSON", "connection refused", "parse error on line",
	"wrong number of fields", "bare \"", "PublicJwk", "StatusReason is required"}

// memberName is an API member name in CamelCase inside a sentence
// ("OpenIDDiscoveryDocument must …").
var memberName = regexp.MustCompile(`\b(OpenIDDiscoveryDocument|FederationEntityId|TrustMarkType|LogoUri|EntityType|AuthorisationDomain|CertificationType|SubjectTypes|OrganisationName|CountryOfRegistration|RegistrationNumber|EmailDomains|GroupsClaim|GroupRoles|EmailClaim|ClientSecret)\b`)

// refusals is the text of a page's refusals: the messages beside fields
// and the alerts.
func refusals(t *testing.T, resp *http.Response) string {
	t.Helper()
	var out []string
	docOf(t, resp).Find(`main [role="alert"], main .tf-field-error`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, squeeze(s.Text()))
	})
	return strings.Join(out, " | ")
}

// checkPlain fails when text holds raw text or (with members) a member
// name.
func checkPlain(t *testing.T, name, text string, members bool) {
	t.Helper()
	for _, r := range rawText {
		if strings.Contains(text, r) {
			t.Errorf("%s: the page shows %q: %s", name, r, squeeze(text))
		}
	}
	if m := resolverAddr.FindString(text); m != "" {
		t.Errorf("%s: the page shows the resolver address %q: %s", name, m, squeeze(text))
	}
	if m := memberName.FindString(text); members && m != "" {
		t.Errorf("%s: the page names the member %s: %s", name, m, squeeze(text))
	}
}

func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestConsoleFormsRefuseInPlainWords posts bad input to the console's
// webhook, import, federation, identity provider and server forms: what
// the page says of each refusal is in plain words (issue 40).
func TestConsoleFormsRefuseInPlainWords(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	setupDomains(t, a)
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("{\"issuer\": ")) }))
	defer notJSON.Close()

	for name, s := range map[string]struct {
		path string
		form url.Values
	}{
		"webhook host":      {"/references/webhooks", url.Values{"Url": {"https://no-such-host.invalid/hook"}, "SubjectTypes": {"Organisation"}}},
		"webhook url":       {"/references/webhooks", url.Values{"Url": {"https://[::1"}, "SubjectTypes": {"Organisation"}}},
		"trust mark type":   {"/references/trust-mark-types", url.Values{"Name": {"Good"}, "TrustMarkType": {"not a url"}, "Basis": {"Role"}, "AuthorisationDomain": {"Nope"}, "Role": {"X"}, "Lifetime": {"soon"}, "LogoUri": {"http://x"}, "Ref": {"ftp://x"}}},
		"trust mark basis":  {"/references/trust-mark-types", url.Values{"Name": {"Cert"}, "Basis": {"Certification"}, "AuthorisationDomain": {"Payments"}}},
		"policy not JSON":   {"/references/role-metadata-policies", url.Values{"DomainRole": {"Payments/PISP"}, "EntityType": {"openid_relying_party"}, "Policy": {`{"scope": {"value": }`}, "Status": {"Active"}}},
		"policy cut":        {"/references/role-metadata-policies", url.Values{"DomainRole": {"Payments/PISP"}, "EntityType": {"openid_relying_party"}, "Policy": {`{"scope": {"value": "a"`}, "Status": {"Active"}}},
		"policy operator":   {"/references/role-metadata-policies", url.Values{"DomainRole": {"Payments/PISP"}, "EntityType": {"nope"}, "Policy": {`{"scope": {"frobnicate": 1, "one_of": "a"}}`}, "Status": {"Active"}}},
		"try it":            {"/references/role-metadata-policies/try", url.Values{"Role": {"Payments/PISP"}, "EntityType": {"nope"}, "Metadata": {`{"scope": nul}`}}},
		"identity provider": {"/references/identity-providers", url.Values{"Name": {"Ext"}, "Issuer": {"https://no-such-host.invalid"}, "EmailDomains": {"not a domain"}, "GroupRoles": {"a = Boss\nb = OrganisationAdministrator:nope\n= SuperUser"}, "EmailClaim": {"bad claim!"}}},
		"idp not JSON":      {"/references/identity-providers", url.Values{"Name": {"Ext2"}, "Issuer": {notJSON.URL}, "EmailDomains": {"example.com"}}},
		"server discovery":  {"/organisations/" + oid + "/authorisationservers", url.Values{"CustomerFriendlyName": {"AS"}, "Issuer": {"https://as.example"}, "OpenIDDiscoveryDocument": {"https://other.example/x"}, "FederationEntityId": {"not a url"}}},
		"server not JSON":   {"/organisations/" + oid + "/authorisationservers", url.Values{"CustomerFriendlyName": {"AS2"}, "Issuer": {notJSON.URL}}},
		"server private":    {"/organisations/" + oid + "/authorisationservers", url.Values{"CustomerFriendlyName": {"AS3"}, "Issuer": {"https://127.0.0.1:1"}}},
		"server entity":     {"/organisations/" + oid + "/authorisationservers", url.Values{"CustomerFriendlyName": {"AS4"}, "Issuer": {"https://no-such-host.invalid"}, "FederationEntityId": {"https://x.example/a?b#c"}}},
	} {
		resp, err := c.PostForm(env.URL+s.path, s.form)
		if err != nil {
			t.Fatal(err)
		}
		text := refusals(t, resp)
		if resp.StatusCode < 400 || resp.StatusCode >= 500 || text == "" {
			t.Errorf("%s: %d %q", name, resp.StatusCode, text)
		}
		t.Logf("%s: %s", name, text)
		checkPlain(t, name, text, true)
	}

	// The CSV import: a file that is not CSV, and rows that need attention.
	for name, csv := range map[string]string{
		"bare quote":      "OrganisationName,RegistrationNumber,CountryOfRegistration\nA\"cme,R1,GB\n",
		"fields":          "OrganisationName,RegistrationNumber,CountryOfRegistration\nAcme,R1\n",
		"quote left open": "OrganisationName,RegistrationNumber,CountryOfRegistration\n\"Acme,R1,GB\n",
		"rows":            "OrganisationName,RegistrationNumber,CountryOfRegistration,Status,OrganisationId\n,R1,XX,Bogus,nope\nB,,UK,Active,\n",
		"columns":         "OrganisationName,Nope\nA,B\n",
	} {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("file", "orgs.csv")
		_, _ = fw.Write([]byte(csv))
		mw.Close()
		req, _ := http.NewRequest("POST", env.URL+"/organisations/import", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Origin", env.URL)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		text := refusals(t, resp)
		if resp.StatusCode < 400 || resp.StatusCode >= 500 || text == "" {
			t.Errorf("import %s: %d %q", name, resp.StatusCode, text)
		}
		t.Logf("import %s: %s", name, text)
		// The file's columns are named as its header row names them.
		checkPlain(t, "import "+name, text, false)
	}
}

// TestWebhookDeliveryErrorsInPlainWords: a delivery that cannot connect
// says so on the webhook's page without the dial error's text.
func TestWebhookDeliveryErrorsInPlainWords(t *testing.T) {
	env := startDelivering(t, func(c *web.Config) { c.WebhookRetryFor = time.Minute })
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	wh := createWebhook(t, env, tok, `{"Url":"`+deadURL+`/gone","SubjectTypes":["SuperUser"]}`)
	if resp, b := do(t, "POST", env.URL+"/api/users/super", tok, `{"Email":"p@example.com","Status":"Active"}`); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var d store.WebhookDelivery
	waitFor(t, 10*time.Second, "the failed attempt", func() bool {
		ds, _, err := env.DB.ListWebhookDeliveries(context.Background(), wh.WebhookID, 0, 10)
		if err != nil || len(ds) != 1 {
			return false
		}
		d = ds[0]
		return d.Attempts >= 1
	})
	if !strings.Contains(d.LastError, "refused the connection") {
		t.Errorf("last error %q", d.LastError)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/references/webhooks/" + wh.WebhookID)
	if err != nil {
		t.Fatal(err)
	}
	text := docOf(t, resp).Find("main").Text()
	if !strings.Contains(text, "refused the connection") {
		t.Errorf("the page does not say why: %s", squeeze(text))
	}
	checkPlain(t, "delivery", text, false)
}
