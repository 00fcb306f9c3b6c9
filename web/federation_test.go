package web_test

import (
	"crypto"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// leafEntity serves an entity configuration signed with key, naming the
// directory as its authority (docs/design.md §13), and, for an OP, the
// discovery document issuer validation needs, with key at its jwks_uri.
type leafEntity struct {
	srv      *httptest.Server
	metadata map[string]any
	hints    []string
	exp      time.Duration
}

func newLeaf(t *testing.T, key *ecdsa.PrivateKey, kid string, metadata map[string]any, anchor string) *leafEntity {
	l := &leafEntity{metadata: metadata, hints: []string{anchor}, exp: time.Hour}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := l.srv.URL
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": id, "jwks_uri": id + "/jwks", "authorization_endpoint": id + "/auth", "token_endpoint": id + "/token"})
		case "/jwks":
			_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: kid, Use: "sig"}}})
		case "/.well-known/openid-federation":
			signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("entity-statement+jwt"))
			pub := jose.JSONWebKey{Key: key.Public(), KeyID: kid}
			b, _ := json.Marshal(map[string]any{"iss": id, "sub": id, "iat": time.Now().Unix(), "exp": time.Now().Add(l.exp).Unix(),
				"jwks": jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub}}, "authority_hints": l.hints, "metadata": l.metadata})
			jws, _ := signer.Sign(b)
			s, _ := jws.CompactSerialize()
			w.Header().Set("Content-Type", "application/entity-statement+jwt")
			_, _ = io.WriteString(w, s)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(l.srv.Close)
	return l
}

