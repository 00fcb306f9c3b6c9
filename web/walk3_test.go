package web_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/trustframe/trustframe/web/webtest"
)

// Findings of a third walk through the console as two new users: a Super
// User setting up Reference Data and a Data Administrator onboarding an
// organisation.

// postForm posts a console form and answers the status and the page.
func postForm(t *testing.T, c *http.Client, u string, form url.Values) (int, *goquery.Document) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, docOf(t, resp)
}

// TestDomainsPageEditRefusalIsShownInItsForm: a refused edit of a domain's
// description, of a role or of an authority (Reference Data > Domains and
// Roles) came back as the page with nothing said and the edit form closed,
// what was typed gone: the change seemed saved but was not. The edit form
// is open again with what was typed and the message beside its field.
func TestDomainsPageEditRefusalIsShownInItsForm(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	long := strings.Repeat("x", 501)

	for _, tc := range []struct {
		what, path string
		form       url.Values
		field      string // the id of the field the message is beside
		kept       map[string]string
	}{
		{"domain", "/references/authorisation-domains/Payments",
			url.Values{"Description": {long}, "Status": {"Active"}},
			"domain-desc-Payments", map[string]string{"domain-desc-Payments": long}},
		{"role", "/references/authorisation-domains/Payments/roles/PISP",
			url.Values{"Type": {"Federation"}, "Exclusive": {"true"}, "Description": {long}, "Status": {"Active"}},
			"edit-desc-Payments-PISP", map[string]string{"edit-desc-Payments-PISP": long}},
		{"authority", "/references/authorities/" + auth,
			url.Values{"AuthorityName": {""}, "AuthorityCode": {"CB2"}, "Country": {"gb"}, "AuthorisationDomains": {"Payments"}, "Status": {"Active"}},
			"auth-name-" + auth, map[string]string{"auth-code-" + auth: "CB2", "auth-country-" + auth: "GB"}},
	} {
		status, doc := postForm(t, c, env.URL+tc.path, tc.form)
		if status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422", tc.what, status)
			continue
		}
		in := doc.Find("#" + tc.field)
		if in.Length() == 0 {
			t.Errorf("%s: no field #%s", tc.what, tc.field)
			continue
		}
		if v, _ := in.Attr("aria-invalid"); v != "true" {
			t.Errorf("%s: #%s is not marked invalid", tc.what, tc.field)
		}
		id, _ := in.Attr("aria-describedby")
		if id == "" || strings.TrimSpace(doc.Find("#"+id).Text()) == "" {
			t.Errorf("%s: no message beside #%s", tc.what, tc.field)
		}
		if in.ParentsFiltered("details[open]").Length() == 0 {
			t.Errorf("%s: the edit form is closed", tc.what)
		}
		// The new forms of the page stay empty.
		doc.Find("[data-testid=domain-form] input[type=text], [data-testid=authority-form] input[type=text]").Each(func(_ int, s *goquery.Selection) {
			if v, _ := s.Attr("value"); v != "" {
				id, _ := s.Attr("id")
				t.Errorf("%s: the new form's #%s shows %q", tc.what, id, v)
			}
		})
		if _, ok := doc.Find("[data-testid=authority-form] input[type=checkbox]").Attr("checked"); ok {
			t.Errorf("%s: the new authority form ticks a domain", tc.what)
		}
		for f, want := range tc.kept {
			if v, _ := doc.Find("#" + f).Attr("value"); v != want {
				t.Errorf("%s: #%s kept as %q, want %q", tc.what, f, v, want)
			}
		}
	}
	// The authority's edit form keeps its domains ticked as sent.
	_, doc := postForm(t, c, env.URL+"/references/authorities/"+auth,
		url.Values{"AuthorityName": {""}, "AuthorityCode": {"CB"}, "Country": {"GB"}, "Status": {"Active"}})
	box := doc.Find("#auth-name-" + auth).ParentsFiltered("form").Find(`input[name=AuthorisationDomains][value=Payments]`)
	if _, ok := box.Attr("checked"); ok {
		t.Error("the authority's edit form ticks Payments, which was not sent")
	}
}

