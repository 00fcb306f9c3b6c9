package web_test

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

// specLeaf serves an entity configuration whose claims and headers a test
// shapes, to check what the directory's resolve endpoint accepts
// (OpenID Federation 1.0, Entity Statement Validation and Trust Chain
// validation).
type specLeaf struct {
	srv    *httptest.Server
	key    *ecdsa.PrivateKey
	kid    string
	noKid  bool
	typ    string // the typ header: entity-statement+jwt when empty, none with "-"
	claims func(id string, now time.Time) map[string]any
	hits   atomic.Int64  // requests for the entity configuration
	hold   chan struct{} // when set, the entity configuration is answered once it is closed
}

func newSpecLeaf(t *testing.T, key *ecdsa.PrivateKey, kid string) *specLeaf {
	l := &specLeaf{key: key, kid: kid}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/openid-federation" {
			http.NotFound(w, r)
			return
		}
		l.hits.Add(1)
		if l.hold != nil {
			select {
			case <-l.hold:
			case <-r.Context().Done():
			}
		}
		id := l.srv.URL
		sk := jose.JSONWebKey{Key: key, KeyID: l.kid}
		if l.noKid {
			sk.KeyID = ""
		}
		opts := &jose.SignerOptions{}
		switch l.typ {
		case "":
			opts = opts.WithType("entity-statement+jwt")
		case "-":
		default:
			opts = opts.WithType(jose.ContentType(l.typ))
		}
		signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: sk}, opts)
		b, _ := json.Marshal(l.claims(id, time.Now()))
		jws, _ := signer.Sign(b)
		s, _ := jws.CompactSerialize()
		w.Header().Set("Content-Type", "application/entity-statement+jwt")
		_, _ = io.WriteString(w, s)
	}))
	t.Cleanup(l.srv.Close)
	return l
}

// TestFederationResolveFetchesWithinABudget: resolve is public, and each
// one fetches the participant's entity configuration; a stream of resolves
// about one participant fetches it at most a burst and then about once a
// second, answering from the last configuration fetched meanwhile, so the
// directory cannot be used to flood a participant (docs/design.md §13).
func TestFederationResolveFetchesWithinABudget(t *testing.T) {
	env, leaf, _ := specEnv(t)
	start := time.Now()
	const n = 60
	for i := range n {
		if code, _, body := fedGet(t, env, resolvePath(env, leaf.srv.URL)); code != 200 {
			t.Fatalf("resolve %d: %d %s", i, code, body)
		}
	}
	limit := int64(30 + time.Since(start).Seconds() + 1)
	if got := leaf.hits.Load(); got > limit || got < 30 {
		t.Fatalf("%d resolves fetched the entity configuration %d times, want 30 to %d", n, got, limit)
	}
}

// TestFederationResolveVouchesOnlyForTheRegisteredKind: the directory's
// statement about an application allows only client entity types
// (constraints.allowed_entity_types), and resolve drops the rest: an
// application that declares itself an OpenID Provider is not resolved as
// one with the directory's signature (docs/design.md §13).
func TestFederationResolveVouchesOnlyForTheRegisteredKind(t *testing.T) {
	env, leaf, keys := specEnv(t)
	base := leaf.claims
	leaf.claims = func(id string, now time.Time) map[string]any {
		c := base(id, now)
		c["metadata"].(map[string]any)["openid_provider"] = map[string]any{"issuer": id}
		return c
	}
	code, _, st := fedGet(t, env, "/federation/fetch?sub="+url.QueryEscape(leaf.srv.URL))
	if code != 200 {
		t.Fatalf("fetch: %d %s", code, st)
	}
	cons, _ := fedClaims(t, st, "entity-statement+jwt", &keys)["constraints"].(map[string]any)
	if got := fmt.Sprint(cons["allowed_entity_types"]); got != "[oauth_client openid_relying_party]" {
		t.Fatalf("the statement's allowed_entity_types: %s (constraints %v)", got, cons)
	}
	code, _, tok := fedGet(t, env, resolvePath(env, leaf.srv.URL))
	if code != 200 {
		t.Fatalf("resolve: %d %s", code, tok)
	}
	md := fedClaims(t, tok, "resolve-response+jwt", &keys)["metadata"].(map[string]any)
	if md["openid_provider"] != nil {
		t.Fatalf("an application resolved as an OpenID Provider: %v", md)
	}
	if md["openid_relying_party"] == nil || md["federation_entity"] == nil {
		t.Fatalf("the allowed types were dropped too: %v", md)
	}
}

