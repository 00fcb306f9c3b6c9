package web_test

// Applications calling the API for themselves (docs/design.md §20): the
// directory's token endpoint, one rule per test, and what such a token
// reaches.

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/trustframe/trustframe/dpop"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// appClient is an application with a signing key bound to it.
type appClient struct {
	t     testing.TB
	env   *webtest.Env
	orgID string
	appID string // also its ClientId
	key   *ecdsa.PrivateKey
	kid   string
}

func newClientKey(t testing.TB) (*ecdsa.PrivateKey, string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tp, _ := (&jose.JSONWebKey{Key: key.Public()}).Thumbprint(crypto.SHA256)
	return key, base64.RawURLEncoding.EncodeToString(tp)
}

// bindKey registers key as key material of orgID bound to appID ("" for
// none) and answers the status and body.
func bindKey(t testing.TB, su *api, orgID, appID string, key *ecdsa.PrivateKey) (*http.Response, map[string]any) {
	jwk, _ := json.Marshal(jose.JSONWebKey{Key: key.Public(), Use: "sig"})
	body := `{"PublicJwk":` + string(jwk) + `,"Use":"sig","SoftwareStatementId":"` + appID + `"}`
	return su.do("POST", "/organisations/"+orgID+"/key-material", body)
}

// newAppClient makes an organisation with an application and a key bound
// to it.
func newAppClient(t *testing.T, env *webtest.Env, su *api) *appClient {
	orgID, appID := setupApp(t, su)
	return newAppClientOf(t, env, su, orgID, appID)
}

func newAppClientOf(t testing.TB, env *webtest.Env, su *api, orgID, appID string) *appClient {
	key, kid := newClientKey(t)
	if resp, m := bindKey(t, su, orgID, appID, key); resp.StatusCode != 201 || m["SoftwareStatementId"] != appID {
		t.Fatalf("binding a key to the application: %d %v", resp.StatusCode, m)
	}
	return &appClient{t: t, env: env, orgID: orgID, appID: appID, key: key, kid: kid}
}

// claims are the claims of a good assertion.
func (c *appClient) claims() map[string]any {
	jti := make([]byte, 12)
	rand.Read(jti)
	return map[string]any{"iss": c.appID, "sub": c.appID, "aud": c.env.URL + "/oauth/token",
		"exp": time.Now().Add(2 * time.Minute).Unix(), "iat": time.Now().Unix(), "jti": base64.RawURLEncoding.EncodeToString(jti)}
}

