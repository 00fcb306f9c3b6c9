package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/handlers/openapi"
	"github.com/trustframe/trustframe/web/webtest"
	"github.com/trustframe/trustframe/web/webtest/apiclient"
)

// TestGeneratedClientIsCurrent: web/webtest/apiclient was generated from
// the description as it is now.
func TestGeneratedClientIsCurrent(t *testing.T) {
	sum := sha256.Sum256(openapi.Spec("2.6.0"))
	if got := hex.EncodeToString(sum[:]); got != apiclient.SpecSHA256 {
		t.Fatalf("the generated client is older than the description: run go generate ./web/webtest/apiclient (%s != %s)", got, apiclient.SpecSHA256)
	}
}

// TestGeneratedClientAgainstTheServer: a client generated from the OpenAPI
// description (oapi-codegen) lists, creates and reads organisations, adds
// a contact and an application, gets the application's SSA and reads a
// problem, against the real server, decoding every answer into its types.
func TestGeneratedClientAgainstTheServer(t *testing.T) {
	env := webtest.Start(t, nil)
	c := generatedClient(t, env, "admin@example.com")
	ctx := context.Background()
	str := func(s string) *string { return &s }

	active := apiclient.OrganisationStatusActive
	orgIn := apiclient.OrganisationInput{
		OrganisationName: "Generated Bank", RegistrationNumber: "GEN-1", CountryOfRegistration: "GB", City: str("London"), Status: &active}
	key := &apiclient.CreateOrganisationParams{IdempotencyKey: str("generated-client-1")}
	created, err := c.CreateOrganisationWithResponse(ctx, key, orgIn)
	if err != nil {
		t.Fatal(err)
	}
	// A retry with the same Idempotency-Key answers the first result and creates nothing.
	again, err := c.CreateOrganisationWithResponse(ctx, key, orgIn)
	if err != nil {
		t.Fatal(err)
	}
	if again.StatusCode() != 201 || again.JSON201 == nil || created.JSON201 == nil || *again.JSON201.OrganisationId != *created.JSON201.OrganisationId ||
		again.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: %d %s", again.StatusCode(), again.Body)
	}
	if created.StatusCode() != 201 || created.JSON201 == nil || created.JSON201.OrganisationId == nil {
		t.Fatalf("create: %d %s", created.StatusCode(), created.Body)
	}
	org := created.JSON201
	if org.OrganisationName != "Generated Bank" || org.City != "London" || org.Status != apiclient.OrganisationStatusActive || created.Headers201 == nil {
		t.Fatalf("created: %+v", org)
	}
	id := *org.OrganisationId

	list, err := c.ListOrganisationsWithResponse(ctx, &apiclient.ListOrganisationsParams{Q: str("Generated")})
	if err != nil || list.JSON200 == nil {
		t.Fatalf("list: %v %s", err, list.Body)
	}
	if list.JSON200.TotalSize != 1 || len(list.JSON200.Content) != 1 || *list.JSON200.Content[0].OrganisationId != id {
		t.Fatalf("list: %+v", list.JSON200)
	}

	got, err := c.GetOrganisationWithResponse(ctx, id)
	if err != nil || got.JSON200 == nil || got.JSON200.RegistrationNumber != "GEN-1" {
		t.Fatalf("get: %v %s", err, got.Body)
	}

	contact, err := c.CreateContactWithResponse(ctx, id, nil, apiclient.ContactInput{ContactType: "Business", LastName: "Lovelace", FirstName: str("Ada"), EmailAddress: "ada@generated.example"})
	if err != nil || contact.JSON201 == nil || contact.JSON201.EmailAddress != "ada@generated.example" {
		t.Fatalf("contact: %v %s", err, contact.Body)
	}
	readContact, err := c.GetContactWithResponse(ctx, id, *contact.JSON201.ContactId)
	if err != nil || readContact.JSON200 == nil || readContact.JSON200.LastName != "Lovelace" {
		t.Fatalf("read contact: %v %s", err, readContact.Body)
	}

	// An application's roles must be held: a domain, a role, an authority
	// that grants it and the organisation's claim, all through the client.
	dom, err := c.CreateAuthorisationDomainWithResponse(ctx, nil, apiclient.AuthorisationDomainInput{Name: "OpenFinance"})
	if err != nil || dom.JSON201 == nil {
		t.Fatalf("domain: %v %s", err, dom.Body)
	}
	role, err := c.CreateRoleWithResponse(ctx, "OpenFinance", nil, apiclient.RoleInput{Name: "AISP", Type: apiclient.Federation})
	if err != nil || role.JSON201 == nil || role.JSON201.AuthorisationDomain == nil || *role.JSON201.AuthorisationDomain != "OpenFinance" {
		t.Fatalf("role: %v %s", err, role.Body)
	}
	auth, err := c.CreateAuthorityWithResponse(ctx, nil, apiclient.AuthorityInput{AuthorityName: "Generated Authority", AuthorityCode: "GEN", Country: "GB", AuthorisationDomains: &[]string{"OpenFinance"}})
	if err != nil || auth.JSON201 == nil || auth.JSON201.AuthorityId == nil {
		t.Fatalf("authority: %v %s", err, auth.Body)
	}
	claim, err := c.CreateAuthorityClaimWithResponse(ctx, id, nil, apiclient.AuthorityClaimInput{AuthorityId: *auth.JSON201.AuthorityId, AuthorisationDomain: "OpenFinance", Role: "AISP", RegistrationId: str("GEN-REG-1")})
	if err != nil || claim.JSON201 == nil || claim.JSON201.Status != apiclient.ActiveInactiveActive {
		t.Fatalf("claim: %v %s", err, claim.Body)
	}

	appActive := apiclient.SoftwareStatementStatusActive
	app, err := c.CreateSoftwareStatementWithResponse(ctx, id, nil, apiclient.SoftwareStatementInput{ClientName: "Generated App",
		RedirectUri: &[]string{"https://app.generated.example/cb"}, Roles: &[]string{"AISP"}, Status: &appActive})
	if err != nil || app.JSON201 == nil {
		t.Fatalf("application: %v %s", err, app.Body)
	}
	if app.JSON201.JwksUri != nil || app.JSON201.BackchannelTokenDeliveryMode != nil {
		t.Fatalf("unset optional members are sent: %s", app.Body)
	}

	alg := apiclient.SigningAlgPS256
	ssaResp, err := c.IssueSoftwareStatementAssertionWithResponse(ctx, id, *app.JSON201.SoftwareStatementId, &apiclient.IssueSoftwareStatementAssertionParams{SigningAlg: &alg})
	if err != nil || ssaResp.StatusCode() != 200 || ssaResp.HTTPResponse.Header.Get("Content-Type") != "application/jwt" {
		t.Fatalf("SSA: %v %d %s", err, ssaResp.StatusCode(), ssaResp.Body)
	}
	parts := strings.Split(string(ssaResp.Body), ".")
	if len(parts) != 3 {
		t.Fatalf("SSA is not a JWS: %s", ssaResp.Body)
	}
	var hdr struct{ Kid, Alg string }
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	var claims map[string]any
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(hb, &hdr) != nil || json.Unmarshal(cb, &claims) != nil || hdr.Alg != "PS256" || claims["software_client_name"] != "Generated App" || fmt.Sprint(claims["software_roles"]) != "[AISP]" {
		t.Fatalf("SSA header %s claims %s", hb, cb)
	}
	keys, err := c.GetSSAKeysetWithResponse(ctx)
	if err != nil || keys.ApplicationjwkSetJSON200 == nil {
		t.Fatalf("keyset: %v %s", err, keys.Body)
	}
	found := false
	for _, k := range keys.ApplicationjwkSetJSON200.Keys {
		found = found || (k.Kid != nil && *k.Kid == hdr.Kid)
	}
	if !found {
		t.Fatalf("the SSA's kid %s is not in the keyset", hdr.Kid)
	}

	// A problem: an organisation that does not exist.
	missing, err := c.GetOrganisationWithResponse(ctx, apiclient.OrganisationId{0x0b, 0x7e, 0x7c, 0x2e, 0x2a, 0x57, 0x4a, 0x44, 0x9a, 0x4d, 0x0d, 0x1c, 0x6f, 0x1f, 0x4d, 0x7a})
	if err != nil || missing.StatusCode() != 404 || missing.ApplicationproblemJSONDefault == nil {
		t.Fatalf("missing: %v %d %s", err, missing.StatusCode(), missing.Body)
	}
	if p := missing.ApplicationproblemJSONDefault; p.Status != 404 || len(p.Errors) == 0 || p.Errors[0].Code != "not_found" {
		t.Fatalf("problem: %+v", p)
	}
	// And a validation problem, with the field in error.
	bad, err := c.CreateOrganisationWithResponse(ctx, nil, apiclient.OrganisationInput{OrganisationName: "No Country", RegistrationNumber: "GEN-2", CountryOfRegistration: "Britain"})
	if err != nil || bad.StatusCode() != 422 || bad.ApplicationproblemJSONDefault == nil {
		t.Fatalf("bad: %v %d %s", err, bad.StatusCode(), bad.Body)
	}
	if e := bad.ApplicationproblemJSONDefault.Errors; len(e) == 0 || e[0].Field == nil || *e[0].Field != "CountryOfRegistration" {
		t.Fatalf("validation problem: %s", bad.Body)
	}
}