// TestFederationResolveAppliesStatementMetadata: the metadata claim of the
// directory's subordinate statement (the organisation's name under
// federation_entity) overrides the leaf's own parameters of that entity
// type before policies apply (OpenID Federation 1.0, the metadata claim and
// Metadata Policy Application), and adds no entity type the leaf lacks.
func TestFederationResolveAppliesStatementMetadata(t *testing.T) {
	env, leaf, keys := specEnv(t)
	code, _, tok := fedGet(t, env, resolvePath(env, leaf.srv.URL))
	if code != 200 {
		t.Fatalf("resolve: %d %s", code, tok)
	}
	md := fedClaims(t, tok, "resolve-response+jwt", &keys)["metadata"].(map[string]any)
	if got := md["federation_entity"].(map[string]any)["organization_name"]; got != "Acme Bank" {
		t.Fatalf("federation_entity.organization_name = %v, want the statement's Acme Bank", got)
	}
	// A leaf without federation_entity metadata does not get it from the statement.
	base := leaf.claims
	leaf.claims = func(id string, now time.Time) map[string]any {
		c := base(id, now)
		delete(c["metadata"].(map[string]any), "federation_entity")
		return c
	}
	code, _, tok = fedGet(t, env, resolvePath(env, leaf.srv.URL))
	if code != 200 {
		t.Fatalf("resolve: %d %s", code, tok)
	}
	if md := fedClaims(t, tok, "resolve-response+jwt", &keys)["metadata"].(map[string]any); md["federation_entity"] != nil {
		t.Fatalf("the statement's metadata added an entity type the leaf does not have: %v", md)
	}
}

// TestFederationResolveValidatesEntityConfiguration: the leaf's entity
// configuration must carry a typ header entity-statement+jwt, a kid
// header, iss = sub, an iat in the past, and a jwks
// claim whose key verifies its signature (OpenID Federation 1.0, Entity
// Statement Validation; Validating a Trust Chain: ES[0] verifies with
// ES[0]["jwks"]); otherwise 400 invalid_trust_chain.
func TestFederationResolveValidatesEntityConfiguration(t *testing.T) {
	env, leaf, _ := specEnv(t)
	base := leaf.claims
	other := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	for name, c := range map[string]struct {
		noKid bool
		typ   string
		edit  func(map[string]any)
		want  string
	}{
		"no kid":                            {noKid: true, want: "kid"},
		"no typ":                            {typ: "-", want: "typ"},
		"typ of another JWT":                {typ: "JWT", want: "typ"},
		"iss is not sub":                    {edit: func(m map[string]any) { m["iss"] = "https://other.example" }, want: "iss and sub"},
		"iat in a future":                   {edit: func(m map[string]any) { m["iat"] = time.Now().Add(time.Hour).Unix() }, want: "iat"},
		"no iat":                            {edit: func(m map[string]any) { delete(m, "iat") }, want: "iat"},
		"no jwks":                           {edit: func(m map[string]any) { delete(m, "jwks") }, want: "jwks"},
		"crit names a claim not understood": {edit: func(m map[string]any) { m["crit"] = []string{"x_limit"}; m["x_limit"] = 1 }, want: "crit"},
		"jwks of another key": {edit: func(m map[string]any) {
			m["jwks"] = jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: other.Public(), KeyID: leaf.kid}}}
		}, want: "jwks"},
	} {
		t.Run(name, func(t *testing.T) {
			leaf.noKid, leaf.typ = c.noKid, c.typ
			leaf.claims = func(id string, now time.Time) map[string]any {
				m := base(id, now)
				if c.edit != nil {
					c.edit(m)
				}
				return m
			}
			code, ctype, body := fedGet(t, env, resolvePath(env, leaf.srv.URL))
			if code != 400 || ctype != "application/json" || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, c.want) {
				t.Fatalf("%d %s %.300s", code, ctype, body)
			}
		})
	}
}

// TestFederationResolveSeveralTrustAnchors: trust_anchor may occur several
// times and the resolver may answer for any of them (OpenID Federation 1.0,
// Resolve Request): one of them being this directory is enough.
func TestFederationResolveSeveralTrustAnchors(t *testing.T) {
	env, leaf, _ := specEnv(t)
	code, ctype, body := fedGet(t, env, "/federation/resolve?sub="+url.QueryEscape(leaf.srv.URL)+
		"&trust_anchor="+url.QueryEscape("https://other.example.com")+"&trust_anchor="+url.QueryEscape(env.URL))
	if code != 200 || ctype != "application/resolve-response+jwt" {
		t.Fatalf("%d %s %.300s", code, ctype, body)
	}
}

