package web_test

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

// controlSetup is two Active organisations, each with a signing key in
// its key material, and Olga, Organisation Administrator of A.
type controlSetup struct {
	env          *webtest.Env
	su, olga     *api
	orgA, orgB   string
	keyA, keyB   *ecdsa.PrivateKey
	kidA, kidB   string
	rpMetadata   map[string]any
	anchorEntity string
}

func newControlSetup(t *testing.T) controlSetup {
	env := webtest.Start(t, nil)
	c := controlSetup{env: env, su: newAPI(t, env, "admin@example.com"), anchorEntity: env.URL,
		rpMetadata: map[string]any{"openid_relying_party": map[string]any{"client_name": "RP"}}}
	org := func(name string) (string, *ecdsa.PrivateKey, string) {
		oid := c.su.must(201, "POST", "/organisations", `{"OrganisationName":"`+name+`","RegistrationNumber":"R-`+name+`","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
		key := mustKey(t, "p256").(*ecdsa.PrivateKey)
		pub, _ := json.Marshal(jose.JSONWebKey{Key: key.Public(), KeyID: "sig-" + name})
		kid := c.su.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["Kid"].(string)
		return oid, key, kid
	}
	c.orgA, c.keyA, c.kidA = org("Alpha")
	c.orgB, c.keyB, c.kidB = org("Betazed")
	mustInviteOrgAdmin(t, env, "olga@alpha.example", c.orgA)
	c.olga = newAPI(t, env, "olga@alpha.example")
	return c
}

// refusedEntityID asserts a 422 naming FederationEntityId with want in
// its message.
func refusedEntityID(t *testing.T, r *http.Response, m map[string]any, want string) {
	t.Helper()
	if msg := fieldsOf(m)["FederationEntityId"]; r.StatusCode != 422 || !strings.Contains(msg, want) {
		t.Fatalf("want 422 on FederationEntityId saying %q: %d %v", want, r.StatusCode, m)
	}
}

// TestOrgAdminCannotClaimAnotherOrganisationsEntityID: an Organisation
// Administrator giving an application or a server the entity ID of an
// entity signed with another organisation's key is refused, and nothing is
// written: the other organisation can still register it (docs/design.md
// §19, the directory vouches for what it lists).
func TestOrgAdminCannotClaimAnotherOrganisationsEntityID(t *testing.T) {
	c := newControlSetup(t)
	bLeaf := newLeaf(t, c.keyB, c.kidB, c.rpMetadata, c.anchorEntity)
	r, m := c.olga.do("POST", "/organisations/"+c.orgA+"/softwarestatements", `{"ClientName":"Squat","FederationEntityId":"`+bLeaf.srv.URL+`"}`)
	refusedEntityID(t, r, m, "signed with one of the organisation's signing keys")
	if !strings.Contains(fieldsOf(m)["FederationEntityId"], "key of the organisation's key material") {
		t.Fatalf("the refusal should say which key it wanted: %v", m)
	}
	aIssuer := newLeaf(t, c.keyA, c.kidA, map[string]any{"openid_provider": map[string]any{}}, c.anchorEntity)
	r, m = c.olga.do("POST", "/organisations/"+c.orgA+"/authorisationservers", `{"CustomerFriendlyName":"Squat","Issuer":"`+aIssuer.srv.URL+`","FederationEntityId":"`+bLeaf.srv.URL+`"}`)
	refusedEntityID(t, r, m, "signed with one of the organisation's signing keys")
	if apps := c.su.must(200, "GET", "/organisations/"+c.orgA+"/softwarestatements", ""); len(apps["list"].([]any)) != 0 {
		t.Fatalf("a refused application was written: %v", apps)
	}
	if code, _, _ := fedGet(t, c.env, "/federation/fetch?sub="+url.QueryEscape(bLeaf.srv.URL)); code != 404 {
		t.Fatalf("the anchor vouches for a refused entity ID: %d", code)
	}
	mustInviteOrgAdmin(t, c.env, "bert@bz.example", c.orgB)
	bert := newAPI(t, c.env, "bert@bz.example")
	bert.must(201, "POST", "/organisations/"+c.orgB+"/softwarestatements", `{"ClientName":"B RP","FederationEntityId":"`+bLeaf.srv.URL+`"}`)
}

// TestOrgAdminEntityIDMustNameThisDirectory: signed with the
// organisation's own key but naming another authority, or not answering,
// the entity ID is refused with what was found.
func TestOrgAdminEntityIDMustNameThisDirectory(t *testing.T) {
	c := newControlSetup(t)
	elsewhere := newLeaf(t, c.keyA, c.kidA, c.rpMetadata, "https://another-anchor.example")
	r, m := c.olga.do("POST", "/organisations/"+c.orgA+"/softwarestatements", `{"ClientName":"RP","FederationEntityId":"`+elsewhere.srv.URL+`"}`)
	refusedEntityID(t, r, m, "authority_hints do not name "+c.anchorEntity)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	r, m = c.olga.do("POST", "/organisations/"+c.orgA+"/softwarestatements", `{"ClientName":"RP","FederationEntityId":"`+gone.URL+`"}`)
	refusedEntityID(t, r, m, "The directory found: nothing could be fetched there.")
	notServed := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notServed.Close)
	r, m = c.olga.do("POST", "/organisations/"+c.orgA+"/softwarestatements", `{"ClientName":"RP","FederationEntityId":"`+notServed.URL+`"}`)
	refusedEntityID(t, r, m, "The directory found: the address answered HTTP 404 (nothing is published there yet).")
}

// TestOrgAdminEntityIDOfTheirOwn: an entity configuration signed with the
// organisation's key and naming this directory is enough; the anchor then
// vouches for it. Saved again unchanged, it is not fetched again; changed
// to another organisation's, refused and kept.
func TestOrgAdminEntityIDOfTheirOwn(t *testing.T) {
	c := newControlSetup(t)
	own := newLeaf(t, c.keyA, c.kidA, c.rpMetadata, c.anchorEntity)
	app := c.olga.must(201, "POST", "/organisations/"+c.orgA+"/softwarestatements", `{"ClientName":"A RP","FederationEntityId":"`+own.srv.URL+`"}`)
	aid := app["SoftwareStatementId"].(string)
	if code, _, body := fedGet(t, c.env, "/federation/fetch?sub="+url.QueryEscape(own.srv.URL)); code != 200 {
		t.Fatalf("fetch: %d %s", code, body)
	}
	bLeaf := newLeaf(t, c.keyB, c.kidB, c.rpMetadata, c.anchorEntity)
	r, m := c.olga.do("PUT", "/organisations/"+c.orgA+"/softwarestatements/"+aid, `{"ClientName":"A RP","Status":"Active","FederationEntityId":"`+bLeaf.srv.URL+`"}`)
	refusedEntityID(t, r, m, "signed with one of the organisation's signing keys")
	if got := c.su.must(200, "GET", "/organisations/"+c.orgA+"/softwarestatements/"+aid, ""); got["FederationEntityId"] != own.srv.URL {
		t.Fatalf("a refused change was written: %v", got)
	}
	own.srv.Close() // unchanged, the ID is not fetched again
	saved := c.olga.must(200, "PUT", "/organisations/"+c.orgA+"/softwarestatements/"+aid, `{"ClientName":"A RP renamed","Status":"Active","FederationEntityId":"`+own.srv.URL+`"}`)
	if saved["ClientName"] != "A RP renamed" || saved["FederationEntityId"] != own.srv.URL {
		t.Fatalf("saved: %v", saved)
	}
	srvLeaf := newLeaf(t, c.keyA, c.kidA, map[string]any{"openid_provider": map[string]any{}}, c.anchorEntity)
	c.olga.must(201, "POST", "/organisations/"+c.orgA+"/authorisationservers", `{"CustomerFriendlyName":"A OP","Issuer":"`+srvLeaf.srv.URL+`","FederationEntityId":"`+srvLeaf.srv.URL+`"}`)
}

// TestDirectoryAdministratorsSetAnyEntityID: the operator's administrators
// vouch for what they register; the ID need not be reachable when saved
// (docs/design.md §13), as before.
func TestDirectoryAdministratorsSetAnyEntityID(t *testing.T) {
	c := newControlSetup(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	c.su.must(201, "POST", "/organisations/"+c.orgA+"/softwarestatements", `{"ClientName":"RP","FederationEntityId":"`+gone.URL+`"}`)
}

// TestOrgAdminEntityIDRefusedBesideTheField: in the console the refusal
// is beside the field, in plain words, and the application is not added.
func TestOrgAdminEntityIDRefusedBesideTheField(t *testing.T) {
	c := newControlSetup(t)
	bLeaf := newLeaf(t, c.keyB, c.kidB, c.rpMetadata, c.anchorEntity)
	browser := webtest.Browser()
	if resp := webtest.SignIn(t, browser, c.env.URL, "olga@alpha.example"); resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	form := url.Values{"ClientName": {"Squat"}, "FederationEntityId": {bLeaf.srv.URL}}
	code, doc := postForm(t, browser, c.env.URL+"/organisations/"+c.orgA+"/softwarestatements", form)
	beside := doc.Find("#e-FederationEntityId").Text()
	if code != 422 || !strings.Contains(beside, "Before this entity ID is yours to use") || !strings.Contains(beside, "/.well-known/openid-federation") || strings.Contains(beside, "openid-federation:") {
		html, _ := doc.Html()
		t.Fatalf("console refusal beside the field: %d %q\n%s", code, beside, html)
	}
	if apps := c.su.must(200, "GET", "/organisations/"+c.orgA+"/softwarestatements", ""); len(apps["list"].([]any)) != 0 {
		t.Fatalf("a refused application was written: %v", apps)
	}
}

// certNaming is a self-signed certificate valid for a year whose subject
// has O org (none when "").
func certNaming(t *testing.T, org string) string {
	t.Helper()
	key := mustKey(t, "p256")
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	subject := pkix.Name{CommonName: "seal.example", Country: []string{"GB"}}
	if org != "" {
		subject.Organization = []string{org}
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: subject, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestOrgAdminUploadsOnlyCertificatesNamingTheirOrganisation: a
// certificate's kid is unique across the directory, so an Organisation
// Administrator uploading another organisation's certificate would lock
// its holder out. Theirs must name their organisation in O; refused, it
// is not kept, and its holder uploads it. The directory's administrators
// upload any (docs/design.md §19).
func TestOrgAdminUploadsOnlyCertificatesNamingTheirOrganisation(t *testing.T) {
	c := newControlSetup(t)
	betazeds := certNaming(t, "Betazed")
	r, m := postPEM(t, c.olga, "/organisations/"+c.orgA+"/certificates/qseal", betazeds)
	// What to do must hold without the directory's CA (no CSR is issued
	// on the Certificates tab then).
	if msg := fieldsOf(m)["PEM"]; r.StatusCode != 422 || !strings.Contains(msg, `names O "Betazed"`) || !strings.Contains(msg, `"Alpha"`) ||
		strings.Contains(msg, "Certificates tab") || !strings.Contains(msg, "ask the directory's administrators to upload this one") {
		t.Fatalf("another organisation's certificate: %d %v", r.StatusCode, m)
	}
	r, m = postPEM(t, c.olga, "/organisations/"+c.orgA+"/certificates/qseal", certNaming(t, ""))
	if msg := fieldsOf(m)["PEM"]; r.StatusCode != 422 || !strings.Contains(msg, "has no O") {
		t.Fatalf("a certificate naming no organisation: %d %v", r.StatusCode, m)
	}
	if l := c.su.must(200, "GET", "/organisations/"+c.orgA+"/certificates", ""); len(l["list"].([]any)) != 0 {
		t.Fatalf("a refused certificate was kept: %v", l)
	}
	// The upload page's CSR command names the organisation as it must.
	browser := webtest.Browser()
	webtest.SignIn(t, browser, c.env.URL, "olga@alpha.example").Body.Close()
	if _, doc := page(t, browser, c.env.URL+"/organisations/"+c.orgA+"/certificates/new?step=type&type=qseal"); !strings.Contains(doc.Find("[data-testid=openssl]").Text(), `-subj '/C=GB/O=Alpha/CN=your.host.example'`) {
		t.Fatalf("the CSR command: %q", doc.Find("[data-testid=openssl]").Text())
	}
	// The wizard says so when the PEM is read, not after its review.
	status, doc := postForm(t, browser, c.env.URL+"/organisations/"+c.orgA+"/certificates/new/review", url.Values{"type": {"qseal"}, "PEM": {betazeds}})
	if msg := doc.Find("[data-testid=error-PEM]").Text(); status != 422 || !strings.Contains(msg, `names O "Betazed"`) {
		t.Fatalf("the wizard's first step: %d %q", status, msg)
	}
	if status, _ := postForm(t, browser, c.env.URL+"/organisations/"+c.orgA+"/certificates/new/review", url.Values{"type": {"qseal"}, "PEM": {certNaming(t, "Alpha")}}); status != 200 {
		t.Fatalf("their own certificate's review: %d", status)
	}
	mustInviteOrgAdmin(t, c.env, "bert@bz.example", c.orgB)
	bert := newAPI(t, c.env, "bert@bz.example")
	if r, m := postPEM(t, bert, "/organisations/"+c.orgB+"/certificates/qseal", betazeds); r.StatusCode != 201 {
		t.Fatalf("its holder: %d %v", r.StatusCode, m)
	}
	if r, m := postPEM(t, c.olga, "/organisations/"+c.orgA+"/certificates/qseal", certNaming(t, " alpha ")); r.StatusCode != 201 {
		t.Fatalf("their own (O in another letter case): %d %v", r.StatusCode, m)
	}
	c.su.must(200, "PUT", "/organisations/"+c.orgA, `{"OrganisationName":"Alpha","LegalEntityName":"Alpha Holdings Ltd","RegistrationNumber":"R-Alpha","CountryOfRegistration":"GB","Status":"Active"}`)
	if r, m := postPEM(t, c.olga, "/organisations/"+c.orgA+"/certificates/qseal", certNaming(t, "Alpha Holdings Ltd")); r.StatusCode != 201 {
		t.Fatalf("their own (the legal name): %d %v", r.StatusCode, m)
	}
	if r, m := postPEM(t, c.su, "/organisations/"+c.orgA+"/certificates/qseal", certNaming(t, "")); r.StatusCode != 201 {
		t.Fatalf("a directory administrator's upload: %d %v", r.StatusCode, m)
	}
}

// issuerProblem is the first problem on Issuer of a refusal.
func issuerProblem(m map[string]any) string {
	errs, _ := m["errors"].([]any)
	for _, e := range errs {
		if p, _ := e.(map[string]any); p["field"] == "Issuer" {
			return p["message"].(string)
		}
	}
	return ""
}

// TestOrgAdminCannotClaimAnotherOrganisationsIssuer: an issuer is unique
// across the directory and its discovery document naming itself proves no
// owner, so an Organisation Administrator's new or changed issuer must
// publish one of their organisation's keys at its jwks_uri; refused, the
// issuer stays free for its owner. Unchanged, its keys are not asked again;
// the directory's administrators register any (docs/design.md §19).
func TestOrgAdminCannotClaimAnotherOrganisationsIssuer(t *testing.T) {
	c := newControlSetup(t)
	op := map[string]any{"openid_provider": map[string]any{}}
	bIssuer := newLeaf(t, c.keyB, c.kidB, op, c.anchorEntity)
	r, m := c.olga.do("POST", "/organisations/"+c.orgA+"/authorisationservers", `{"CustomerFriendlyName":"Squat","Issuer":"`+bIssuer.srv.URL+`"}`)
	if r.StatusCode != 422 || !strings.Contains(issuerProblem(m), "None of the keys this issuer publishes") {
		t.Fatalf("another organisation's issuer: %d %v", r.StatusCode, m)
	}
	if l := c.su.must(200, "GET", "/organisations/"+c.orgA+"/authorisationservers", ""); len(l["list"].([]any)) != 0 {
		t.Fatalf("a refused server was written: %v", l)
	}
	mustInviteOrgAdmin(t, c.env, "bert@bz.example", c.orgB)
	bert := newAPI(t, c.env, "bert@bz.example")
	bert.must(201, "POST", "/organisations/"+c.orgB+"/authorisationservers", `{"CustomerFriendlyName":"B OP","Issuer":"`+bIssuer.srv.URL+`"}`)
	// Now B's: taken, and the refusal says what Olga can do about it.
	r, m = c.olga.do("POST", "/organisations/"+c.orgA+"/authorisationservers", `{"CustomerFriendlyName":"Squat","Issuer":"`+bIssuer.srv.URL+`"}`)
	if p := issuerProblem(m); r.StatusCode != 422 || !strings.Contains(p, "already has this issuer") || !strings.Contains(p, "ask the directory's administrators") {
		t.Fatalf("B's registered issuer: %d %v", r.StatusCode, m)
	}

	aIssuer := newLeaf(t, c.keyA, c.kidA, op, c.anchorEntity)
	srv := c.olga.must(201, "POST", "/organisations/"+c.orgA+"/authorisationservers", `{"CustomerFriendlyName":"A OP","Issuer":"`+aIssuer.srv.URL+`"}`)
	sid := srv["AuthorisationServerId"].(string)
	other := newLeaf(t, mustKey(t, "p256").(*ecdsa.PrivateKey), "stranger", op, c.anchorEntity)
	r, m = c.olga.do("PUT", "/organisations/"+c.orgA+"/authorisationservers/"+sid, `{"CustomerFriendlyName":"A OP","Status":"Active","Issuer":"`+other.srv.URL+`"}`)
	if r.StatusCode != 422 || !strings.Contains(issuerProblem(m), "None of the keys") {
		t.Fatalf("changed to an issuer publishing none of A's keys: %d %v", r.StatusCode, m)
	}
	saved := c.olga.must(200, "PUT", "/organisations/"+c.orgA+"/authorisationservers/"+sid, `{"CustomerFriendlyName":"A OP renamed","Status":"Active","Issuer":"`+aIssuer.srv.URL+`"}`)
	if saved["Issuer"] != aIssuer.srv.URL || saved["CustomerFriendlyName"] != "A OP renamed" {
		t.Fatalf("saved: %v", saved)
	}
	c.su.must(201, "POST", "/organisations/"+c.orgA+"/authorisationservers", `{"CustomerFriendlyName":"Operator's","Issuer":"`+other.srv.URL+`"}`)
}