// assertion signs claims with key under kid.
func assertion(t testing.TB, key crypto.Signer, kid string, claims map[string]any) string {
	alg := jose.ES256
	if _, ok := key.(*ecdsa.PrivateKey); !ok {
		alg = jose.PS256
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// form is the token request of a good assertion with claims changed by mod.
func (c *appClient) form(mod func(map[string]any)) url.Values {
	cl := c.claims()
	if mod != nil {
		mod(cl)
	}
	return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion": {assertion(c.t, c.key, c.kid, cl)}, "scope": {"directory:software"}}
}

// postToken sends a token request, with a DPoP proof when signer is set.
func postToken(t testing.TB, env *webtest.Env, form url.Values, signer *dpop.Signer) (*http.Response, map[string]any) {
	req, _ := http.NewRequest("POST", env.URL+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if signer != nil {
		p, err := signer.Proof("POST", env.URL+"/oauth/token", "", "")
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("DPoP", p)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp, m
}

// token gets an unbound access token (Bearer) for the application.
func (c *appClient) token() string {
	resp, m := postToken(c.t, c.env, c.form(nil), nil)
	if resp.StatusCode != 200 {
		c.t.Fatalf("token request: %d %v", resp.StatusCode, m)
	}
	return m["access_token"].(string)
}

// api is the application as an API client with a Bearer token.
func (c *appClient) api(t *testing.T) *api { return &api{t: t, base: c.env.URL, token: c.token()} }

// refused checks a token request is refused with code and status, and
// that the answer is not cached.
func refused(t *testing.T, resp *http.Response, m map[string]any, status int, code string) {
	t.Helper()
	if resp.StatusCode != status || m["error"] != code {
		t.Fatalf("token request: %d %v, want %d %s", resp.StatusCode, m, status, code)
	}
	if d, _ := m["error_description"].(string); d == "" {
		t.Fatalf("no error_description: %v", m)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q, want no-store", resp.Header.Get("Cache-Control"))
	}
}

func TestClientTokenMetadata(t *testing.T) {
	env := webtest.Start(t, nil)
	resp, body := send(t, "GET", env.URL+"/.well-known/oauth-authorization-server")
	if resp.StatusCode != 200 {
		t.Fatalf("metadata: %d %s", resp.StatusCode, body)
	}
	var m map[string]any
	json.Unmarshal([]byte(body), &m)
	want := map[string]string{"issuer": env.URL, "token_endpoint": env.URL + "/oauth/token",
		"grant_types_supported": `["client_credentials"]`, "token_endpoint_auth_methods_supported": `["private_key_jwt"]`, "scopes_supported": `["directory:software"]`}
	for k, v := range want {
		got := m[k]
		if s, ok := got.(string); ok && s == v {
			continue
		}
		if b, _ := json.Marshal(got); string(b) != v {
			t.Errorf("%s: %v, want %s", k, got, v)
		}
	}
	for _, k := range []string{"token_endpoint_auth_signing_alg_values_supported", "dpop_signing_alg_values_supported"} {
		if l, _ := m[k].([]any); len(l) == 0 || strings.Contains(mustMarshal(l), "HS256") {
			t.Errorf("%s: %v", k, m[k])
		}
	}
}

func TestClientTokenGrantedAndUsed(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	resp, m := postToken(t, env, c.form(nil), nil)
	if resp.StatusCode != 200 || m["token_type"] != "Bearer" || m["expires_in"] != float64(300) || m["scope"] != "directory:software" {
		t.Fatalf("token: %d %v", resp.StatusCode, m)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	hdr, claims := jwtParts(t, m["access_token"].(string))
	if hdr["typ"] != "at+jwt" {
		t.Fatalf("typ %v", hdr["typ"])
	}
	for k, v := range map[string]any{"iss": env.URL, "aud": env.URL + "/api", "sub": c.appID, "client_id": c.appID, "org_id": c.orgID,
		"software_id": c.appID, "scope": "directory:software"} {
		if claims[k] != v {
			t.Errorf("claim %s: %v, want %v", k, claims[k], v)
		}
	}
	if exp, iat := claims["exp"].(float64), claims["iat"].(float64); exp-iat != 300 || claims["jti"] == "" || claims["cnf"] != nil {
		t.Errorf("exp/iat/jti/cnf: %v", claims)
	}
	app := &api{t: t, base: env.URL, token: m["access_token"].(string)}
	app.must(200, "GET", "/organisations/"+c.orgID, "")
	app.must(200, "GET", "/organisations/"+c.orgID+"/softwarestatements/"+c.appID, "")
	resp, body := getRaw(t, app, "/organisations/"+c.orgID+"/softwarestatements/"+c.appID+"/assertion")
	if resp.StatusCode != 200 || strings.Count(body, ".") != 2 {
		t.Fatalf("its SSA: %d %s", resp.StatusCode, body)
	}
	// The SSA issued is audited with the application as actor.
	log := su.must(200, "GET", "/audit?OrganisationId="+c.orgID, "")
	if !strings.Contains(mustMarshal(log), `"Actor":"client:`+c.appID+`"`) {
		t.Fatalf("no audit record by client:%s: %.600s", c.appID, mustMarshal(log))
	}
}

func TestClientTokenDPoPBound(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	signer := newDPoPSigner(t)
	resp, m := postToken(t, env, c.form(nil), signer)
	if resp.StatusCode != 200 || m["token_type"] != "DPoP" {
		t.Fatalf("token with a DPoP proof: %d %v", resp.StatusCode, m)
	}
	tok := m["access_token"].(string)
	if _, claims := jwtParts(t, tok); mustMarshal(claims["cnf"]) != `{"jkt":"`+signer.Thumbprint()+`"}` {
		t.Fatalf("cnf %v", claims["cnf"])
	}
	u := env.URL + "/api/organisations/" + c.orgID
	r, body := call(t, "GET", u, http.Header{"Authorization": {"DPoP " + tok}, "DPoP": {proof(t, signer, "GET", u, tok, "")}})
	if r.StatusCode != 200 {
		t.Fatalf("the bound token with its proof: %d %s", r.StatusCode, body)
	}
}

func TestClientTokenBoundUsedAsBearerRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	_, m := postToken(t, env, c.form(nil), newDPoPSigner(t))
	app := &api{t: t, base: env.URL, token: m["access_token"].(string)}
	resp, body := app.do("GET", "/organisations/"+c.orgID, "")
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
		t.Fatalf("a DPoP-bound application token as Bearer: %d %v", resp.StatusCode, body)
	}
}

func TestClientTokenBadDPoPProof(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	req, _ := http.NewRequest("POST", env.URL+"/oauth/token", strings.NewReader(c.form(nil).Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	p, _ := newDPoPSigner(t).Proof("GET", env.URL+"/oauth/token", "", "") // the wrong method
	req.Header.Set("DPoP", p)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	refused(t, resp, m, 400, "invalid_dpop_proof")
}

func TestClientTokenUnknownKey(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	c.key, c.kid = newClientKey(t) // registered nowhere
	resp, m := postToken(t, env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
}

func TestClientTokenBadAssertionSignature(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	c.key, _ = newClientKey(t) // the registered kid, another key
	resp, m := postToken(t, env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
	if !strings.Contains(m["error_description"].(string), "signature") {
		t.Fatalf("refused for another reason: %v", m)
	}
}

func TestClientTokenKeyOfAnotherApplicationRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	other := su.must(201, "POST", "/organisations/"+c.orgID+"/softwarestatements", `{"ClientName":"Other"}`)["SoftwareStatementId"].(string)
	o := newAppClientOf(t, env, su, c.orgID, other)
	c.key, c.kid = o.key, o.kid // the other application's key, c's ClientId
	resp, m := postToken(t, env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
}

func TestClientTokenUnboundKeyRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	key, kid := newClientKey(t)
	if resp, m := bindKey(t, su, c.orgID, "", key); resp.StatusCode != 201 || m["SoftwareStatementId"] != nil {
		t.Fatalf("an unbound key: %d %v", resp.StatusCode, m)
	}
	c.key, c.kid = key, kid
	resp, m := postToken(t, env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
}

func TestKeyMaterialBoundToAnUnknownApplicationRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	orgID, _ := setupApp(t, su)
	key, _ := newClientKey(t)
	resp, m := bindKey(t, su, orgID, "no-such-app", key)
	if resp.StatusCode != 422 || fieldsOf(m)["SoftwareStatementId"] == "" {
		t.Fatalf("a key bound to no application: %d %v", resp.StatusCode, m)
	}
	if l := su.must(200, "GET", "/organisations/"+orgID+"/key-material", "")["list"].([]any); len(l) != 0 {
		t.Fatalf("key material was made: %v", l)
	}
}

func TestClientTokenReplayedJTI(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	form := c.form(nil)
	if resp, m := postToken(t, env, form, nil); resp.StatusCode != 200 {
		t.Fatalf("first use: %d %v", resp.StatusCode, m)
	}
	resp, m := postToken(t, env, form, nil)
	refused(t, resp, m, 401, "invalid_client")
}

// TestClientTokenJTITooLong: a jti over 256 bytes is refused and not kept
// (each used one is remembered until it expires); 256 is taken.
func TestClientTokenJTITooLong(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	resp, m := postToken(t, env, c.form(func(cl map[string]any) { cl["jti"] = strings.Repeat("j", 257) }), nil)
	refused(t, resp, m, 401, "invalid_client")
	if !strings.Contains(fmt.Sprint(m["error_description"]), "jti") {
		t.Fatalf("the refusal does not name the jti: %v", m)
	}
	if resp, m := postToken(t, env, c.form(func(cl map[string]any) { cl["jti"] = strings.Repeat("j", 256) }), nil); resp.StatusCode != 200 {
		t.Fatalf("a jti of 256: %d %v", resp.StatusCode, m)
	}
}

func TestClientTokenExpiredAssertion(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	resp, m := postToken(t, env, c.form(func(cl map[string]any) { cl["exp"] = time.Now().Add(-2 * time.Minute).Unix() }), nil)
	refused(t, resp, m, 401, "invalid_client")
}

func TestClientTokenAssertionExpiresTooFarAhead(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	resp, m := postToken(t, env, c.form(func(cl map[string]any) { cl["exp"] = time.Now().Add(10 * time.Minute).Unix() }), nil)
	refused(t, resp, m, 401, "invalid_client")
}

func TestClientTokenAssertionWithoutExp(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	resp, m := postToken(t, env, c.form(func(cl map[string]any) { delete(cl, "exp") }), nil)
	refused(t, resp, m, 401, "invalid_client")
}

func TestClientTokenWrongAudience(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	resp, m := postToken(t, env, c.form(func(cl map[string]any) { cl["aud"] = "https://elsewhere.example/token" }), nil)
	refused(t, resp, m, 401, "invalid_client")
	// The issuer is an audience too.
	if resp, m := postToken(t, env, c.form(func(cl map[string]any) { cl["aud"] = []string{env.URL} }), nil); resp.StatusCode != 200 {
		t.Fatalf("aud = the issuer: %d %v", resp.StatusCode, m)
	}
}

func TestClientTokenUnknownClient(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	resp, m := postToken(t, env, c.form(func(cl map[string]any) { cl["iss"], cl["sub"] = "nobody", "nobody" }), nil)
	refused(t, resp, m, 401, "invalid_client")
}

func TestClientTokenIssNotSub(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	resp, m := postToken(t, env, c.form(func(cl map[string]any) { cl["sub"] = "someone-else" }), nil)
	refused(t, resp, m, 401, "invalid_client")
}

func TestClientTokenWrongGrantType(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	form := c.form(nil)
	form.Set("grant_type", "password")
	resp, m := postToken(t, env, form, nil)
	refused(t, resp, m, 400, "unsupported_grant_type")
}

func TestClientTokenWrongScope(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	form := c.form(nil)
	form.Set("scope", "directory:admin")
	resp, m := postToken(t, env, form, nil)
	refused(t, resp, m, 400, "invalid_scope")
	// Without a scope: directory:software.
	form = c.form(nil)
	form.Del("scope")
	if resp, m := postToken(t, env, form, nil); resp.StatusCode != 200 || m["scope"] != "directory:software" {
		t.Fatalf("without scope: %d %v", resp.StatusCode, m)
	}
}

func TestClientTokenWithoutAssertion(t *testing.T) {
	env := webtest.Start(t, nil)
	resp, m := postToken(t, env, url.Values{"grant_type": {"client_credentials"}}, nil)
	refused(t, resp, m, 401, "invalid_client")
}

func TestClientTokenParameterTwice(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	form := c.form(nil)
	form.Add("scope", "directory:software")
	resp, m := postToken(t, env, form, nil)
	refused(t, resp, m, 400, "invalid_request")
}

func TestClientTokenSuspendedApplication(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	app := c.api(t) // a token got while Active
	su.must(200, "PUT", "/organisations/"+c.orgID+"/softwarestatements/"+c.appID, `{"ClientName":"Payments","Status":"Suspended"}`)
	resp, m := postToken(t, env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
	// The token got before stops working at its next use.
	if resp, m := app.do("GET", "/organisations/"+c.orgID, ""); resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
		t.Fatalf("a Suspended application's token: %d %v", resp.StatusCode, m)
	}
}

func TestClientTokenOrganisationNotActive(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	app := c.api(t)
	o := su.must(200, "GET", "/organisations/"+c.orgID, "")
	o["Status"] = "Withdrawn"
	su.must(200, "PUT", "/organisations/"+c.orgID, mustMarshal(o))
	resp, m := postToken(t, env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
	if resp, m := app.do("GET", "/organisations/"+c.orgID, ""); resp.StatusCode != 401 {
		t.Fatalf("the token of a Withdrawn organisation's application: %d %v", resp.StatusCode, m)
	}
}

func TestClientTokenReachesItsOwnOnly(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	other := su.must(201, "POST", "/organisations/"+c.orgID+"/softwarestatements", `{"ClientName":"Sibling"}`)["SoftwareStatementId"].(string)
	elsewhere := su.must(201, "POST", "/organisations", org("Elsewhere"))["OrganisationId"].(string)
	app := c.api(t)
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/organisations/" + c.orgID + "/softwarestatements/" + other, 403},
		{"GET", "/organisations/" + c.orgID + "/softwarestatements/" + other + "/assertion", 403},
		{"GET", "/organisations/" + c.orgID + "/softwarestatements", 403},
		{"GET", "/organisations/" + c.orgID + "/contacts", 403},
		{"PUT", "/organisations/" + c.orgID + "/softwarestatements/" + c.appID, 403},
		{"GET", "/organisations/" + elsewhere, 404},
		{"GET", "/organisations", 403},
		{"GET", "/users/super", 403},
		{"GET", "/audit", 403},
	} {
		body := ""
		if tc.method == "PUT" {
			body = `{"ClientName":"Renamed"}`
		}
		if resp, m := app.do(tc.method, tc.path, body); resp.StatusCode != tc.want {
			t.Errorf("%s %s with the application's token: %d %v, want %d", tc.method, tc.path, resp.StatusCode, m, tc.want)
		}
	}
}

// TestClientTokenAcrossInstances: two instances of one directory on one
// PostgreSQL database (same data directory, so the same KEK, and the same
// base URL). An assertion used at one is a replay at the other, and a
// token from one is accepted by the other (docs/design.md §20).
func TestClientTokenAcrossInstances(t *testing.T) {
	needInstances(t)
	dir := t.TempDir()
	a := webtest.StartIn(t, dir, nil)
	b := webtest.StartOn(t, dir, webtest.Database(t, dir), func(c *web.Config) { c.BaseURL = a.URL })
	su := newAPI(t, a, "admin@example.com")
	c := newAppClient(t, a, su)
	form := c.form(nil) // aud: A's URL, the shared base URL
	resp, m := postToken(t, a, form, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("token at A: %d %v", resp.StatusCode, m)
	}
	resp, m2 := postToken(t, b, form, nil)
	refused(t, resp, m2, 401, "invalid_client")
	onB := &api{t: t, base: b.URL, token: m["access_token"].(string)}
	onB.must(200, "GET", "/organisations/"+c.orgID, "")
}

// TestMachineEndpointsRefuseMethodsInJSON: a client of the token endpoint,
// the CA or the authorization server metadata that sends the wrong method
// (Accept */*, as curl and most libraries) gets a JSON refusal, not the
// console's HTML page: an OAuth error body at /oauth/token, a problem
// body elsewhere.
func TestMachineEndpointsRefuseMethodsInJSON(t *testing.T) {
	env := webtest.Start(t, nil)
	for _, c := range []struct{ method, path, allow, want string }{
		{"GET", "/oauth/token", "POST", `"error":"invalid_request"`},
		{"PUT", "/oauth/token", "POST", `"error":"invalid_request"`},
		{"POST", "/.well-known/oauth-authorization-server", "GET, HEAD", `"status":405`},
		{"GET", "/pki/ocsp", "POST", `"status":405`}, // GET takes /pki/ocsp/{request}
		{"POST", "/pki/crl", "GET, HEAD", `"status":405`},
		{"DELETE", "/pki/ca.pem", "GET, HEAD", `"status":405`},
	} {
		resp, body := send(t, c.method, env.URL+c.path, "Accept", "*/*")
		ct := resp.Header.Get("Content-Type")
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != c.allow || !strings.Contains(ct, "json") || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d Allow %q %s %.200s", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), ct, body)
		}
	}
}

// TestMachineEndpointsAnswerNotFoundInJSON: a path that does not exist
// under the machines' endpoints is a 404 problem body, not the console's
// page, for a client sending Accept: */* (curl, most libraries).
func TestMachineEndpointsAnswerNotFoundInJSON(t *testing.T) {
	env := webtest.Start(t, nil)
	for _, path := range []string{"/keystore/org/app/other.jwks", "/pki/nothing", "/oauth/nothing", "/.well-known/nothing", "/federation/nothing"} {
		resp, body := send(t, "GET", env.URL+path, "Accept", "*/*")
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 404 || !strings.Contains(ct, "json") || !strings.Contains(body, `"status":404`) {
			t.Errorf("%s: %d %s %.200s", path, resp.StatusCode, ct, body)
		}
	}
}

// TestClientTokenRevokedKeyRefused: key material revoked no longer signs
// the application's assertions, from the next token request on (the keys
// are cached; a write clears them).
func TestClientTokenRevokedKeyRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	c.token() // the key works, and the application's keys are now cached
	kms := su.must(200, "GET", "/organisations/"+c.orgID+"/key-material", "")["list"].([]any)
	km := kms[0].(map[string]any)
	km["Status"], km["RevokeReason"] = "Revoked", "keycompromise"
	su.must(200, "PUT", "/organisations/"+c.orgID+"/key-material/"+km["KeyMaterialID"].(string), mustMarshal(km))
	resp, m := postToken(t, env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
}

// TestKeyMaterialBindingCannotChange: the application a key is bound to
// is fixed when the key is made (docs/design.md §20): a PUT naming
// another application is refused and the key stays bound to the first.
func TestKeyMaterialBindingCannotChange(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	other := su.must(201, "POST", "/organisations/"+c.orgID+"/softwarestatements", `{"ClientName":"Other"}`)["SoftwareStatementId"].(string)
	km := su.must(200, "GET", "/organisations/"+c.orgID+"/key-material", "")["list"].([]any)[0].(map[string]any)
	path := "/organisations/" + c.orgID + "/key-material/" + km["KeyMaterialID"].(string)
	km["SoftwareStatementId"] = other
	if resp, m := su.do("PUT", path, mustMarshal(km)); resp.StatusCode != 422 || fieldsOf(m)["SoftwareStatementId"] == "" {
		t.Fatalf("rebinding a key to another application: %d %v, want 422 naming SoftwareStatementId", resp.StatusCode, m)
	}
	if got := su.must(200, "GET", path, "")["SoftwareStatementId"]; got != c.appID {
		t.Fatalf("the key is bound to %v, want %s", got, c.appID)
	}
	c.token() // still its application's key
}

// TestClientTokenWithdrawnApplication: an application set Inactive (the
// 2.6.0 Withdrawn) gets no token, and the one it had stops working.
func TestClientTokenWithdrawnApplication(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	app := c.api(t)
	su.must(200, "PUT", "/organisations/"+c.orgID+"/softwarestatements/"+c.appID, `{"ClientName":"Payments","Status":"Inactive"}`)
	resp, m := postToken(t, env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
	if resp, m := app.do("GET", "/organisations/"+c.orgID, ""); resp.StatusCode != 401 {
		t.Fatalf("a Withdrawn application's token: %d %v", resp.StatusCode, m)
	}
}

// TestClientTokenPendingOrganisation: the application of an organisation
// that is not yet Active gets no token.
func TestClientTokenPendingOrganisation(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	orgID := su.must(201, "POST", "/organisations", org("Pending Ltd"))["OrganisationId"].(string)
	if st := su.must(200, "GET", "/organisations/"+orgID, "")["Status"]; st != "Pending" {
		t.Fatalf("a new organisation is %v, want Pending", st)
	}
	appID := su.must(201, "POST", "/organisations/"+orgID+"/softwarestatements", `{"ClientName":"Early"}`)["SoftwareStatementId"].(string)
	c := newAppClientOf(t, env, su, orgID, appID)
	resp, m := postToken(t, env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
}

// TestClientTokenRenewsItsOwnSigningCertificate: with the directory's CA,
// an application issues itself a signing certificate with its own token,
// then signs its assertions with that certificate's key (the CA's
// signing certificate is a client key, docs/design.md §20), lists and
// revokes it; revoked, the key no longer gets a token. What it did is
// audited as client:<ClientId>.
func TestClientTokenRenewsItsOwnSigningCertificate(t *testing.T) {
	p := startPKI(t, true, nil)
	c := newAppClientOf(t, p.env, p.a, p.oid, p.aid)
	app := c.api(t)
	certKey := mustKey(t, "p256").(*ecdsa.PrivateKey)
	body := mustMarshal(map[string]string{"CSR": csrPEM(mustCSR(t, certKey, pkix.Name{}))})
	issued := app.must(201, "POST", p.appCerts()+"/signing", body)
	kid, _ := issued["kid"].(string)
	if kid == "" || issued["SoftwareStatementId"] != p.aid {
		t.Fatalf("the certificate it issued itself: %v", issued)
	}
	// Its certificate's key signs its assertions (under the certificate's kid, and without a kid).
	c.key, c.kid = certKey, kid
	c.token()
	c.kid = ""
	c.token()
	if l := mustMarshal(app.must(200, "GET", p.appCerts(), "")); !strings.Contains(l, kid) {
		t.Fatalf("its certificates do not list %s: %.300s", kid, l)
	}
	app.must(204, "PUT", p.appCerts()+"/kid/"+kid, `{"RevokeReason":"superseded"}`)
	c.kid = kid
	resp, m := postToken(t, p.env, c.form(nil), nil)
	refused(t, resp, m, 401, "invalid_client")
	done := map[string]bool{}
	for _, r := range p.a.must(200, "GET", "/audit?OrganisationId="+p.oid, "")["content"].([]any) {
		if r := r.(map[string]any); r["Actor"] == "client:"+p.aid && r["SubjectId"] == kid {
			done[r["Action"].(string)] = true
		}
	}
	if !done["issue"] || !done["revoke"] {
		t.Errorf("its certificate's issue and revocation audited as client:%s: %v", p.aid, done)
	}
}

// TestClientTokenReplayRefusedAfterARestart: an assertion used before the
// server stopped is refused by the next start on the same database. On
// SQLite memory answers and the used ones are written behind (keptAssertions);
// on PostgreSQL the table answers.
func TestClientTokenReplayRefusedAfterARestart(t *testing.T) {
	dir := t.TempDir()
	db := webtest.Database(t, dir)
	// One base URL for both starts, so that the assertion's aud names both.
	const base = "http://127.0.0.1:9"
	sameBase := func(c *web.Config) { c.BaseURL = base }
	first := webtest.StartOn(t, dir, db, sameBase)
	c := newAppClient(t, first, newAPI(t, first, "admin@example.com"))
	form := c.form(func(cl map[string]any) { cl["aud"] = base + "/oauth/token" })
	if resp, m := postToken(t, first, form, nil); resp.StatusCode != 200 {
		t.Fatalf("first use: %d %v", resp.StatusCode, m)
	}
	if err := first.Server.FlushClientAssertions(context.Background()); err != nil {
		t.Fatal(err)
	}
	second := webtest.StartOn(t, dir, db, sameBase)
	resp, m := postToken(t, second, form, nil)
	refused(t, resp, m, 401, "invalid_client")
	// A new assertion of the same client is granted by the second start.
	if resp, m := postToken(t, second, c.form(func(cl map[string]any) { cl["aud"] = base + "/oauth/token" }), nil); resp.StatusCode != 200 {
		t.Fatalf("a new assertion after the restart: %d %v", resp.StatusCode, m)
	}
}

// TestClientAssertionsWrittenBehind: without an explicit flush, a used
// assertion is written down within a moment (a crash forgets at most that
// moment's). On PostgreSQL the table itself answers, so it is there at
// once.
func TestClientAssertionsWrittenBehind(t *testing.T) {
	env := webtest.Start(t, nil)
	c := newAppClient(t, env, newAPI(t, env, "admin@example.com"))
	if resp, m := postToken(t, env, c.form(nil), nil); resp.StatusCode != 200 {
		t.Fatalf("token: %d %v", resp.StatusCode, m)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		live, err := env.DB.LiveClientAssertions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(live) == 1 && strings.HasPrefix(live[0].Key, c.appID) && time.Until(live[0].Expires) > time.Minute {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not written down after 5 s: %v", live)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