// TestFederationListTrustMarkFilters: the list endpoint takes the
// trust_marked, trust_mark_type and intermediate filters (OpenID
// Federation 1.0, Subordinate Listing Request; docs/design.md §17): with
// no trust mark type defined no subordinate is trust marked, and every
// subordinate is a leaf, not an intermediate.
func TestFederationListTrustMarkFilters(t *testing.T) {
	env, leaf, _ := specEnv(t)
	for q, want := range map[string]string{
		"trust_marked=true": "[]", "trust_mark_type=https://tm.example.com/x": "[]", "intermediate=true": "[]",
		"trust_marked=true&trust_mark_type=https://tm.example.com/x": "[]",
		"intermediate=false": `["` + leaf.srv.URL + `"]`, "trust_marked=false": `["` + leaf.srv.URL + `"]`,
	} {
		code, ctype, body := fedGet(t, env, "/federation/list?"+q)
		if code != 200 || ctype != "application/json" || strings.TrimSpace(body) != want {
			t.Errorf("%s: %d %s %s, want %s", q, code, ctype, body, want)
		}
	}
	if code, _, body := fedGet(t, env, "/federation/list?entity_type=openid_relying_party"); code != 200 || !strings.Contains(body, "127.0.0.1") {
		t.Fatalf("entity_type: %d %s", code, body)
	}
}

// TestFederationStatementHasNoEmptyPolicies: a metadata_policy claim holds
// one or more entity types, each with one or more parameter policies
// (OpenID Federation 1.0, Metadata Policy Structure); a subject with no
// policy gets a statement without the claim rather than empty members that
// a strict resolver refuses.
func TestFederationStatementHasNoEmptyPolicies(t *testing.T) {
	env, leaf, keys := specEnv(t)
	code, _, stmt := fedGet(t, env, "/federation/fetch?sub="+url.QueryEscape(leaf.srv.URL))
	if code != 200 {
		t.Fatalf("fetch: %d %s", code, stmt)
	}
	c := fedClaims(t, stmt, "entity-statement+jwt", &keys)
	if mp, ok := c["metadata_policy"]; ok {
		t.Fatalf("a subject without policies has metadata_policy %v", mp)
	}
}

// TestFederationWrongMethodIsAFederationError: the federation endpoints
// take GET; any other method is a 405 with Allow and the federation's JSON
// error shape ({error, error_description}), as the standalone anchor
// answers, not the console's error page.
func TestFederationWrongMethodIsAFederationError(t *testing.T) {
	env := webtest.Start(t, nil)
	for _, path := range []string{"/.well-known/openid-federation", "/federation/fetch", "/federation/list", "/federation/resolve"} {
		for _, method := range []string{"POST", "PUT", "DELETE"} {
			req, _ := http.NewRequest(method, env.URL+path, strings.NewReader("sub=x"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				Error       string `json:"error"`
				Description string `json:"error_description"`
			}
			if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" || resp.Header.Get("Content-Type") != "application/json" ||
				json.Unmarshal(b, &e) != nil || e.Error != "invalid_request" || e.Description == "" {
				t.Errorf("%s %s: %d Allow %q %s %s", method, path, resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("Content-Type"), b)
			}
		}
	}
}

// TestFederationResolveRefusesMalformedMetadata: the leaf's metadata is an
// object of entity types, each an object of parameters, none null;
// otherwise 400 invalid_trust_chain naming the metadata (docs/design.md §13).
func TestFederationResolveRefusesMalformedMetadata(t *testing.T) {
	env, leaf, _ := specEnv(t)
	base := leaf.claims
	for name, md := range map[string]any{
		"entity type null":       map[string]any{"openid_relying_party": nil},
		"entity type a string":   map[string]any{"openid_relying_party": "client"},
		"parameter null":         map[string]any{"openid_relying_party": map[string]any{"client_name": nil}},
		"metadata not an object": "openid_relying_party",
	} {
		t.Run(name, func(t *testing.T) {
			leaf.claims = func(id string, now time.Time) map[string]any {
				m := base(id, now)
				m["metadata"] = md
				return m
			}
			code, ctype, body := fedGet(t, env, resolvePath(env, leaf.srv.URL))
			if code != 400 || ctype != "application/json" || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, "metadata") {
				t.Fatalf("%d %s %.300s", code, ctype, body)
			}
		})
	}
}

