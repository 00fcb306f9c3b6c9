package anchor

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// entity is a federation entity served by a test: its entity configuration
// and, for an intermediate, a fetch endpoint with statements about its
// subordinates.
type entity struct {
	srv      *httptest.Server
	key      *ecdsa.PrivateKey
	hints    []string
	metadata map[string]any
	subs     map[string]map[string]any // sub → extra claims (metadata_policy, constraints, jwks)
	ecEdit   func(map[string]any)      // if set, changes the entity configuration's claims
	noKid    bool                      // sign without a kid header
	typ      string                    // the typ header: entity-statement+jwt when empty, none with "-"
	stmtKey  *ecdsa.PrivateKey         // if set, signs the fetch answers (kid "s-…") instead of key
	hits     atomic.Int64              // requests it answered
	hold     chan struct{}             // if set, each answer waits until it is closed
}

func (e *entity) id() string { return e.srv.URL }

func (e *entity) jwks() json.RawMessage {
	return json.RawMessage(publicJWKS(e.key, "k-"+e.srv.URL[len(e.srv.URL)-5:]))
}

func (e *entity) sign(claims map[string]any) string {
	return e.signWith(e.key, "k-"+e.srv.URL[len(e.srv.URL)-5:], claims)
}

func (e *entity) signWith(key *ecdsa.PrivateKey, kid string, claims map[string]any) string {
	if e.noKid {
		kid = ""
	}
	opts := &jose.SignerOptions{}
	switch e.typ {
	case "":
		opts = opts.WithType("entity-statement+jwt")
	case "-":
	default:
		opts = opts.WithType(jose.ContentType(e.typ))
	}
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, opts)
	b, _ := json.Marshal(claims)
	jws, _ := sig.Sign(b)
	s, _ := jws.CompactSerialize()
	return s
}