// TestDirectoryFederationEndToEnd: the directory is the trust anchor of an
// RP and an OP served here, each with its own entity configuration signed
// by a key of its organisation's key material; resolving through the
// directory applies the roles' policies, and a policy change or a lost role
// shows in the next statement.
func TestDirectoryFederationEndToEnd(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	authority := setupDomains(t, a)
	anchor := env.URL

	// The anchor's entity configuration, self-signed with its published keys.
	code, ctype, ec := fedGet(t, env, "/.well-known/openid-federation")
	if code != 200 || ctype != "application/entity-statement+jwt" {
		t.Fatalf("entity configuration: %d %s %s", code, ctype, ec)
	}
	own := fedClaims(t, ec, "entity-statement+jwt", nil)
	fe := own["metadata"].(map[string]any)["federation_entity"].(map[string]any)
	if own["iss"] != anchor || own["sub"] != anchor || fe["federation_fetch_endpoint"] != anchor+"/federation/fetch" || fe["federation_resolve_endpoint"] != anchor+"/federation/resolve" {
		t.Fatalf("entity configuration claims: %v", own)
	}
	anchorKeys := &jose.JSONWebKeySet{}
	kb, _ := json.Marshal(own["jwks"])
	_ = json.Unmarshal(kb, anchorKeys)
	if len(anchorKeys.Keys) != 1 || anchorKeys.Keys[0].Algorithm != "ES256" {
		t.Fatalf("anchor keys: %s", kb)
	}

	oid := a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"A-1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	grant(t, a, oid, authority, "Payments", "PISP")
	grant(t, a, oid, authority, "Payments", "AISP")
	rpPol := a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code","refresh_token"]},"token_endpoint_auth_method":{"one_of":["private_key_jwt","tls_client_auth"],"essential":true}}}`)
	a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"AISP","EntityType":"openid_provider","Policy":{"scopes_supported":{"superset_of":["openid"]},"request_object_signing_alg_values_supported":{"subset_of":["PS256","ES256"]}}}`)

	key := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub := jose.JSONWebKey{Key: key.Public(), KeyID: "acme-sig-1"}
	tp, _ := pub.Thumbprint(crypto.SHA256)
	_ = tp
	pb, _ := json.Marshal(pub)
	km := a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pb)+`,"Use":"sig"}`)
	kid := km["Kid"].(string)

	rp := newLeaf(t, key, kid, map[string]any{"openid_relying_party": map[string]any{
		"client_name": "Acme RP", "grant_types": []string{"authorization_code", "implicit"}, "token_endpoint_auth_method": "private_key_jwt"}}, anchor)
	op := newLeaf(t, key, kid, map[string]any{"openid_provider": map[string]any{
		"issuer": "x", "scopes_supported": []string{"openid", "accounts"}, "request_object_signing_alg_values_supported": []string{"PS256", "RS256"}}}, anchor)
	op.metadata["openid_provider"].(map[string]any)["issuer"] = op.srv.URL

	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Acme RP","Roles":["PISP"],"FederationEntityId":"`+rp.srv.URL+`"}`)
	if app["FederationEntityId"] != rp.srv.URL {
		t.Fatalf("application: %v", app)
	}
	a.must(201, "POST", "/organisations/"+oid+"/authorisationservers", `{"CustomerFriendlyName":"Acme OP","Issuer":"`+op.srv.URL+`","FederationEntityId":"`+op.srv.URL+`"}`)

	// The entity ID is unique across applications and servers, and https.
	r, m := a.do("POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Dup","FederationEntityId":"`+op.srv.URL+`"}`)
	if r.StatusCode != 422 || fieldsOf(m)["FederationEntityId"] == "" {
		t.Fatalf("duplicate entity ID: %d %v", r.StatusCode, m)
	}
	r, m = a.do("POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Bad","FederationEntityId":"ftp://rp.example.com"}`)
	if r.StatusCode != 422 || fieldsOf(m)["FederationEntityId"] == "" {
		t.Fatalf("non-https entity ID: %d %v", r.StatusCode, m)
	}

	// /list: both; by entity type, one each.
	code, _, body := fedGet(t, env, "/federation/list")
	var list []string
	_ = json.Unmarshal([]byte(body), &list)
	if code != 200 || len(list) != 2 {
		t.Fatalf("list: %d %s", code, body)
	}
	for typ, want := range map[string]string{"openid_relying_party": rp.srv.URL, "oauth_client": rp.srv.URL, "openid_provider": op.srv.URL} {
		_, _, body = fedGet(t, env, "/federation/list?entity_type="+typ+"&unused=1")
		if body != `["`+want+`"]`+"\n" {
			t.Fatalf("list %s: %s", typ, body)
		}
	}

	// /fetch (iss is ignored): the organisation's key, the role's policy, its name.
	code, ctype, stmt := fedGet(t, env, "/federation/fetch?sub="+url.QueryEscape(rp.srv.URL)+"&iss="+url.QueryEscape(anchor))
	if code != 200 || ctype != "application/entity-statement+jwt" {
		t.Fatalf("fetch: %d %s", code, stmt)
	}
	sc := fedClaims(t, stmt, "entity-statement+jwt", anchorKeys)
	if sc["iss"] != anchor || sc["sub"] != rp.srv.URL || sc["exp"].(float64)-sc["iat"].(float64) != 24*3600 {
		t.Fatalf("statement: %v", sc)
	}
	jsonEq(t, sc["metadata_policy"].(map[string]any)["openid_relying_party"], string(fedJSON(rpPol["Policy"])))
	if sc["metadata"].(map[string]any)["federation_entity"].(map[string]any)["organization_name"] != "Acme Bank" {
		t.Fatalf("organization_name: %v", sc["metadata"])
	}
	if ks := sc["jwks"].(map[string]any)["keys"].([]any); len(ks) != 1 || ks[0].(map[string]any)["kid"] != kid {
		t.Fatalf("jwks: %v", sc["jwks"])
	}

	resolve := func(sub string) map[string]any {
		t.Helper()
		code, ctype, tok := fedGet(t, env, "/federation/resolve?sub="+url.QueryEscape(sub)+"&trust_anchor="+url.QueryEscape(anchor))
		if code != 200 || ctype != "application/resolve-response+jwt" {
			t.Fatalf("resolve %s: %d %s", sub, code, tok)
		}
		c := fedClaims(t, tok, "resolve-response+jwt", anchorKeys)
		if chain := c["trust_chain"].([]any); len(chain) != 3 {
			t.Fatalf("trust_chain: %v", chain)
		}
		return c["metadata"].(map[string]any)
	}
	// The RP's grant_types are narrowed by PISP's subset_of.
	md := resolve(rp.srv.URL)
	jsonEq(t, md["openid_relying_party"].(map[string]any)["grant_types"], `["authorization_code"]`)
	// The OP's algorithms are narrowed by AISP's policy.
	md = resolve(op.srv.URL)
	jsonEq(t, md["openid_provider"].(map[string]any)["request_object_signing_alg_values_supported"], `["PS256"]`)

	// A policy change shows in the next statement and resolution.
	a.must(200, "PUT", "/references/role-metadata-policies/"+rpPol["PolicyId"].(string), `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code","implicit"]}}}`)
	_, _, stmt = fedGet(t, env, "/federation/fetch?sub="+url.QueryEscape(rp.srv.URL))
	jsonEq(t, fedClaims(t, stmt, "entity-statement+jwt", anchorKeys)["metadata_policy"].(map[string]any)["openid_relying_party"], `{"grant_types":{"subset_of":["authorization_code","implicit"]}}`)
	md = resolve(rp.srv.URL)
	jsonEq(t, md["openid_relying_party"].(map[string]any)["grant_types"], `["authorization_code","implicit"]`)

	// Losing the role loses its policy.
	appPath := "/organisations/" + oid + "/softwarestatements/" + app["SoftwareStatementId"].(string)
	a.must(200, "PUT", appPath, `{"ClientName":"Acme RP","Status":"Active","Roles":[],"FederationEntityId":"`+rp.srv.URL+`"}`)
	_, _, stmt = fedGet(t, env, "/federation/fetch?sub="+url.QueryEscape(rp.srv.URL))
	if mp, ok := fedClaims(t, stmt, "entity-statement+jwt", anchorKeys)["metadata_policy"]; ok {
		t.Fatalf("metadata_policy after the role is lost: %v", mp)
	}

	// A subject whose authority_hints do not name the anchor: 400 invalid_trust_chain.
	rp.hints = []string{"https://other.example.com"}
	code, _, body = fedGet(t, env, "/federation/resolve?sub="+url.QueryEscape(rp.srv.URL)+"&trust_anchor="+url.QueryEscape(anchor))
	if code != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, "authority_hints") {
		t.Fatalf("wrong authority_hints: %d %s", code, body)
	}
	// An expired entity configuration: 400 invalid_trust_chain.
	rp.hints, rp.exp = []string{anchor}, -time.Minute
	code, _, body = fedGet(t, env, "/federation/resolve?sub="+url.QueryEscape(rp.srv.URL)+"&trust_anchor="+url.QueryEscape(anchor))
	if code != 400 || !strings.Contains(body, "expired") {
		t.Fatalf("expired configuration: %d %s", code, body)
	}

	// Policies that clash: 400 invalid_subject naming the roles, and the server leaves /list.
	a.must(201, "POST", "/references/authorisation-domains/Payments/roles", `{"Name":"CBPII","Type":"Federation"}`)
	grant(t, a, oid, authority, "Payments", "CBPII")
	a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"CBPII","EntityType":"openid_provider","Policy":{"request_object_signing_alg_values_supported":{"value":["RS256"]}}}`)
	code, _, body = fedGet(t, env, "/federation/fetch?sub="+url.QueryEscape(op.srv.URL))
	if code != 400 || !strings.Contains(body, "invalid_subject") || !strings.Contains(body, "Payments/AISP") || !strings.Contains(body, "Payments/CBPII") {
		t.Fatalf("clash: %d %s", code, body)
	}
	// The list is rebuilt in the background after a change (no request
	// waits for it): the clashing server leaves it once the rebuild is done.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, _, body = fedGet(t, env, "/federation/list")
		if !strings.Contains(body, op.srv.URL) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the clashing subject never left the list: %s", body)
		}
	}
	if !strings.Contains(body, rp.srv.URL) {
		t.Fatalf("list with a clashing subject: %s", body)
	}

	// Bad input: federation JSON errors, never a 5xx.
	for path, want := range map[string]int{
		"/federation/fetch": 400,
		"/federation/fetch?sub=https://nobody.example.com":                 404,
		"/federation/resolve?sub=" + url.QueryEscape(rp.srv.URL):           400,
		"/federation/resolve?sub=x&trust_anchor=https://other.example.com": 404,
	} {
		code, ctype, body := fedGet(t, env, path)
		var e map[string]any
		if code != want || ctype != "application/json" || json.Unmarshal([]byte(body), &e) != nil || e["error"] == nil {
			t.Errorf("%s: %d %s %s", path, code, ctype, body)
		}
	}
}

// TestFederationKeyRotation: a rotation from Reference Data signs from now
// on, and the replaced key stays published in the entity configuration.
func TestFederationKeyRotation(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	_, _, ec := fedGet(t, env, "/.well-known/openid-federation")
	before := fedClaims(t, ec, "entity-statement+jwt", nil)["jwks"].(map[string]any)["keys"].([]any)
	if len(before) != 1 {
		t.Fatalf("keys before: %v", before)
	}
	oldKid := before[0].(map[string]any)["kid"].(string)
	nk := a.must(201, "POST", "/references/signing-keys/federation", "")
	newKid := nk["kid"].(string)
	_, _, ec = fedGet(t, env, "/.well-known/openid-federation")
	jws, _ := jose.ParseSignedCompact(ec, []jose.SignatureAlgorithm{jose.ES256})
	if jws.Signatures[0].Header.KeyID != newKid {
		t.Fatalf("signed by %s, want the new key %s", jws.Signatures[0].Header.KeyID, newKid)
	}
	after := fedClaims(t, ec, "entity-statement+jwt", nil)["jwks"].(map[string]any)["keys"].([]any)
	kids := []string{}
	for _, k := range after {
		kids = append(kids, k.(map[string]any)["kid"].(string))
	}
	if len(kids) != 2 || !strings.Contains(strings.Join(kids, " "), oldKid) {
		t.Fatalf("published after rotation: %v (old %s)", kids, oldKid)
	}
	list := a.must(200, "GET", "/references/signing-keys/federation", "")
	// A body with a field is refused, and makes no key; {} is a rotation.
	for _, body := range []string{`{"alg":"ES384"}`, `{"kty":"RSA"}`, `[]`, `{`} {
		if r, m := a.do("POST", "/references/signing-keys/federation", body); r.StatusCode != 400 {
			t.Errorf("rotate with %s: %d %v", body, r.StatusCode, m)
		}
	}
	if again := a.must(200, "GET", "/references/signing-keys/federation", ""); toJSON(t, again) != toJSON(t, list) {
		t.Fatalf("a refused rotation changed the keys:\n%v\n%v", list, again)
	}
	a.must(201, "POST", "/references/signing-keys/federation", `{}`)
}

// TestFederationAnswersCacheForAMinute: a shared cache may keep the
// directory's signed federation answers for a minute, no longer, so that a
// withdrawn subject's statement or a rotated configuration is not served
// for an hour; the list and every error are not stored (docs/design.md §13).
func TestFederationAnswersCacheForAMinute(t *testing.T) {
	env, leaf, _ := specEnv(t)
	for path, want := range map[string]string{
		"/.well-known/openid-federation":                         "public, max-age=60",
		"/federation/fetch?sub=" + url.QueryEscape(leaf.srv.URL): "public, max-age=60",
		resolvePath(env, leaf.srv.URL):                           "public, max-age=60",
		"/federation/historical-keys":                            "public, max-age=60",
		"/federation/list":                                       "no-store",
		"/federation/fetch?sub=https%3A%2F%2Fgone.example":       "no-store",
		"/federation/resolve?sub=x":                              "no-store",
	} {
		resp, err := http.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Cache-Control"); got != want {
			t.Errorf("%s: %d, Cache-Control %q, want %q", path, resp.StatusCode, got, want)
		}
	}
}

// TestPolicySimulator: the merged policy and the metadata it yields, or a
// 422 naming role, parameter and operator (docs/design.md §13).
func TestPolicySimulator(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	setupDomains(t, a)
	a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code","refresh_token"]},"contacts":{"add":["ops@pisp.example"]}}}`)
	a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"AISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code"]},"token_endpoint_auth_method":{"value":"private_key_jwt"}}}`)
	a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Data","Role":"DATA","EntityType":"openid_relying_party","Policy":{"token_endpoint_auth_method":{"value":"tls_client_auth"}}}`)

	got := a.must(200, "POST", "/references/role-metadata-policies/simulate", `{"Roles":[{"AuthorisationDomain":"Payments","Role":"PISP"},{"AuthorisationDomain":"Payments","Role":"AISP"}],"EntityType":"openid_relying_party","Metadata":{"grant_types":["authorization_code","implicit"],"token_endpoint_auth_method":"client_secret_basic"}}`)
	jsonEq(t, got["Policy"], `{"grant_types":{"subset_of":["authorization_code"]},"contacts":{"add":["ops@pisp.example"]},"token_endpoint_auth_method":{"value":"private_key_jwt"}}`)
	jsonEq(t, got["Metadata"], `{"grant_types":["authorization_code"],"contacts":["ops@pisp.example"],"token_endpoint_auth_method":"private_key_jwt"}`)

	// Two values that clash: 422 naming the role, parameter and operator.
	r, m := a.do("POST", "/references/role-metadata-policies/simulate", `{"Roles":[{"AuthorisationDomain":"Payments","Role":"AISP"},{"AuthorisationDomain":"Data","Role":"DATA"}],"EntityType":"openid_relying_party","Metadata":{}}`)
	msg := fieldsOf(m)["Roles"]
	if r.StatusCode != 422 || !strings.Contains(msg, "Data/DATA") || !strings.Contains(msg, "token_endpoint_auth_method") || !strings.Contains(msg, "value") {
		t.Fatalf("clash: %d %v", r.StatusCode, m)
	}
	for name, body := range map[string]string{
		"unknown role":        `{"Roles":[{"AuthorisationDomain":"Payments","Role":"NOPE"}],"EntityType":"openid_relying_party"}`,
		"unknown entity type": `{"Roles":[{"AuthorisationDomain":"Payments","Role":"PISP"}],"EntityType":"federation_entity"}`,
		"no roles":            `{"Roles":[],"EntityType":"openid_relying_party"}`,
		"metadata not object": `{"Roles":[{"AuthorisationDomain":"Payments","Role":"PISP"}],"EntityType":"openid_relying_party","Metadata":[1]}`,
		"a parameter null":    `{"Roles":[{"AuthorisationDomain":"Payments","Role":"PISP"}],"EntityType":"openid_relying_party","Metadata":{"client_name":null}}`,
	} {
		if r, m := a.do("POST", "/references/role-metadata-policies/simulate", body); r.StatusCode != 422 {
			t.Errorf("%s: %d %v", name, r.StatusCode, m)
		}
	}
}