// TestFederationResolveRefusesSubordinateClaimsInConfiguration: the leaf's
// entity configuration carries no metadata_policy, metadata_policy_crit or
// constraints, which belong in a subordinate statement; 400
// invalid_trust_chain naming the claim (docs/design.md §13).
func TestFederationResolveRefusesSubordinateClaimsInConfiguration(t *testing.T) {
	env, leaf, _ := specEnv(t)
	base := leaf.claims
	for claim, v := range map[string]any{
		"metadata_policy":      map[string]any{"openid_relying_party": map[string]any{"client_name": map[string]any{"value": "x"}}},
		"metadata_policy_crit": []any{"regexp"},
		"constraints":          map[string]any{"max_path_length": 0},
	} {
		t.Run(claim, func(t *testing.T) {
			leaf.claims = func(id string, now time.Time) map[string]any {
				m := base(id, now)
				m[claim] = v
				return m
			}
			code, _, body := fedGet(t, env, resolvePath(env, leaf.srv.URL))
			if code != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, claim) {
				t.Fatalf("%d %.300s", code, body)
			}
		})
	}
}

// TestFederationResolveExpiresWithTheChain: the resolve response expires
// when the first statement of its trust chain does: here the leaf's entity
// configuration, sooner than the directory's statements (docs/design.md §13).
func TestFederationResolveExpiresWithTheChain(t *testing.T) {
	env, leaf, keys := specEnv(t)
	base := leaf.claims
	leafExp := time.Now().Add(10 * time.Minute).Unix()
	leaf.claims = func(id string, now time.Time) map[string]any {
		m := base(id, now)
		m["exp"] = leafExp
		return m
	}
	code, _, tok := fedGet(t, env, resolvePath(env, leaf.srv.URL))
	if code != 200 {
		t.Fatalf("resolve: %d %s", code, tok)
	}
	if exp := fedClaims(t, tok, "resolve-response+jwt", &keys)["exp"].(float64); int64(exp) != leafExp {
		t.Fatalf("exp %d, want the leaf configuration's %d", int64(exp), leafExp)
	}
}

// TestFederationErrorCodes: each bad request gets its error code and status
// in the federation's JSON shape (docs/design.md §13): a missing parameter,
// and fetch about the directory itself, 400 invalid_request; an unknown
// subject 404 not_found; another trust anchor 404 invalid_trust_anchor.
func TestFederationErrorCodes(t *testing.T) {
	env, _, _ := specEnv(t)
	own := url.QueryEscape(env.URL)
	for path, want := range map[string]struct {
		code  int
		error string
	}{
		"/federation/fetch":                                                      {400, "invalid_request"},
		"/federation/fetch?sub=" + own:                                           {400, "invalid_request"},
		"/federation/fetch?sub=https://nobody.example.com":                       {404, "not_found"},
		"/federation/fetch?sub=https://a.example.com&sub=https://b.example.com":  {400, "invalid_request"},
		"/federation/resolve?sub=https://nobody.example.com":                     {400, "invalid_request"},
		"/federation/resolve?trust_anchor=" + own:                                {400, "invalid_request"},
		"/federation/resolve?sub=x&trust_anchor=https://other.org":               {404, "invalid_trust_anchor"},
		"/federation/resolve?sub=https://nobody.example.com&trust_anchor=" + own: {404, "not_found"},
	} {
		code, ctype, body := fedGet(t, env, path)
		var e map[string]string
		if code != want.code || ctype != "application/json" || json.Unmarshal([]byte(body), &e) != nil || e["error"] != want.error || e["error_description"] == "" {
			t.Errorf("%s: %d %s %s, want %d %s", path, code, ctype, body, want.code, want.error)
		}
	}
}

