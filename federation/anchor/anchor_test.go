package anchor

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

func writeKey(t *testing.T, dir, name string) *ecdsa.PrivateKey {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return k
}

func publicJWKS(k crypto.Signer, kid string) string {
	b, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: k.Public(), KeyID: kid, Algorithm: "ES256", Use: "sig"}}})
	return string(b)
}

// fakeFederation is a subordinate trust anchor serving its own entity configuration.
func fakeFederation(t *testing.T, metadata map[string]any, hints ...string) (string, string) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	var self string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k, KeyID: "sub-1"}}, (&jose.SignerOptions{}).WithType("entity-statement+jwt"))
		payload, _ := json.Marshal(map[string]any{"iss": self, "sub": self, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(),
			"jwks": json.RawMessage(publicJWKS(k, "sub-1")), "metadata": metadata, "authority_hints": hints})
		jws, _ := sig.Sign(payload)
		s, _ := jws.CompactSerialize()
		w.Header().Set("Content-Type", "application/entity-statement+jwt")
		w.Write([]byte(s))
	}))
	t.Cleanup(srv.Close)
	self = srv.URL
	return self, publicJWKS(k, "sub-1")
}

func writeConfig(t *testing.T, dir, body string) string {
	p := filepath.Join(dir, "anchor.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func parseStatement(t *testing.T, tok, typ string, keys jose.JSONWebKeySet) map[string]any {
	t.Helper()
	jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := jws.Signatures[0].Header.ExtraHeaders[jose.HeaderType].(string); h != typ {
		t.Fatalf("typ %q, want %s", h, typ)
	}
	ks := keys.Key(jws.Signatures[0].Header.KeyID)
	if len(ks) != 1 {
		t.Fatalf("kid %q not in the anchor's jwks", jws.Signatures[0].Header.KeyID)
	}
	payload, err := jws.Verify(ks[0])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	json.Unmarshal(payload, &c)
	return c
}

func get(t *testing.T, base, path string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestAnchorEndpoints(t *testing.T) {
	dir := t.TempDir()
	writeKey(t, dir, "anchor-1.pem")
	sub, subJWKS := fakeFederation(t, map[string]any{"openid_relying_party": map[string]any{"grant_types": []any{"authorization_code", "implicit"}, "client_name": "Fed A RP"}}, "http://127.0.0.1:8090")
	os.WriteFile(filepath.Join(dir, "fed-a.jwks.json"), []byte(subJWKS), 0o600)
	cfg := writeConfig(t, dir, `entity_id: http://127.0.0.1:8090
organization_name: Example Federation Link
statement_lifetime: 2h
keys:
  - file: anchor-1.pem
    alg: ES256
subordinates:
  - entity_id: `+sub+`
    jwks_file: fed-a.jwks.json
    entity_types: [federation_entity]
    metadata_policy: {openid_relying_party: {grant_types: {subset_of: [authorization_code]}}}
    constraints: {max_path_length: 1, allowed_entity_types: [openid_provider, openid_relying_party]}
  - entity_id: https://fed-b.example.org
    jwks: {keys: [{kty: EC, crv: P-256, x: "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4", y: "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM", kid: b1}]}
    entity_types: [openid_provider]
`)
	a, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewServer(a))
	defer srv.Close()

	resp, ec := get(t, srv.URL, "/.well-known/openid-federation")
	if resp.Header.Get("Content-Type") != "application/entity-statement+jwt" {
		t.Fatal(resp.Header.Get("Content-Type"))
	}
	// A shared cache keeps it a minute at most (statementMaxAge).
	if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=60" {
		t.Fatalf("Cache-Control %q", cc)
	}
	var keys jose.JSONWebKeySet
	{
		jws, _ := jose.ParseSignedCompact(ec, []jose.SignatureAlgorithm{jose.ES256})
		var c struct{ JWKS jose.JSONWebKeySet }
		json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c)
		keys = c.JWKS
	}
	c := parseStatement(t, ec, "entity-statement+jwt", keys)
	fe := c["metadata"].(map[string]any)["federation_entity"].(map[string]any)
	if c["iss"] != "http://127.0.0.1:8090" || c["sub"] != c["iss"] || c["authority_hints"] != nil ||
		fe["federation_fetch_endpoint"] != "http://127.0.0.1:8090/fetch" || fe["federation_resolve_endpoint"] != "http://127.0.0.1:8090/resolve" ||
		fe["organization_name"] != "Example Federation Link" || c["exp"].(float64)-c["iat"].(float64) != 7200 {
		t.Fatalf("entity configuration %v", c)
	}
	for _, k := range keys.Keys {
		if !k.IsPublic() {
			t.Fatal("a private key in the anchor's jwks")
		}
	}

	_, st := get(t, srv.URL, "/fetch?sub="+sub)
	sc := parseStatement(t, st, "entity-statement+jwt", keys)
	if sc["sub"] != sub || sc["metadata_policy"] == nil || sc["constraints"].(map[string]any)["max_path_length"].(float64) != 1 || sc["jwks"] == nil {
		t.Fatalf("subordinate statement %v", sc)
	}
	for path, want := range map[string]string{
		"/fetch?sub=https://nobody.example": "not_found",
		"/fetch":                            "invalid_request",
		"/fetch?sub=x&iss=y":                "not_found",       // iss is ignored, not refused
		"/fetch?sub=http://127.0.0.1:8090":  "invalid_request", // the anchor itself
		"/resolve?sub=" + sub:               "invalid_request",
		"/resolve?sub=" + sub + "&trust_anchor=https://other.example": "invalid_trust_anchor",
		"/nothing": "not_found",
	} {
		r, body := get(t, srv.URL, path)
		var e map[string]string
		json.Unmarshal([]byte(body), &e)
		status := map[string]int{"not_found": 404, "invalid_trust_anchor": 404, "invalid_request": 400}[want]
		if e["error"] != want || r.StatusCode != status || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s, want %d %s", path, r.StatusCode, body, status, want)
		}
	}
	// Parameters an endpoint does not know are ignored (the filters the
	// specification defines but this anchor does not support, trust_marked
	// among them, are 400 unsupported_parameter: TestAnchorListAndResolveParameters).
	if r, body := get(t, srv.URL, "/list?unknown=true"); r.StatusCode != 200 || !strings.Contains(body, sub) {
		t.Fatalf("list with an unused parameter: %d %s", r.StatusCode, body)
	}
	if r, body := get(t, srv.URL, "/fetch?sub="+sub+"&iss=http://127.0.0.1:8090"); r.StatusCode != 200 {
		t.Fatalf("fetch with iss: %d %s", r.StatusCode, body)
	}
	_, list := get(t, srv.URL, "/list")
	_, listOP := get(t, srv.URL, "/list?entity_type=openid_provider")
	_, listBoth := get(t, srv.URL, "/list?entity_type=openid_provider&entity_type=federation_entity")
	if !strings.Contains(list, sub) || !strings.Contains(list, "fed-b") || strings.Contains(listOP, sub) || !strings.Contains(listOP, "fed-b") || !strings.Contains(listBoth, sub) {
		t.Fatalf("list %s / %s / %s", list, listOP, listBoth)
	}

	resp, rr := get(t, srv.URL, "/resolve?sub="+sub+"&trust_anchor=http://127.0.0.1:8090")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/resolve-response+jwt" {
		t.Fatalf("resolve: %d %s", resp.StatusCode, rr)
	}
	rc := parseStatement(t, rr, "resolve-response+jwt", keys)
	rp := rc["metadata"].(map[string]any)["openid_relying_party"].(map[string]any)
	if gt := rp["grant_types"].([]any); len(gt) != 1 || gt[0] != "authorization_code" || rp["client_name"] != "Fed A RP" {
		t.Fatalf("resolved metadata %v", rp)
	}
	chain := rc["trust_chain"].([]any)
	if len(chain) != 3 {
		t.Fatalf("chain %d", len(chain))
	}
	parseStatement(t, chain[1].(string), "entity-statement+jwt", keys)
	parseStatement(t, chain[2].(string), "entity-statement+jwt", keys)
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	writeKey(t, dir, "k.pem")
	os.WriteFile(filepath.Join(dir, "notakey.pem"), []byte("hello"), 0o600)
	cases := map[string]struct{ body, want string }{
		"unknown alg":        {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: HS256}]\n", "k.pem: alg \"HS256\" does not fit"},
		"alg of another key": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: PS256}]\n", "does not fit"},
		"unreadable key":     {"entity_id: https://a.example\nkeys: [{file: missing.pem, alg: ES256}]\n", "missing.pem: open"},
		"not a key":          {"entity_id: https://a.example\nkeys: [{file: notakey.pem, alg: ES256}]\n", "notakey.pem: not a PEM file"},
		"no keys":            {"entity_id: https://a.example\n", "at least one signing key"},
		"duplicate subordinate": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: https://s.example, jwks_uri: https://s.example/jwks}\n  - {entity_id: https://s.example, jwks_uri: https://s.example/jwks}\n",
			"subordinates[1] (https://s.example): duplicate subordinate"},
		"illegal policy": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - entity_id: https://s.example\n    jwks_uri: https://s.example/jwks\n    metadata_policy: {openid_provider: {alg: {one_of: [PS256], add: [PS256]}}}\n",
			"metadata_policy.openid_provider.alg: one_of cannot be combined with add"},
		"unknown field":    {"entity_id: https://a.example\nkees: []\n", "kees"},
		"bad entity id":    {"entity_id: ftp://a.example\nkeys: [{file: k.pem, alg: ES256}]\n", "entity_id"},
		"http subordinate": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: http://s.example, jwks_uri: https://s.example/jwks}\n", "http only on loopback"},
		"negative max_path_length": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: https://s.example, jwks_uri: https://s.example/jwks, constraints: {max_path_length: -1}}\n",
			"subordinates[0] (https://s.example): constraints: max_path_length"},
		"naming_constraints not an object": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: https://s.example, jwks_uri: https://s.example/jwks, constraints: {naming_constraints: [.example.com]}}\n",
			"constraints: naming_constraints"},
		"federation_entity in allowed_entity_types": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: https://s.example, jwks_uri: https://s.example/jwks, constraints: {allowed_entity_types: [federation_entity]}}\n",
			"federation_entity"},
		"jwks key without kid": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: https://s.example, jwks: {keys: [{kty: EC, crv: P-256, x: \"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4\", y: \"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM\"}]}}\n",
			"kid"},
		"jwks kid twice": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: https://s.example, jwks: {keys: [{kty: EC, crv: P-256, x: \"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4\", y: \"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM\", kid: b1}, {kty: EC, crv: P-256, x: \"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4\", y: \"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM\", kid: b1}]}}\n",
			"kid \"b1\""},
		"metadata with a null parameter": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: https://s.example, jwks_uri: https://s.example/jwks, metadata: {openid_relying_party: {client_name: null}}}\n",
			"metadata.openid_relying_party.client_name is null"},
		"metadata of an entity type not an object": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: https://s.example, jwks_uri: https://s.example/jwks, metadata: {openid_relying_party: RP}}\n",
			"metadata.openid_relying_party must be a JSON object"},
		"same key twice":   {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}, {file: k.pem, alg: ES256}]\n", "keys[1]"},
		"two jwks sources": {"entity_id: https://a.example\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n  - {entity_id: https://s.example, jwks_uri: https://s.example/jwks, jwks_file: x.json}\n", "exactly one of"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := writeConfig(t, dir, c.body)
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("%v, want %q and the file name", err, c.want)
			}
		})
	}
}