// TestPolicySimulatorNamesTheRoleTheMetadataBreaks: metadata the merged
// policy refuses is a 422 on Metadata naming the role whose policy it
// breaks (domain and role), in the message and in the problem body's
// "role" member, whichever order the roles are given in (docs/design.md
// §13); a policy clash names its role in "role" too.
func TestPolicySimulatorNamesTheRoleTheMetadataBreaks(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	setupDomains(t, a)
	a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code","refresh_token"]}}}`)
	a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"AISP","EntityType":"openid_relying_party","Policy":{"token_endpoint_auth_method":{"one_of":["private_key_jwt","tls_client_auth"]}}}`)
	a.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Data","Role":"DATA","EntityType":"openid_relying_party","Policy":{"token_endpoint_auth_method":{"value":"client_secret_basic"}}}`)
	pisp, aisp := `{"AuthorisationDomain":"Payments","Role":"PISP"}`, `{"AuthorisationDomain":"Payments","Role":"AISP"}`
	for _, roles := range []string{pisp + "," + aisp, aisp + "," + pisp} {
		r, m := a.do("POST", "/references/role-metadata-policies/simulate", `{"Roles":[`+roles+`],"EntityType":"openid_relying_party","Metadata":{"token_endpoint_auth_method":"client_secret_basic"}}`)
		msg := fieldsOf(m)["Metadata"]
		if r.StatusCode != 422 || !strings.Contains(msg, "role Payments/AISP") || strings.Contains(msg, "role Payments/PISP") || !strings.Contains(msg, "token_endpoint_auth_method") {
			t.Fatalf("roles %s: %d %v", roles, r.StatusCode, m)
		}
		jsonEq(t, m["role"], aisp)
	}
	// A clash of values names the role that does not merge.
	r, m := a.do("POST", "/references/role-metadata-policies/simulate", `{"Roles":[`+aisp+`,{"AuthorisationDomain":"Data","Role":"DATA"}],"EntityType":"openid_relying_party","Metadata":{}}`)
	if r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["Roles"], "Data/DATA") {
		t.Fatalf("clash: %d %v", r.StatusCode, m)
	}
	jsonEq(t, m["role"], `{"AuthorisationDomain":"Data","Role":"DATA"}`)
	// The console's form says the same beside the metadata.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/role-metadata-policies/try", url.Values{"EntityType": {"openid_relying_party"},
		"Metadata": {`{"token_endpoint_auth_method":"client_secret_basic"}`}, "Role": {"Payments/PISP", "Payments/AISP"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	by, _ := doc.Find("#try-metadata").Attr("aria-describedby")
	if msg := doc.Find("#" + by).Text(); resp.StatusCode != 422 || by == "" || !strings.Contains(msg, "Payments/AISP") {
		t.Fatalf("the form: %d, %q", resp.StatusCode, msg)
	}
}