// TestDomainsPageNameTakenIsBesideTheName: a new domain or role whose name
// is taken was answered with the message at the top of the page, and the
// new role form came back closed and empty. The message stands beside the
// name, as on the other Reference Data forms, and what was typed stays.
func TestDomainsPageNameTakenIsBesideTheName(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	status, doc := postForm(t, c, env.URL+"/references/authorisation-domains/Payments/roles",
		url.Values{"Name": {"PISP"}, "Type": {"Directory"}, "Description": {"Payment initiation"}, "Status": {"Active"}})
	if status != http.StatusConflict {
		t.Fatalf("role: status %d, want 409", status)
	}
	in := doc.Find("#role-name-Payments")
	if v, _ := in.Attr("aria-invalid"); v != "true" || !strings.Contains(doc.Find("#role-name-Payments-error").Text(), "PISP") {
		t.Errorf("role: the name is not marked, or no message beside it: %q", doc.Find("#role-name-Payments-error").Text())
	}
	if in.ParentsFiltered("details[open]").Length() == 0 {
		t.Error("role: the new role form is closed")
	}
	if v, _ := in.Attr("value"); v != "PISP" {
		t.Errorf("role: name kept as %q", v)
	}
	if v, _ := doc.Find("#role-desc-Payments").Attr("value"); v != "Payment initiation" {
		t.Errorf("role: description kept as %q", v)
	}
	if doc.Find("[data-testid=conflict]").Length() != 0 {
		t.Error("role: the message is also at the top of the page")
	}

	status, doc = postForm(t, c, env.URL+"/references/authorisation-domains",
		url.Values{"Name": {"Payments"}, "Description": {"Again"}, "Status": {"Active"}})
	if status != http.StatusConflict {
		t.Fatalf("domain: status %d, want 409", status)
	}
	in = doc.Find("[data-testid=domain-form] #f-Name")
	if v, _ := in.Attr("aria-invalid"); v != "true" || !strings.Contains(doc.Find("#e-Name").Text(), "Payments") {
		t.Errorf("domain: the name is not marked, or no message beside it: %q", doc.Find("#e-Name").Text())
	}
	if v, _ := doc.Find("[data-testid=domain-form] #f-Description").Attr("value"); v != "Again" {
		t.Errorf("domain: description kept as %q", v)
	}
}

// TestIdentityProviderFormAsksForTheSecretAgain: a new identity provider's
// form refused once (here: a group mapped to SuperUser waits for the tick)
// comes back without the client secret that was typed, since a secret is
// never sent back to the browser. Nothing said so: ticking and saving again
// bound the provider without a secret, a public client its provider
// refuses. The field now asks for it again, and a save that leaves it empty
// is refused once more before it goes on without one.
func TestIdentityProviderFormAsksForTheSecretAgain(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	form := url.Values{"Name": {"kc"}, "Issuer": {op.srv.URL}, "EmailDomains": {"example.com"}, "ClientId": {"console"},
		"ClientSecret": {"s3cret-value"}, "GroupsClaim": {"groups"}, "GroupRoles": {"ops = SuperUser"}, "Status": {"Active"}}
	status, doc := postForm(t, c, env.URL+"/references/identity-providers", form)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", status)
	}
	if h, _ := doc.Html(); strings.Contains(h, "s3cret") {
		t.Fatal("the page holds the secret")
	}
	msg := doc.Find("#e-ClientSecret").Text()
	if v, _ := doc.Find("#f-ClientSecret").Attr("aria-invalid"); v != "true" || !strings.Contains(msg, "again") {
		t.Fatalf("the secret field does not ask for the secret again (%q)", msg)
	}
	// Ticked and sent again with the secret field as the page left it: empty.
	again := browserForm(doc, "/references/identity-providers")
	again.Set("ConfirmSuperUser", "on")
	status, doc = postForm(t, c, env.URL+"/references/identity-providers", again)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("sent again without the secret: status %d, want 422 (bound without its secret)", status)
	}
	if v, _ := doc.Find("#f-ClientSecret").Attr("aria-invalid"); v != "true" {
		t.Error("the second refusal does not name the secret field")
	}
	// Typed again, the tick kept by the page: bound, with its secret.
	again = browserForm(doc, "/references/identity-providers")
	if again.Get("ConfirmSuperUser") != "on" {
		t.Error("the second refusal dropped the Super User tick")
	}
	again.Set("ClientSecret", "s3cret-value")
	if status, doc = postForm(t, c, env.URL+"/references/identity-providers", again); status != http.StatusOK {
		t.Fatalf("with the secret typed again: status %d: %s", status, doc.Find("[role=alert]").Text())
	}
	var raw []byte
	if err := env.DB.SQL().QueryRow(`SELECT client_secret FROM identity_providers WHERE name = 'kc'`).Scan(&raw); err != nil || len(raw) == 0 {
		t.Fatalf("stored secret %q %v", raw, err)
	}
}

// browserForm is what a browser sends for the form posting to action: its
// fields as the page holds them, checkboxes only when ticked.
func browserForm(doc *goquery.Document, action string) url.Values {
	v := url.Values{}
	doc.Find("form[action='" + action + "']").Find("input, textarea, select").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		typ, _ := s.Attr("type")
		if name == "" {
			return
		}
		if typ == "checkbox" || typ == "radio" {
			if _, on := s.Attr("checked"); !on {
				return
			}
		}
		val, _ := s.Attr("value")
		switch {
		case s.Is("textarea"):
			val = s.Text()
		case s.Is("select"):
			val, _ = s.Find("option[selected]").Attr("value")
		case typ == "checkbox" && val == "":
			val = "on"
		}
		v.Add(name, val)
	})
	return v
}