// TestFederationResolveEntityTypeFilter: entity_type keeps only the
// metadata of the types named, and may be repeated (docs/design.md §13).
func TestFederationResolveEntityTypeFilter(t *testing.T) {
	env, leaf, keys := specEnv(t)
	for q, want := range map[string]string{
		"&entity_type=openid_relying_party":                               "openid_relying_party",
		"&entity_type=openid_relying_party&entity_type=federation_entity": "federation_entity,openid_relying_party",
		"&entity_type=openid_provider":                                    "",
	} {
		code, _, tok := fedGet(t, env, resolvePath(env, leaf.srv.URL)+q)
		if code != 200 {
			t.Fatalf("%s: %d %s", q, code, tok)
		}
		got := []string{}
		for k := range fedClaims(t, tok, "resolve-response+jwt", &keys)["metadata"].(map[string]any) {
			got = append(got, k)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != want {
			t.Errorf("%s: metadata of %v, want %s", q, got, want)
		}
	}
}

// TestFederationResolveChecksConfigurationSyntax: authority_hints and
// trust_anchor_hints are non-empty arrays of entity IDs, trust_marks an
// array of {trust_mark_type, trust_mark} whose JWT names that type; else 400
// invalid_trust_chain naming the claim (docs/design.md §13).
func TestFederationResolveChecksConfigurationSyntax(t *testing.T) {
	env, leaf, _ := specEnv(t)
	base := leaf.claims
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: leaf.key}, (&jose.SignerOptions{}).WithType("trust-mark+jwt"))
	jws, _ := signer.Sign([]byte(`{"trust_mark_type":"https://tm.example.com/a","sub":"x"}`))
	mark, _ := jws.CompactSerialize()
	for name, c := range map[string]struct {
		claim string
		v     any
		code  int
	}{
		"authority_hints with a number": {"authority_hints", []any{env.URL, 7}, 400},
		"trust_anchor_hints empty":      {"trust_anchor_hints", []any{}, 400},
		"trust mark of another type":    {"trust_marks", []any{map[string]any{"trust_mark_type": "https://tm.example.com/b", "trust_mark": mark}}, 400},
		"trust mark of its type":        {"trust_marks", []any{map[string]any{"trust_mark_type": "https://tm.example.com/a", "trust_mark": mark}}, 200},
	} {
		t.Run(name, func(t *testing.T) {
			leaf.claims = func(id string, now time.Time) map[string]any {
				m := base(id, now)
				m[c.claim] = c.v
				return m
			}
			code, _, body := fedGet(t, env, resolvePath(env, leaf.srv.URL))
			if code != c.code || (c.code == 400 && (!strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, c.claim))) {
				t.Fatalf("want %d: %d %.300s", c.code, code, body)
			}
		})
	}
}

// TestFederationResolveTrustChainVerifiesLinkByLink: the trust_chain
// answered holds as a relying party checks it: the leaf's configuration
// verified by its own jwks and by the directory's statement's jwks, the
// statement by the directory's configuration, that by the directory's keys
// (docs/design.md §13).
func TestFederationResolveTrustChainVerifiesLinkByLink(t *testing.T) {
	env, leaf, keys := specEnv(t)
	code, _, tok := fedGet(t, env, resolvePath(env, leaf.srv.URL))
	if code != 200 {
		t.Fatalf("resolve: %d %s", code, tok)
	}
	chain := fedClaims(t, tok, "resolve-response+jwt", &keys)["trust_chain"].([]any)
	if len(chain) != 3 {
		t.Fatalf("%d statements, want 3", len(chain))
	}
	es := make([]map[string]any, 3)
	jwks := make([]jose.JSONWebKeySet, 3)
	for i, c := range chain {
		jws, err := jose.ParseSignedCompact(c.(string), []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatalf("ES[%d]: %v", i, err)
		}
		_ = json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &es[i])
		b, _ := json.Marshal(es[i]["jwks"])
		_ = json.Unmarshal(b, &jwks[i])
	}
	// The configurations verify with their own jwks.
	fedClaims(t, chain[0].(string), "entity-statement+jwt", &jwks[0])
	fedClaims(t, chain[2].(string), "entity-statement+jwt", &jwks[2])
	// Each statement with the jwks of the next.
	fedClaims(t, chain[0].(string), "entity-statement+jwt", &jwks[1])
	fedClaims(t, chain[1].(string), "entity-statement+jwt", &jwks[2])
	fedClaims(t, chain[2].(string), "entity-statement+jwt", &keys)
	if es[0]["iss"] != leaf.srv.URL || es[0]["sub"] != leaf.srv.URL || es[1]["iss"] != env.URL || es[1]["sub"] != leaf.srv.URL ||
		es[2]["iss"] != env.URL || es[2]["sub"] != env.URL {
		t.Fatalf("iss and sub do not link: %v / %v / %v", es[0]["iss"], es[1]["iss"], es[2]["iss"])
	}
}