// TestFederationResolveRefusesPrivateAddresses: with private issuer URLs
// refused (any deployment without the development identity provider), the
// directory never fetches a leaf's entity configuration from a loopback or
// private address — nor follows a redirect to one: the guarded client
// checks every connection it opens. The client gets the federation's JSON
// error, never a 5xx, and the leaf is never reached.
func TestFederationResolveRefusesPrivateAddresses(t *testing.T) {
	no := false
	env := webtest.Start(t, func(c *web.Config) { c.AllowPrivateIssuerURLs = &no })
	a := newAPI(t, env, "admin@example.com")
	var hits atomic.Int32
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(private.Close)
	redirecting := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, private.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(redirecting.Close)

	oid := a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"A-1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	key := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pb, _ := json.Marshal(jose.JSONWebKey{Key: key.Public(), KeyID: "acme-sig-1"})
	a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pb)+`,"Use":"sig"}`)
	a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Acme RP","Status":"Active","FederationEntityId":"`+redirecting.URL+`"}`)

	code, ctype, body := fedGet(t, env, "/federation/resolve?sub="+url.QueryEscape(redirecting.URL)+"&trust_anchor="+url.QueryEscape(env.URL))
	if code < 400 || code >= 500 || !strings.HasPrefix(ctype, "application/json") {
		t.Fatalf("resolve of a leaf at a private address: %d %s %s", code, ctype, body)
	}
	var fe struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	if err := json.Unmarshal([]byte(body), &fe); err != nil || fe.Error != "invalid_trust_chain" || !strings.Contains(fe.ErrorDescription, "not public") {
		t.Fatalf("want invalid_trust_chain naming an address that is not public: %s", body)
	}
	if strings.Contains(body, "127.0.0.1:"+strings.Split(private.URL, ":")[2]) {
		t.Errorf("the error names the private address it was sent to: %s", body)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the leaf at a private address was reached %d times", n)
	}
}

// TestFederationTabCrumbsNameTheEntity: the Federation tab of an
// application or authorisation server is that entity's page; its
// breadcrumb went Organisations › Acme Bank › Federation, with no way to
// the application itself. It now passes through the entity, linked.
func TestFederationTabCrumbsNameTheEntity(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme Bank"))["OrganisationId"].(string)
	aid := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.example/cb"]}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/organisations/" + oid + "/softwarestatements/" + aid + "/federation")
	if err != nil {
		t.Fatal(err)
	}
	crumbs := docOf(t, resp).Find(`nav[aria-label=breadcrumb]`)
	text := strings.Join(strings.Fields(crumbs.Text()), " ")
	href, _ := crumbs.Find(`a:contains("Payments app")`).Attr("href")
	if !strings.Contains(text, "Acme Bank") || !strings.Contains(text, "Payments app") || !strings.HasSuffix(text, "Federation") || href != "/organisations/"+oid+"/softwarestatements/"+aid {
		t.Fatalf("crumbs %q, application link %q", text, href)
	}
}