// generatedClient is the client generated from the OpenAPI description,
// sending email's access token.
func generatedClient(t *testing.T, env *webtest.Env, email string) *apiclient.ClientWithResponses {
	t.Helper()
	token := webtest.Token(t, env.URL, email, nil).AccessToken
	c, err := apiclient.NewClientWithResponses(env.URL+"/api", apiclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGeneratedClientSendsOpenIDDiscoveryDocument: the service takes an
// authorisation server's OpenIDDiscoveryDocument on create and update
// (README lists it), but the description's AuthorisationServerInput did not
// have it, so a client generated from the description could not send it.
func TestGeneratedClientSendsOpenIDDiscoveryDocument(t *testing.T) {
	env := webtest.Start(t, nil)
	c := generatedClient(t, env, "admin@example.com")
	a := newAPI(t, env, "admin@example.com")
	var oid apiclient.OrganisationId
	if err := oid.UnmarshalText([]byte(a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string))); err != nil {
		t.Fatal(err)
	}
	iss := discoveryServer(t, func(self string) string { return self })
	for _, c2 := range []struct {
		disc   string
		status int
	}{{iss + "/elsewhere/openid-configuration", 422}, {iss + "/.well-known/openid-configuration", 201}} {
		disc := c2.disc
		r, err := c.CreateAuthorisationServerWithResponse(context.Background(), oid, nil,
			apiclient.AuthorisationServerInput{CustomerFriendlyName: "Login", Issuer: iss, OpenIDDiscoveryDocument: &disc})
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode() != c2.status {
			t.Fatalf("%s: %d %s", disc, r.StatusCode(), r.Body)
		}
		if c2.status == 201 && (r.JSON201 == nil || r.JSON201.OpenIDDiscoveryDocument == nil || *r.JSON201.OpenIDDiscoveryDocument != disc) {
			t.Fatalf("%s", r.Body)
		}
	}
}