// TestRevocationReasonsReadAsWords: the reasons offered to revoke a
// certificate or key material, and the reason shown once revoked, were the
// wire codes (keycompromise, cessationofoperation). They read as words;
// the values sent stay the codes.
func TestRevocationReasonsReadAsWords(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	_, cert := postPEM(t, a, "/organisations/"+oid+"/certificates/qseal", webtest.ValidCert(t, "p256", "seal.acme.example"))
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	kmPage := env.URL + "/organisations/" + oid + "/key-material/" + km["KeyMaterialID"].(string)
	for _, u := range []string{
		env.URL + "/organisations/" + oid + "/certificates/kid/" + cert["kid"].(string) + "/revoke",
		kmPage,
	} {
		_, doc := page(t, c, u)
		opts := doc.Find("select[name=RevokeReason] option")
		if opts.Length() != 5 {
			t.Fatalf("%s: %d reasons", u, opts.Length())
		}
		opts.Each(func(_ int, o *goquery.Selection) {
			v, _ := o.Attr("value")
			if o.Text() == v || !strings.Contains(o.Text(), " ") && v != "unspecified" && v != "superseded" {
				t.Errorf("%s: the reason %s reads %q", u, v, o.Text())
			}
		})
	}
	status, _ := postForm(t, c, kmPage, url.Values{"Status": {"Revoked"}, "Use": {"sig"}, "RevokeReason": {"keycompromise"}})
	if status != http.StatusOK {
		t.Fatalf("revoke: status %d", status)
	}
	_, doc := page(t, c, kmPage)
	if txt := doc.Find("main dl").Text(); strings.Contains(txt, "keycompromise") || !strings.Contains(txt, "Key compromise") {
		t.Errorf("the revoked key says %q", strings.Join(strings.Fields(txt), " "))
	}
}

// TestPastedPrivateKeyIsNotShownBack: key material or a certificate pasted
// with its private key is refused ("never send a private key"), and the
// refused form showed the private key again in its field, in the page. The
// field comes back empty; the message says why.
func TestPastedPrivateKeyIsNotShownBack(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	privPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	lines := strings.Split(privPEM, "\n")
	body := lines[len(lines)-3] // the last line of the key itself
	jwk, _ := json.Marshal(jose.JSONWebKey{Key: k})
	var members map[string]string
	_ = json.Unmarshal(jwk, &members)
	dValue := members["d"] // the private member of the JWK

	for _, key := range []string{privPEM, string(jwk)} {
		status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/key-material", url.Values{"Key": {key}, "Use": {"sig"}})
		if status != http.StatusUnprocessableEntity || doc.Find("[data-testid=error-Key]").Text() == "" {
			t.Fatalf("key material: status %d, message %q", status, doc.Find("[data-testid=error-Key]").Text())
		}
		if shown := doc.Find("textarea[name=Key]").Text(); strings.Contains(shown, body) || strings.Contains(shown, dValue) {
			t.Errorf("key material: the refused form shows the private key %.20s", key)
		}
	}

	cert := webtest.ValidCert(t, "p256", "seal.acme.example")
	status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/certificates/new/review", url.Values{"type": {"qseal"}, "PEM": {cert + privPEM}})
	if status != http.StatusUnprocessableEntity || !strings.Contains(doc.Text(), "private key") {
		t.Fatalf("certificate: status %d", status)
	}
	if shown := doc.Find("textarea[name=PEM]").Text(); strings.Contains(shown, body) {
		t.Error("certificate: the refused form shows the private key")
	}
}

// TestCertificationsTabLeadsToItsHolders: the organisation's Certifications
// tab said to add a certification "on its holder's page" and linked to
// none: a new organisation's tab was a dead end. It links each application
// and authorisation server to the form that adds one.
func TestCertificationsTabLeadsToItsHolders(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+oid+"/certifications")
	want := "/organisations/" + oid + "/softwarestatements/" + app + "/certifications/new"
	link := doc.Find(`main a[href="` + want + `"]`)
	if link.Length() != 1 || !strings.Contains(link.Text(), "Payments app") {
		t.Fatalf("no link to add a certification to Payments app (%q)", strings.Join(strings.Fields(doc.Find("main").Text()), " "))
	}
}

