package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
	"github.com/trustframe/trustframe/web/webtest/apiclient"
)

// Found by walking the API as an integrator with only the docs
// (README "The API", RFC 9449).

// TestDPoPNonceChallengeCarriesOneNonce: RFC 9449 §8 gives DPoP-Nonce one
// value. The API's use_dpop_nonce refusal carried the header twice (the
// API group's fresh nonce and the refusal's own), which a client library
// joins into "n, n" — a nonce the next proof then fails with.
func TestDPoPNonceChallengeCarriesOneNonce(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.DPoPNonce = true })
	key := newDPoPSigner(t)
	post := tokenPoster(t, env.URL, key)
	resp, _ := post("")
	resp, m := post(resp.Header.Get("DPoP-Nonce"))
	if resp.StatusCode != 200 {
		t.Fatalf("token: %d %v", resp.StatusCode, m)
	}
	at := m["access_token"].(string)
	api := env.URL + "/api/users/super"
	for _, tc := range []struct{ name, nonce string }{{"no nonce", ""}, {"stale nonce", "not-a-nonce"}} {
		r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + at}, "Dpop": {proof(t, key, "GET", api, at, tc.nonce)}})
		vs := r.Header.Values("DPoP-Nonce")
		if r.StatusCode != 401 || !strings.Contains(b, "use_dpop_nonce") || len(vs) != 1 {
			t.Fatalf("%s: %d, DPoP-Nonce %q (want exactly one), %s", tc.name, r.StatusCode, vs, b)
		}
		// The one value is a nonce the next proof succeeds with.
		if r, b := call(t, "GET", api, http.Header{"Authorization": {"DPoP " + at}, "Dpop": {proof(t, key, "GET", api, at, strings.Join(vs, ", "))}}); r.StatusCode != 200 {
			t.Fatalf("%s: retry with the header's value: %d %s", tc.name, r.StatusCode, b)
		}
	}
}

// TestUnknownCertificateTypeNamesTheTypes: the certificate types are fixed
// Reference Data with no list in the API, and the description's example
// (TRANSPORT) is not one of them, so the refusal of an unknown type names
// the types a client may use.
func TestUnknownCertificateTypeNamesTheTypes(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	r, m := postPEM(t, a, "/organisations/"+oid+"/certificates/TRANSPORT", webtest.ValidCert(t, "p256", "c"))
	msg := fieldsOf(m)["OrganisationCertificateType"]
	if r.StatusCode != 422 {
		t.Fatalf("%d %v", r.StatusCode, m)
	}
	for _, want := range []string{"TRANSPORT", "qwac", "qseal", "rtswac", "rtsseal", "brseal", "brseal_ext", "rtstransport_rs"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal %q does not name %s", msg, want)
		}
	}
}

// TestAllowNamesOnlyTheRoutedMethods: the 405 at the path a subrouter is
// mounted on (the organisation list, one organisation, the Super Users)
// said "Allow: GET, HEAD, POST, PUT, PATCH, DELETE" — the very method it
// refused among them — because chi's Find takes the mount point for a
// route of every method.
func TestAllowNamesOnlyTheRoutedMethods(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	cid := a.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Technical","LastName":"Doe","EmailAddress":"doe@acme.example"}`)["ContactId"].(string)
	for _, c := range []struct{ method, path, allow string }{
		{"PATCH", "/organisations", "GET, HEAD, POST"},
		{"DELETE", "/organisations", "GET, HEAD, POST"},
		{"DELETE", "/organisations/" + oid, "GET, HEAD, PUT"},
		{"PATCH", "/organisations/" + oid, "GET, HEAD, PUT"},
		{"PATCH", "/organisations/" + oid + "/contacts/" + cid, "GET, HEAD, PUT, DELETE"},
		{"DELETE", "/organisations/" + oid + "/contacts", "GET, HEAD, POST"},
		{"PATCH", "/users/super", "GET, HEAD, POST"},
		{"DELETE", "/users/data-administrators", "GET, HEAD, POST"},
		{"PATCH", "/users/super/admin@example.com", "GET, HEAD, PUT"},
		{"PUT", "/changes", "GET, HEAD"},
	} {
		r, m := a.do(c.method, c.path, `{}`)
		if r.StatusCode != 405 || r.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q, want 405 and %q (%v)", c.method, c.path, r.StatusCode, r.Header.Get("Allow"), c.allow, m)
		}
	}
}