// TestAnchorAnswersHEAD: HEAD is GET's answer without the body
// (docs/design.md §4); another method is 405 with Allow: GET, HEAD.
func TestAnchorAnswersHEAD(t *testing.T) {
	dir := t.TempDir()
	writeKey(t, dir, "anchor-1.pem")
	a, err := Load(writeConfig(t, dir, `entity_id: http://127.0.0.1:8090
keys:
  - file: anchor-1.pem
    alg: ES256
`))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewServer(a))
	defer srv.Close()
	for _, path := range []string{"/.well-known/openid-federation", "/list", "/fetch?sub=https://nobody.example"} {
		g, _ := get(t, srv.URL, path)
		resp, err := http.Head(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != g.StatusCode || len(b) != 0 || resp.Header.Get("Content-Type") != g.Header.Get("Content-Type") || resp.Header.Get("Cache-Control") != g.Header.Get("Cache-Control") {
			t.Errorf("HEAD %s: %d %q %q (%d bytes), GET %d %q %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"), len(b),
				g.StatusCode, g.Header.Get("Content-Type"), g.Header.Get("Cache-Control"))
		}
	}
	resp, err := http.Post(srv.URL+"/list", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /list: %d Allow %q, want 405 Allow GET, HEAD", resp.StatusCode, resp.Header.Get("Allow"))
	}
}