// TestPolicyEditRefusalStaysInItsEditForm: a refused edit of a role
// metadata policy (a JSON mistake) came back in the New policy form: the
// edit form closed, what was typed and the message under "Add policy",
// whose button adds another policy instead of saving the edit. The edit
// form opens again with them.
func TestPolicyEditRefusalStaysInItsEditForm(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	id := su.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code"]}}}`)["PolicyId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	broken := `{"grant_types": {"subset_of": ["authorization_code"]`
	status, doc := postForm(t, c, env.URL+"/references/role-metadata-policies/"+id,
		url.Values{"DomainRole": {"Payments/AISP"}, "EntityType": {"openid_relying_party"}, "Policy": {broken}, "Status": {"Active"}})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", status)
	}
	edit := doc.Find("#p-" + id)
	if v, _ := edit.Attr("aria-invalid"); v != "true" {
		t.Error("the edit form's policy is not marked invalid")
	}
	if ids, _ := edit.Attr("aria-describedby"); ids == "" || !strings.Contains(doc.Find("#"+strings.Fields(ids)[0]).Text(), "not valid JSON") {
		t.Errorf("no message beside the edit form's policy (%q)", ids)
	}
	if edit.Text() != broken {
		t.Errorf("the edit form's policy holds %q", edit.Text())
	}
	if edit.ParentsFiltered("details[open]").Length() == 0 {
		t.Error("the edit form is closed")
	}
	if v, _ := doc.Find("#r-" + id + " option[selected]").Attr("value"); v != "Payments/AISP" {
		t.Errorf("the edit form's role is %q, want the one sent", v)
	}
	if f := doc.Find("#f-Policy"); f.Text() != "" || f.AttrOr("aria-invalid", "") != "" {
		t.Errorf("the New policy form holds the edit: %q", f.Text())
	}
}

// TestKeyMaterialEditRefusalIsBesideItsField: a refused edit of key
// material (a description too long) showed "At most 500 characters." under
// the key's name, naming no field, and the form came back with the old
// description: what was typed was lost. The message stands beside the
// field, which keeps what was typed.
func TestKeyMaterialEditRefusalIsBesideItsField(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig","Description":"old"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	long := strings.Repeat("y", 501)
	status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/key-material/"+km["KeyMaterialID"].(string),
		url.Values{"Status": {"Active"}, "Use": {"enc"}, "Description": {long}})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", status)
	}
	in := doc.Find("#f-Description")
	if v, _ := in.Attr("aria-invalid"); v != "true" || doc.Find("#e-Description").Text() == "" {
		t.Errorf("no message beside the description (%q)", doc.Find("[data-testid=key-error]").Text())
	}
	if v, _ := in.Attr("value"); v != long {
		t.Errorf("the description shows %.20q, not what was typed", v)
	}
	if v, _ := doc.Find("#f-Use option[selected]").Attr("value"); v != "enc" {
		t.Errorf("Use shows %q, not what was chosen", v)
	}
}

// TestInvitationButtonSaysWhatItDoes: the New Data Administrator form's
// button read "Save", though it sends an invitation by e-mail.
func TestInvitationButtonSaysWhatItDoes(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/references/data-administrators/new")
	if got := strings.TrimSpace(doc.Find("[data-testid=new-data-administrator-form] [data-testid=save]").Text()); got != "Send invitation" {
		t.Errorf("the button reads %q", got)
	}
}

// TestSSARefusalLeadsToTheOrganisation: an application of a Pending
// organisation says no SSA can be generated now, with nothing to click:
// the organisation is set Active on its Details tab, which the message
// now links to.
func TestSSARefusalLeadsToTheOrganisation(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+oid+"/softwarestatements/"+app)
	refused := doc.Find("[data-testid=ssa-refused]")
	if !strings.Contains(refused.Text(), "Pending") {
		t.Fatalf("the refusal says %q", refused.Text())
	}
	if href, _ := refused.Find("a").Attr("href"); href != "/organisations/"+oid {
		t.Errorf("the refusal links to %q, want the organisation's Details", href)
	}
}

// TestCertificateReviewNeverKeepsAPrivateKey: the certificate wizard keeps
// the pasted text in the session (the database) between its review POST
// and the review page, for the session's life; a paste holding a private
// key is refused at the POST and nothing of it is written.
func TestCertificateReviewNeverKeepsAPrivateKey(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	privPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	lines := strings.Split(privPEM, "\n")
	secret := lines[len(lines)-3]
	cert := webtest.ValidCert(t, "p256", "seal.acme.example")
	status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/certificates/new/review", url.Values{"type": {"qseal"}, "PEM": {cert + privPEM}})
	if status != http.StatusUnprocessableEntity || !strings.Contains(doc.Text(), "private key") {
		t.Fatalf("a certificate with its private key: status %d", status)
	}
	rows, err := env.DB.SQL().QueryContext(context.Background(), `SELECT data FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), secret) {
			t.Fatal("the private key was written to the sessions table")
		}
	}
}

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