func newEntity(t *testing.T, metadata map[string]any, hints ...string) *entity {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	e := &entity{key: k, hints: hints, metadata: metadata, subs: map[string]map[string]any{}}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.hits.Add(1)
		if e.hold != nil {
			<-e.hold
		}
		now := time.Now()
		switch r.URL.Path {
		case "/.well-known/openid-federation":
			md := map[string]any{}
			for k, v := range e.metadata {
				md[k] = v
			}
			if len(e.subs) > 0 {
				md["federation_entity"] = map[string]any{"federation_fetch_endpoint": e.id() + "/fetch"}
			}
			ec := map[string]any{"iss": e.id(), "sub": e.id(), "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
				"jwks": e.jwks(), "metadata": md, "authority_hints": e.hints}
			if e.ecEdit != nil {
				e.ecEdit(ec)
			}
			w.Write([]byte(e.sign(ec)))
		case "/fetch":
			extra, ok := e.subs[r.URL.Query().Get("sub")]
			if !ok {
				w.WriteHeader(404)
				return
			}
			c := map[string]any{"iss": e.id(), "sub": r.URL.Query().Get("sub"), "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
			for k, v := range extra {
				c[k] = v
			}
			if e.stmtKey != nil {
				w.Write([]byte(e.signWith(e.stmtKey, "s-"+e.srv.URL[len(e.srv.URL)-5:], c)))
				return
			}
			w.Write([]byte(e.sign(c)))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(e.srv.Close)
	return e
}

const anchorID = "http://127.0.0.1:8090"

func anchorWith(t *testing.T, subs string) (*httptest.Server, jose.JSONWebKeySet) {
	srv := httptest.NewServer(anchorServer(t, subs))
	t.Cleanup(srv.Close)
	_, ec := get(t, srv.URL, "/.well-known/openid-federation")
	jws, _ := jose.ParseSignedCompact(ec, []jose.SignatureAlgorithm{jose.ES256})
	var c struct{ JWKS jose.JSONWebKeySet }
	json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c)
	return srv, c.JWKS
}

// anchorServer is the anchor anchorID with the given subordinates (YAML
// list items), not yet listening.
func anchorServer(t *testing.T, subs string) *Server {
	dir := t.TempDir()
	writeKey(t, dir, "anchor.pem")
	a, err := Load(writeConfig(t, dir, "entity_id: "+anchorID+"\nkeys: [{file: anchor.pem, alg: ES256}]\nsubordinates:\n"+subs))
	if err != nil {
		t.Fatal(err)
	}
	return NewServer(a)
}

func jwksFile(t *testing.T, e *entity) string {
	p := filepath.Join(t.TempDir(), "k.json")
	os.WriteFile(p, e.jwks(), 0o600)
	return p
}

// TestResolveThroughIntermediate: anchor → intermediate → leaf; the
// policies of both statements are merged and applied.
func TestResolveThroughIntermediate(t *testing.T) {
	inter := newEntity(t, nil, anchorID)
	leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"grant_types": []any{"authorization_code", "implicit", "refresh_token"}, "client_name": "Leaf"}}, inter.id())
	inter.subs[leaf.id()] = map[string]any{"jwks": leaf.jwks(),
		"metadata_policy": map[string]any{"openid_relying_party": map[string]any{"grant_types": map[string]any{"subset_of": []any{"authorization_code", "refresh_token"}}}}}
	srv, keys := anchorWith(t, "  - entity_id: "+inter.id()+"\n    jwks_file: "+jwksFile(t, inter)+"\n    entity_types: [federation_entity]\n"+
		"    metadata_policy: {openid_relying_party: {grant_types: {subset_of: [authorization_code, implicit]}, contacts: {add: [ops@anchor.example]}}}\n")

	resp, body := get(t, srv.URL, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID)
	if resp.StatusCode != 200 {
		t.Fatalf("resolve through the intermediate: %d %s", resp.StatusCode, body)
	}
	rc := parseStatement(t, body, "resolve-response+jwt", keys)
	rp := rc["metadata"].(map[string]any)["openid_relying_party"].(map[string]any)
	if gt := rp["grant_types"].([]any); len(gt) != 1 || gt[0] != "authorization_code" {
		t.Fatalf("merged subset_of not applied: %v", rp)
	}
	if c := rp["contacts"].([]any); len(c) != 1 || c[0] != "ops@anchor.example" {
		t.Fatalf("the anchor's add not applied: %v", rp)
	}
	if chain := rc["trust_chain"].([]any); len(chain) != 4 {
		t.Fatalf("a three-level chain has four statements, not %d", len(chain))
	}
	// A leaf the intermediate does not vouch for is not resolved.
	stranger := newEntity(t, nil, inter.id())
	if resp, body := get(t, srv.URL, "/resolve?sub="+stranger.id()+"&trust_anchor="+anchorID); resp.StatusCode != 404 {
		t.Fatalf("a leaf nobody vouches for: %d %s", resp.StatusCode, body)
	}
	// max_path_length 0 on the intermediate refuses its leaves.
	srv0, _ := anchorWith(t, "  - entity_id: "+inter.id()+"\n    jwks_file: "+jwksFile(t, inter)+"\n    constraints: {max_path_length: 0}\n")
	if resp, body := get(t, srv0.URL, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID); resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, "max_path_length") {
		t.Fatalf("max_path_length 0: %d %s", resp.StatusCode, body)
	}
}

// TestResolveAppliesAllowedEntityTypes: an RP-only subordinate's
// openid_provider metadata is removed from the resolution.
func TestResolveAppliesAllowedEntityTypes(t *testing.T) {
	e := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "RP"}, "openid_provider": map[string]any{"issuer": "x"}}, anchorID)
	srv, keys := anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+jwksFile(t, e)+"\n    constraints: {allowed_entity_types: [openid_relying_party]}\n")
	resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+anchorID)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	md := parseStatement(t, body, "resolve-response+jwt", keys)["metadata"].(map[string]any)
	if _, ok := md["openid_provider"]; ok {
		t.Fatalf("openid_provider metadata kept: %v", md)
	}
	if _, ok := md["openid_relying_party"]; !ok {
		t.Fatalf("openid_relying_party metadata lost: %v", md)
	}
}

