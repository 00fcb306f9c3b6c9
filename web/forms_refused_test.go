package web_test

import (
	"crypto/ecdsa"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

// These tests pin the rule of docs/design.md for console forms: a refused
// input comes back as the same form, the message beside its field (with
// aria-invalid and aria-describedby on the field), what else was typed
// kept, and nothing saved. Before, the forms below answered a whole error
// page naming the field, and what was typed was lost.

// TestClaimFormRefusalIsShownBesideItsField: the Roles tab's claim form
// with a control character in RegistrationId answered a 422 error page.
func TestClaimFormRefusalIsShownBesideItsField(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme Bank"))["OrganisationId"].(string)
	newAPIWithInvite(t, env, su, "dana@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "dana@example.com").Body.Close()

	status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/authority-claims",
		url.Values{"AuthorityId": {auth}, "DomainRole": {"Payments/PISP"}, "RegistrationId": {"a\ab"}, "Status": {"Active"}})
	besideField(t, "claim", status, http.StatusUnprocessableEntity, doc, "RegistrationId",
		map[string]string{"AuthorityId": auth, "DomainRole": "Payments/PISP", "RegistrationId": "a\ab"})
	if l := su.must(200, "GET", "/organisations/"+oid+"/authority-claims", "")["list"].([]any); len(l) != 0 {
		t.Fatalf("saved despite the refusal: %v", l)
	}
}

// TestCertificationFormRefusalIsShownBesideItsField: the certification
// dialog with a control character in the URI answered a 422 error page.
func TestCertificationFormRefusalIsShownBesideItsField(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Live app"}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	path := "/organisations/" + oid + "/softwarestatements/" + app + "/certifications"
	status, doc := postForm(t, c, env.URL+path, url.Values{"CertificationType": {"FAPI"}, "CertificationStartDate": {"2026-03-01"},
		"CertificationExpirationDate": {"2027-03-01"}, "CertificationURI": {"https://c.example/\a"}, "Status": {"Active"}})
	besideField(t, "certification", status, http.StatusUnprocessableEntity, doc, "CertificationURI",
		map[string]string{"CertificationType": "FAPI", "CertificationStartDate": "2026-03-01", "CertificationExpirationDate": "2027-03-01", "CertificationURI": "https://c.example/\a"})
	if l := su.must(200, "GET", path, "")["list"].([]any); len(l) != 0 {
		t.Fatalf("saved despite the refusal: %v", l)
	}
}

// TestInvitationFormsRefusalIsShownBesideTheEmail: the Super User and
// Data Administrator forms with a control character in the e-mail address
// answered a 422 error page.
func TestInvitationFormsRefusalIsShownBesideTheEmail(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	status, doc := postForm(t, c, env.URL+"/references/super-users", url.Values{"Email": {"ann\a@example.com"}, "Status": {"Inactive"}})
	besideField(t, "Super User", status, http.StatusUnprocessableEntity, doc, "Email", map[string]string{"Email": "ann\a@example.com", "Status": "Inactive"})
	if l := su.must(200, "GET", "/users/super", ""); len(l["list"].([]any)) != 1 {
		t.Fatalf("saved despite the refusal: %v", l)
	}

	status, doc = postForm(t, c, env.URL+"/references/data-administrators", url.Values{"Email": {"dana\a@example.com"}})
	besideField(t, "Data Administrator", status, http.StatusUnprocessableEntity, doc, "Email", map[string]string{"Email": "dana\a@example.com"})
	if l := su.must(200, "GET", "/users/data-administrators", ""); len(l["list"].([]any)) != 0 {
		t.Fatalf("saved despite the refusal: %v", l)
	}
}

// TestRevokeReasonRefusalIsShownBesideIt: a refused revocation reason (one
// not in the list; one with a control character) answered a flash on the
// Certificates tab or a 422 error page; the confirmation page comes back
// with the message beside the reason, and nothing is revoked.
func TestRevokeReasonRefusalIsShownBesideIt(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/certificates/"
	kid := su.must(201, "POST", base+"qseal", mustMarshal(map[string]string{"PEM": webtest.ValidCert(t, "p256", "acme.example")}))["kid"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, reason := range []string{"tired", "superseded\a"} {
		status, doc := postForm(t, c, env.URL+base+"kid/"+kid+"/revoke", url.Values{"RevokeReason": {reason}})
		besideField(t, "revoke "+reason, status, http.StatusUnprocessableEntity, doc, "RevokeReason", nil)
		if doc.Find("[data-testid=revoke-form]").Length() != 1 {
			t.Errorf("revoke %q: the confirmation form is not shown again", reason)
		}
	}
	if got := su.must(200, "GET", base+"kid/"+kid, ""); got["Status"] == "Revoked" || got["RevokeReason"] != nil && got["RevokeReason"] != "" {
		t.Fatalf("revoked despite the refusal: %v", got)
	}
	// A reason from the list still revokes.
	if status, _ := postForm(t, c, env.URL+base+"kid/"+kid+"/revoke", url.Values{"RevokeReason": {"superseded"}}); status != http.StatusOK {
		t.Fatalf("revoke: %d", status)
	}
	if got := su.must(200, "GET", base+"kid/"+kid, ""); got["RevokeReason"] != "superseded" {
		t.Fatalf("not revoked: %v", got)
	}
}

// TestRowButtonRefusalIsShownOnItsList: the Enable/Disable buttons of a
// reference type's and of a flag's row post hidden fields; a refused one
// (a control character, a changed name) answered a 422 error page. Nothing
// was typed, so the list page comes back, 422, with the refusal at its
// top naming the row, and nothing is changed.
func TestRowButtonRefusalIsShownOnItsList(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/references/contact-types", `{"Name":"Ops","Description":"operations"}`)
	flag := su.must(201, "POST", "/references/flags", `{"Name":"Watch","Description":"watched","Type":"Organisation"}`)["FlagId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, tc := range []struct {
		what, path, rows, want string
		form                   url.Values
	}{
		{"reference type description", "/references/contact-types/Ops", "reference-row", "Ops", url.Values{"Description": {"oper\aations"}, "Status": {"Inactive"}}},
		{"reference type name", "/references/contact-types/Ops", "reference-row", "cannot change", url.Values{"Name": {"Other"}, "Description": {"operations"}, "Status": {"Inactive"}}},
		{"flag name", "/references/flags/" + flag, "flag-row", "Watch", url.Values{"Name": {"Wat\ach"}, "Description": {"watched"}, "Type": {"Organisation"}, "Status": {"Inactive"}}},
	} {
		status, doc := postForm(t, c, env.URL+tc.path, tc.form)
		flash := doc.Find("[data-testid=flash]")
		if status != http.StatusUnprocessableEntity || doc.Find("[data-testid="+tc.rows+"]").Length() == 0 {
			t.Errorf("%s: %d, want 422 and the list; page %q", tc.what, status, doc.Find("main").Text())
			continue
		}
		if !flash.HasClass("tf-flash-error") || !strings.Contains(flash.Text(), "Not changed") || !strings.Contains(flash.Text(), tc.want) {
			t.Errorf("%s: the message at the top is %q (class %q)", tc.what, flash.Text(), flash.AttrOr("class", ""))
		}
	}
	if it := su.must(200, "GET", "/references/contact-types/Ops", ""); it["Status"] != "Active" || it["Description"] != "operations" {
		t.Errorf("the contact type changed: %v", it)
	}
	if f := su.must(200, "GET", "/references/flags/"+flag, ""); f["Status"] != "Active" || f["Name"] != "Watch" {
		t.Errorf("the flag changed: %v", f)
	}
}

// TestAdminStatusButtonRefusalIsShownOnItsList: the Deactivate/Reactivate
// buttons of Super Users and Data Administrators post a hidden Status; a
// refused one answered a 422 error page. The list comes back, 422, with
// the refusal at its top naming the row, and nothing is changed.
func TestAdminStatusButtonRefusalIsShownOnItsList(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/users/super", `{"Email":"ann@example.com","Status":"Active"}`)
	su.must(201, "POST", "/users/data-administrators", `{"Email":"dana@example.com"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, tc := range []struct{ what, path, rows, status string }{
		{"Super User", "/references/super-users/ann@example.com", "super-user-row", "Inac\ative"},
		{"Super User", "/references/super-users/ann@example.com", "super-user-row", "Gone"},
		{"Data Administrator", "/references/data-administrators/dana@example.com", "data-administrator-row", "Inac\ative"},
	} {
		status, doc := postForm(t, c, env.URL+tc.path, url.Values{"Status": {tc.status}})
		flash := doc.Find("[data-testid=flash]")
		if status != http.StatusUnprocessableEntity || doc.Find("[data-testid="+tc.rows+"]").Length() == 0 {
			t.Errorf("%s %q: %d, want 422 and the list; page %q", tc.what, tc.status, status, doc.Find("main").Text())
			continue
		}
		if !flash.HasClass("tf-flash-error") || !strings.Contains(flash.Text(), "Not changed") || !strings.Contains(flash.Text(), "@example.com") {
			t.Errorf("%s %q: the message at the top is %q", tc.what, tc.status, flash.Text())
		}
	}
	if u := su.must(200, "GET", "/users/super/ann@example.com", ""); u["Status"] != "Active" {
		t.Errorf("the Super User changed: %v", u)
	}
	if a := su.must(200, "GET", "/users/data-administrators/dana@example.com", ""); a["Status"] == "Inactive" {
		t.Errorf("the Data Administrator changed: %v", a)
	}
}

// TestKeyMaterialEditTextRuleIsBesideItsField: the key material edit form
// with a control character in the description answered a 422 error page
// (a description too long was already shown beside the field).
func TestKeyMaterialEditTextRuleIsBesideItsField(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := su.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig","Description":"old"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	path := "/organisations/" + oid + "/key-material/" + km["KeyMaterialID"].(string)
	status, doc := postForm(t, c, env.URL+path, url.Values{"Status": {"Active"}, "Use": {"enc"}, "Description": {"ne\aw"}})
	besideField(t, "key material", status, http.StatusUnprocessableEntity, doc, "Description", map[string]string{"Use": "enc", "Description": "ne\aw"})
	if got := su.must(200, "GET", path, ""); got["Description"] != "old" || got["Use"] != "sig" {
		t.Fatalf("saved despite the refusal: %v", got)
	}
}

// TestAttachmentFormsRefusalIsShownBesideTheField: the key material page's
// Attach form and a row's description edit answered a refused description
// (a control character) or a missing file with a 422 error page. The page
// comes back with the message beside the field and the description typed.
func TestAttachmentFormsRefusalIsShownBesideTheField(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	kmID := su.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["KeyMaterialID"].(string)
	path := "/organisations/" + oid + "/key-material/" + kmID
	r, att := su.multipart("POST", path+"/attachments", "policy.txt", []byte("policy"), "first")
	if r.StatusCode != 201 {
		t.Fatalf("attach: %d %v", r.StatusCode, att)
	}
	aid := att["KeyMaterialAttachmentID"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	send := func(u, fileName string, content []byte, desc string) (int, *goquery.Document) {
		t.Helper()
		ct, body := multipartBody(t, fileName, content, desc)
		resp, err := c.Post(env.URL+u, ct, body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, docOf(t, resp)
	}
	beside := func(what string, status int, doc *goquery.Document, input, msgID, value string) {
		t.Helper()
		in := doc.Find("#" + input)
		if status != http.StatusUnprocessableEntity || doc.Find("[data-testid=error-"+msgID+"]").Text() == "" {
			t.Errorf("%s: %d, want 422 and a message beside the field; page %q", what, status, doc.Find("main").Text())
		}
		if in.AttrOr("aria-invalid", "") != "true" || in.AttrOr("aria-describedby", "") != msgID {
			t.Errorf("%s: the field is not marked invalid: %q %q", what, in.AttrOr("aria-invalid", ""), in.AttrOr("aria-describedby", ""))
		}
		if value != "" && in.AttrOr("value", "") != value {
			t.Errorf("%s: the field shows %q, not %q", what, in.AttrOr("value", ""), value)
		}
	}

	status, doc := send(path+"/attachments", "more.txt", []byte("more"), "sec\aond")
	beside("attach, description", status, doc, "att-desc", "att-desc-error", "sec\aond")
	status, doc = send(path+"/attachments", "", nil, "second")
	beside("attach, no file", status, doc, "att-file", "att-file-error", "")
	if v := doc.Find("#att-desc").AttrOr("value", ""); v != "second" {
		t.Errorf("attach, no file: the description shows %q", v)
	}
	status, doc = send(path+"/attachments/"+aid, "", nil, "edi\ated")
	beside("row edit", status, doc, "desc-"+aid, "desc-"+aid+"-error", "edi\ated")

	if l := su.must(200, "GET", path+"/attachments", "")["list"].([]any); len(l) != 1 || l[0].(map[string]any)["Description"] != "first" {
		t.Fatalf("saved despite the refusals: %v", l)
	}
}

// TestClaimButtonRefusalIsSaidOnTheTab: a claim row's Set Inactive/Active
// button with a refused Status answered a 422 error page (a control
// character) or the Roles tab with no message shown (a status not in the
// list). The tab comes back, 422, with the refusal at its top naming the
// role, and the claim is unchanged.
func TestClaimButtonRefusalIsSaidOnTheTab(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme Bank"))["OrganisationId"].(string)
	claim := grant(t, su, oid, auth, "Payments", "PISP")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, st := range []string{"Inac\ative", "Gone"} {
		status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/authority-claims/"+claim, url.Values{"Status": {st}})
		flash := doc.Find("[data-testid=flash]")
		if status != http.StatusUnprocessableEntity || doc.Find("[data-testid=claim-row]").Length() != 1 {
			t.Errorf("%q: %d, want 422 and the tab; page %q", st, status, doc.Find("main").Text())
			continue
		}
		if !flash.HasClass("tf-flash-error") || !strings.Contains(flash.Text(), "Not changed") || !strings.Contains(flash.Text(), "PISP") {
			t.Errorf("%q: the message at the top is %q", st, flash.Text())
		}
	}
	if got := su.must(200, "GET", "/organisations/"+oid+"/authority-claims/"+claim, ""); got["Status"] != "Active" {
		t.Fatalf("the claim changed: %v", got)
	}
}

// TestStatusButtonTextRuleIsAFlash: the status buttons of an organisation
// and of an application say a refusal as a message at the top of the page
// (Base.Refused); a Status the text rule refuses answered a 422 error page
// instead. It is now said like the others, and nothing is changed.
func TestStatusButtonTextRuleIsAFlash(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Live app"}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, path := range []string{"/organisations/" + oid + "/status", "/organisations/" + oid + "/softwarestatements/" + app + "/status"} {
		status, doc := postForm(t, c, env.URL+path, url.Values{"Status": {"Inac\ative"}})
		flash := doc.Find("[data-testid=flash]")
		if status != http.StatusOK || !flash.HasClass("tf-flash-error") || !strings.Contains(flash.Text(), "Not changed") || !strings.Contains(flash.Text(), "Status") {
			t.Errorf("%s: %d, message %q; page %q", path, status, flash.Text(), doc.Find("main").Text())
		}
	}
	if got := su.must(200, "GET", "/organisations/"+oid, ""); got["Status"] != "Pending" {
		t.Errorf("the organisation changed: %v", got["Status"])
	}
	if got := su.must(200, "GET", "/organisations/"+oid+"/softwarestatements/"+app, ""); got["Status"] != "Active" {
		t.Errorf("the application changed: %v", got["Status"])
	}
}

// TestRotateKeyRefusalIsSaidOnThePage: Reference Data > Signing keys'
// rotate form with an algorithm not in its list (or with a control
// character) answered a 422 error page; the page comes back, 422, with the
// refusal above the forms, and no key is made.
func TestRotateKeyRefusalIsSaidOnThePage(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	before := len(su.must(200, "GET", "/references/signing-keys", "")["list"].([]any))
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, alg := range []string{"HS256", "PS\a256"} {
		status, doc := postForm(t, c, env.URL+"/references/signing-keys", url.Values{"alg": {alg}})
		if msg := doc.Find("[data-testid=keys-error]").Text(); status != http.StatusUnprocessableEntity || !strings.Contains(msg, "alg") ||
			doc.Find("#rotate-alg").Length() != 1 {
			t.Errorf("%q: %d, message %q; page %q", alg, status, msg, doc.Find("main").Text())
		}
	}
	if after := len(su.must(200, "GET", "/references/signing-keys", "")["list"].([]any)); after != before {
		t.Fatalf("a key was made despite the refusal: %d, was %d", after, before)
	}
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