// TestWrongJSONTypeNamedInJSONTerms: a member (or a body) of the wrong
// JSON type was refused in Go's words — "field  must be
// store.Organisation" for a body that is an array, "must be
// []store.GroupRole" — naming the service's internal types.
func TestWrongJSONTypeNamedInJSONTerms(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for _, c := range []struct{ path, body, field, want string }{
		{"/organisations", `[]`, "", "the body must be a JSON object"},
		{"/organisations", `"x"`, "", "the body must be a JSON object"},
		{"/organisations", `{"Flags":"x"}`, "Flags", "Flags must be an array"},
		{"/organisations", `{"OrganisationName":5}`, "OrganisationName", "OrganisationName must be a string"},
		{"/references/identity-providers", `{"GroupRoles":{"a":1}}`, "GroupRoles", "GroupRoles must be an array"},
	} {
		r, m := a.do("POST", c.path, c.body)
		detail, _ := m["detail"].(string)
		msg := fieldsOf(m)[c.field]
		if r.StatusCode != 400 || detail != c.want || strings.Contains(detail+msg, "store.") || strings.Contains(detail+msg, "[]") || msg == "" {
			t.Errorf("%s %s: %d %q / %q, want 400 %q", c.path, c.body, r.StatusCode, detail, msg, c.want)
		}
	}
}

// TestPublicAPIRoutesRefuseOtherMethodsWithout401: the public lists under
// /api (participants, releases, the SSA keyset) answered a POST without
// credentials with 401 "an access token is required" — the request fell
// through to the authenticated /api group — although no token makes it
// allowed; with a token the same request was a 405. HEAD is GET without
// the body there, as everywhere (docs/design.md §4).
func TestPublicAPIRoutesRefuseOtherMethodsWithout401(t *testing.T) {
	env := webtest.Start(t, nil)
	for _, path := range []string{"/api/participants", "/api/releases", "/api/releases/2.6.0/openapi.yaml", "/api/keystore/ssa.jwks"} {
		for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			r, b := call(t, m, env.URL+path, nil)
			if r.StatusCode != 405 || r.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(b, "method_not_allowed") {
				t.Errorf("%s %s: %d Allow %q %s, want 405 with Allow: GET, HEAD", m, path, r.StatusCode, r.Header.Get("Allow"), b)
			}
		}
		if r, _ := call(t, "GET", env.URL+path, nil); r.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, r.StatusCode)
		}
		if r, b := call(t, "HEAD", env.URL+path, nil); r.StatusCode != 200 || b != "" {
			t.Errorf("HEAD %s: %d with %d bytes, want 200 and no body", path, r.StatusCode, len(b))
		}
	}
}

// TestImportNamesEveryExistingOrganisationId: docs/decisions.md promises an
// import's problems "all at once"; an export imported again into the same
// directory named only its first row whose OrganisationId exists, so a
// client fixed the file one row per round trip.
func TestImportNamesEveryExistingOrganisationId(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	var ids []string
	for _, n := range []string{"Acme", "Bolt", "Crane"} {
		ids = append(ids, a.must(201, "POST", "/organisations", org(n))["OrganisationId"].(string))
	}
	file := "OrganisationId,OrganisationName,RegistrationNumber,CountryOfRegistration\n" +
		ids[0] + ",Acme,R-1,GB\n" +
		"11111111-2222-4333-8444-555555555555,New,R-N,GB\n" +
		ids[1] + ",Bolt,R-2,GB\n" +
		ids[2] + ",Crane,R-3,GB\n"
	r, m := postCSV(t, a, file)
	got := fieldsOf(m)
	if r.StatusCode != 422 {
		t.Fatalf("%d %v", r.StatusCode, m)
	}
	for _, f := range []string{"rows[1].OrganisationId", "rows[3].OrganisationId", "rows[4].OrganisationId"} {
		if !strings.Contains(got[f], "exists") {
			t.Errorf("no problem on %s: %v", f, m)
		}
	}
	if _, ok := got["rows[2].OrganisationId"]; ok {
		t.Errorf("a new id refused: %v", m)
	}
	if n := a.must(200, "GET", "/organisations", "")["totalSize"]; n != float64(3) {
		t.Fatalf("%v organisations after a refused import", n)
	}
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

// TestBadTimestampIsNotCalledInvalidJSON: an organisation read, changed and
// sent back with a read-only timestamp in another form (CreatedOn
// "2026-11-23", or a number) was refused as "the body is not valid JSON",
// though it was valid JSON.
func TestBadTimestampIsNotCalledInvalidJSON(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	for _, v := range []string{`"2026-11-23"`, `5`} {
		body := strings.TrimSuffix(org("Acme"), "}") + `,"CreatedOn":` + v + `}`
		r, m := a.do("PUT", "/organisations/"+oid, body)
		detail, _ := m["detail"].(string)
		if r.StatusCode != 400 || strings.Contains(detail, "not valid JSON") || !strings.Contains(detail, "RFC 3339") {
			t.Errorf("CreatedOn %s: %d %q", v, r.StatusCode, detail)
		}
	}
}