// TestResolveInvalidChain: a chain that does not hold is 400
// invalid_trust_chain: authority_hints not naming the anchor, a wrong key,
// a leaf serving garbage.
func TestResolveInvalidChain(t *testing.T) {
	noHint := newEntity(t, map[string]any{}, "https://other.example")
	wrongKey := newEntity(t, map[string]any{}, anchorID)
	other := newEntity(t, nil)
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("not a jwt")) }))
	defer garbage.Close()
	srv, _ := anchorWith(t, "  - {entity_id: "+noHint.id()+", jwks_file: "+jwksFile(t, noHint)+"}\n"+
		"  - {entity_id: "+wrongKey.id()+", jwks_file: "+jwksFile(t, other)+"}\n"+
		"  - {entity_id: "+garbage.URL+", jwks_file: "+jwksFile(t, other)+"}\n")
	for name, c := range map[string]struct{ sub, want string }{
		"authority_hints": {noHint.id(), "authority_hints"},
		"wrong key":       {wrongKey.id(), "signature"},
		"garbage":         {garbage.URL, "not a signed statement"},
	} {
		resp, body := get(t, srv.URL, "/resolve?sub="+c.sub+"&trust_anchor="+anchorID+"&unused=1")
		if resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s", name, resp.StatusCode, body)
		}
	}
}

// TestResolveIntermediateStatementVerifiesWithTheAnchorsKeys: the
// intermediate's statement about the leaf must verify with a key of the
// anchor's statement about the intermediate (the next statement up the
// chain), not only with a key the intermediate publishes in its own entity
// configuration: otherwise the trust_chain answered does not verify link by
// link (docs/design.md §13).
func TestResolveIntermediateStatementVerifiesWithTheAnchorsKeys(t *testing.T) {
	inter := newEntity(t, nil, anchorID)
	leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Leaf"}}, inter.id())
	inter.subs[leaf.id()] = map[string]any{"jwks": leaf.jwks()}
	kf := jwksFile(t, inter) // what the anchor holds for the intermediate: its first key only
	second, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	inter.stmtKey = second
	inter.ecEdit = func(m map[string]any) {
		var set jose.JSONWebKeySet
		_ = json.Unmarshal(inter.jwks(), &set)
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: second.Public(), KeyID: "s-" + inter.srv.URL[len(inter.srv.URL)-5:], Algorithm: "ES256", Use: "sig"})
		m["jwks"] = set
	}
	srv, _ := anchorWith(t, "  - entity_id: "+inter.id()+"\n    jwks_file: "+kf+"\n")
	resp, body := get(t, srv.URL, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID)
	if resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") {
		t.Fatalf("a statement signed with a key the anchor does not hold for the intermediate: %d %.300s", resp.StatusCode, body)
	}
	// Signed with the key the anchor holds, it resolves.
	inter.stmtKey = nil
	if resp, body := get(t, srv.URL, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID); resp.StatusCode != 200 {
		t.Fatalf("%d %.300s", resp.StatusCode, body)
	}
}

// checkChain validates a trust_chain as a relying party does: ES[0] is the
// subject's configuration verified by its own jwks; each ES[j] is issued by
// the subject of ES[j+1] and verifies with a key of its jwks; the last is
// the anchor's configuration, verified with the anchor's keys.
func checkChain(t *testing.T, chain []any, subject string, anchorKeys jose.JSONWebKeySet) {
	t.Helper()
	type es struct {
		jws    *jose.JSONWebSignature
		claims map[string]any
		keys   jose.JSONWebKeySet
	}
	all := make([]es, len(chain))
	for i, c := range chain {
		jws, err := jose.ParseSignedCompact(c.(string), []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatalf("ES[%d]: %v", i, err)
		}
		if typ, _ := jws.Signatures[0].Header.ExtraHeaders[jose.HeaderType].(string); typ != "entity-statement+jwt" {
			t.Fatalf("ES[%d]: typ %q", i, typ)
		}
		var claims map[string]any
		_ = json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claims)
		var keys jose.JSONWebKeySet
		kb, _ := json.Marshal(claims["jwks"])
		_ = json.Unmarshal(kb, &keys)
		all[i] = es{jws, claims, keys}
	}
	verifies := func(i int, keys jose.JSONWebKeySet) bool {
		for _, k := range keys.Key(all[i].jws.Signatures[0].Header.KeyID) {
			if _, err := all[i].jws.Verify(k); err == nil {
				return true
			}
		}
		return false
	}
	last := len(all) - 1
	if all[0].claims["iss"] != subject || all[0].claims["sub"] != subject || !verifies(0, all[0].keys) {
		t.Fatalf("ES[0] is not the subject's own configuration verified by its jwks: %v", all[0].claims)
	}
	for j := 0; j < last; j++ {
		if all[j].claims["iss"] != all[j+1].claims["sub"] || !verifies(j, all[j+1].keys) {
			t.Fatalf("ES[%d] (iss %v) does not verify with ES[%d] (sub %v)", j, all[j].claims["iss"], j+1, all[j+1].claims["sub"])
		}
	}
	if all[last].claims["iss"] != anchorID || all[last].claims["sub"] != anchorID || !verifies(last, anchorKeys) {
		t.Fatalf("the last statement is not the anchor's configuration: %v", all[last].claims)
	}
}

// TestResolveTrustChainVerifiesLinkByLink: the trust_chain answered holds
// as a relying party checks it, directly and through an intermediate
// (docs/design.md §13).
func TestResolveTrustChainVerifiesLinkByLink(t *testing.T) {
	inter := newEntity(t, nil, anchorID)
	leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Leaf"}}, inter.id())
	inter.subs[leaf.id()] = map[string]any{"jwks": leaf.jwks()}
	direct := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Direct"}}, anchorID)
	srv, keys := anchorWith(t, "  - entity_id: "+inter.id()+"\n    jwks_file: "+jwksFile(t, inter)+"\n"+
		"  - entity_id: "+direct.id()+"\n    jwks_file: "+jwksFile(t, direct)+"\n")
	for sub, n := range map[string]int{leaf.id(): 4, direct.id(): 3} {
		resp, body := get(t, srv.URL, "/resolve?sub="+sub+"&trust_anchor="+anchorID)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %.300s", sub, resp.StatusCode, body)
		}
		chain := parseStatement(t, body, "resolve-response+jwt", keys)["trust_chain"].([]any)
		if len(chain) != n {
			t.Fatalf("%s: %d statements, want %d", sub, len(chain), n)
		}
		checkChain(t, chain, sub, keys)
	}
}

// TestResolveFetchesWithinABudget: /resolve is public and fetches the
// subject's configuration, or, for a subject the anchor does not know, each
// intermediate's configuration and fetch endpoint; a stream of resolves
// calls each address at most a burst and then about once a second
// (FetchGuard), answering from the last answer meanwhile, so the anchor
// cannot be used to flood its subordinates (docs/design.md §8).
func TestResolveFetchesWithinABudget(t *testing.T) {
	inter := newEntity(t, nil, anchorID)
	leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Leaf"}}, anchorID)
	inter.subs["https://elsewhere.example"] = map[string]any{}
	srv, _ := anchorWith(t, "  - entity_id: "+inter.id()+"\n    jwks_file: "+jwksFile(t, inter)+"\n    entity_types: [federation_entity]\n"+
		"  - entity_id: "+leaf.id()+"\n    jwks_file: "+jwksFile(t, leaf)+"\n")
	start := time.Now()
	const n = 60
	for i := range n {
		if resp, body := get(t, srv.URL, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID); resp.StatusCode != 200 {
			t.Fatalf("resolve %d of the leaf: %d %s", i, resp.StatusCode, body)
		}
		if resp, body := get(t, srv.URL, "/resolve?sub=https://stranger.example&trust_anchor="+anchorID); resp.StatusCode != 404 {
			t.Fatalf("resolve %d of a stranger: %d %s", i, resp.StatusCode, body)
		}
	}
	limit := int64(30 + time.Since(start).Seconds() + 1)
	if got := leaf.hits.Load(); got > limit {
		t.Fatalf("%d resolves fetched the leaf %d times, want at most %d", n, got, limit)
	}
	// The intermediate: its configuration and its fetch endpoint, each
	// within its own budget.
	if got := inter.hits.Load(); got > 2*limit {
		t.Fatalf("%d resolves of a stranger called the intermediate %d times, want at most %d", n, got, 2*limit)
	}
}
