package anchor

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// TestResolveStatementMetadataOnlyForLeafTypes: the metadata claim of the
// anchor's statement overrides the leaf's parameters only under entity
// types the leaf's entity configuration has; it adds none (OpenID
// Federation 1.0, the metadata claim).
func TestResolveStatementMetadataOnlyForLeafTypes(t *testing.T) {
	e := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Own"}}, anchorID)
	srv, keys := anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+jwksFile(t, e)+"\n"+
		"    metadata: {openid_relying_party: {client_name: Anchor's}, openid_provider: {issuer: https://op.example.com}}\n")
	resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+anchorID)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	md := parseStatement(t, body, "resolve-response+jwt", keys)["metadata"].(map[string]any)
	if md["openid_relying_party"].(map[string]any)["client_name"] != "Anchor's" {
		t.Fatalf("the statement's metadata did not override the leaf's: %v", md)
	}
	if _, ok := md["openid_provider"]; ok {
		t.Fatalf("the statement's metadata added an entity type the leaf lacks: %v", md)
	}
}

// TestResolveNamingConstraintsCoverTheSubject: naming constraints of a
// statement bind its own subject as well as the entities below it (they
// restrict "the Entity Identifiers of Subordinate Entities in a Trust
// Chain"): a direct subordinate outside the permitted names does not
// resolve, nor does an intermediate outside them.
func TestResolveNamingConstraintsCoverTheSubject(t *testing.T) {
	e := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "RP"}}, anchorID)
	srv, _ := anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+jwksFile(t, e)+"\n"+
		"    constraints: {naming_constraints: {permitted: [.example.com]}}\n")
	if resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+anchorID); resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") {
		t.Fatalf("direct subordinate outside the permitted names: %d %s", resp.StatusCode, body)
	}
	srv, _ = anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+jwksFile(t, e)+"\n"+
		"    constraints: {naming_constraints: {excluded: [127.0.0.1]}}\n")
	if resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+anchorID); resp.StatusCode != 400 || !strings.Contains(body, "excluded") {
		t.Fatalf("excluded direct subordinate: %d %s", resp.StatusCode, body)
	}
}

// TestResolveChecksEntityConfiguration: a typ header entity-statement+jwt,
// a kid header, iss = sub, an iat not in the future, an exp not past and
// the entity's own jwks verifying it are required (OpenID Federation 1.0,
// Entity Statement Validation and Validating a Trust Chain).
func TestResolveChecksEntityConfiguration(t *testing.T) {
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for name, c := range map[string]struct {
		noKid bool
		typ   string
		edit  func(map[string]any)
		want  string
	}{
		"no kid":                            {noKid: true, want: "kid"},
		"no typ":                            {typ: "-", want: "typ"},
		"typ of another JWT":                {typ: "JWT", want: "typ"},
		"expired":                           {edit: func(m map[string]any) { m["exp"] = time.Now().Add(-time.Minute).Unix() }, want: "expired"},
		"iss is not sub":                    {edit: func(m map[string]any) { m["iss"] = "https://other.example" }, want: "iss and sub"},
		"iat in future":                     {edit: func(m map[string]any) { m["iat"] = time.Now().Add(time.Hour).Unix() }, want: "iat"},
		"no iat":                            {edit: func(m map[string]any) { delete(m, "iat") }, want: "iat"},
		"no jwks":                           {edit: func(m map[string]any) { delete(m, "jwks") }, want: "jwks"},
		"crit names a claim not understood": {edit: func(m map[string]any) { m["crit"] = []string{"x_limit"}; m["x_limit"] = 1 }, want: "crit"},
		"jwks of another key":               {want: "jwks"}, // edit set below: it needs the entity's kid
	} {
		t.Run(name, func(t *testing.T) {
			e := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "RP"}}, anchorID)
			kf := jwksFile(t, e)
			e.noKid, e.typ, e.ecEdit = c.noKid, c.typ, c.edit
			if name == "jwks of another key" {
				kid := "k-" + e.srv.URL[len(e.srv.URL)-5:]
				e.ecEdit = func(m map[string]any) { m["jwks"] = json.RawMessage(publicJWKS(other, kid)) }
			}
			srv, _ := anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+kf+"\n")
			resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+anchorID)
			if resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, c.want) {
				t.Fatalf("%d %.300s", resp.StatusCode, body)
			}
		})
	}
}

// TestResolveValidatesIntermediatePolicies: an intermediate's metadata
// policy is validated before it is merged (OpenID Federation 1.0, Metadata
// Policy Resolution): operators that may not be combined are a policy error
// even where the anchor has no policy of its own; an operator the anchor
// does not know is ignored unless metadata_policy_crit names it.
func TestResolveValidatesIntermediatePolicies(t *testing.T) {
	for name, c := range map[string]struct {
		extra map[string]any
		code  int
	}{
		"one_of with subset_of": {map[string]any{"metadata_policy": map[string]any{"openid_relying_party": map[string]any{
			"response_types": map[string]any{"one_of": []any{"code"}, "subset_of": []any{"code"}}}}}, 400},
		"unknown operator, not critical": {map[string]any{"metadata_policy": map[string]any{"openid_relying_party": map[string]any{
			"grant_types": map[string]any{"regexp": "^a", "subset_of": []any{"authorization_code"}}}}}, 200},
		"unknown operator, critical": {map[string]any{"metadata_policy_crit": []any{"regexp"}, "metadata_policy": map[string]any{"openid_relying_party": map[string]any{
			"grant_types": map[string]any{"regexp": "^a"}}}}, 400},
	} {
		t.Run(name, func(t *testing.T) {
			inter := newEntity(t, nil, anchorID)
			leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"grant_types": []any{"authorization_code"}}}, inter.id())
			extra := map[string]any{"jwks": leaf.jwks()}
			for k, v := range c.extra {
				extra[k] = v
			}
			inter.subs[leaf.id()] = extra
			srv, _ := anchorWith(t, "  - entity_id: "+inter.id()+"\n    jwks_file: "+jwksFile(t, inter)+"\n")
			resp, body := get(t, srv.URL, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID)
			if resp.StatusCode != c.code || (c.code == 400 && !strings.Contains(body, "invalid_trust_chain")) {
				t.Fatalf("want %d: %d %.300s", c.code, resp.StatusCode, body)
			}
		})
	}
}

// TestAnchorListAndResolveParameters: list refuses the filters it does not
// support with 400 unsupported_parameter; resolve accepts a repeated
// trust_anchor with this anchor among them (OpenID Federation 1.0,
// Subordinate Listing Request and Resolve Request).
func TestAnchorListAndResolveParameters(t *testing.T) {
	e := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "RP"}}, anchorID)
	srv, _ := anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+jwksFile(t, e)+"\n")
	for _, q := range []string{"trust_marked=true", "trust_mark_type=x", "intermediate=false"} {
		resp, body := get(t, srv.URL, "/list?"+q)
		if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, "unsupported_parameter") {
			t.Errorf("%s: %d %s", q, resp.StatusCode, body)
		}
	}
	resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+url.QueryEscape("https://other.example")+"&trust_anchor="+anchorID)
	if resp.StatusCode != 200 {
		t.Fatalf("repeated trust_anchor: %d %.300s", resp.StatusCode, body)
	}
}

// TestResolveRefusesMalformedMetadata: the metadata of the subject's entity
// configuration is an object of entity types, each an object of parameters,
// none of them null; anything else is an invalid chain rather than metadata
// the policy skips or passes through (docs/design.md §13).
func TestResolveRefusesMalformedMetadata(t *testing.T) {
	for name, md := range map[string]any{
		"entity type null":       map[string]any{"openid_relying_party": nil},
		"entity type a string":   map[string]any{"openid_relying_party": "client"},
		"entity type an array":   map[string]any{"openid_relying_party": []any{}},
		"parameter null":         map[string]any{"openid_relying_party": map[string]any{"client_name": nil}},
		"metadata not an object": []any{"openid_relying_party"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEntity(t, nil, anchorID)
			e.ecEdit = func(m map[string]any) { m["metadata"] = md }
			srv, _ := anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+jwksFile(t, e)+"\n"+
				"    metadata_policy: {openid_relying_party: {client_name: {default: Named, essential: true}}}\n")
			resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+anchorID)
			if resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, "metadata") {
				t.Fatalf("%d %.300s", resp.StatusCode, body)
			}
		})
	}
}

// TestResolveRefusesClaimsOfTheOtherKindOfStatement: an entity
// configuration carries no metadata_policy, metadata_policy_crit or
// constraints (they belong in a subordinate statement), and a subordinate
// statement no authority_hints, trust_anchor_hints or trust mark claims
// (they belong in an entity configuration); either is an invalid chain
// naming the claim (docs/design.md §13).
func TestResolveRefusesClaimsOfTheOtherKindOfStatement(t *testing.T) {
	for _, claim := range []string{"metadata_policy", "metadata_policy_crit", "constraints"} {
		t.Run("configuration with "+claim, func(t *testing.T) {
			e := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "RP"}}, anchorID)
			e.ecEdit = func(m map[string]any) {
				m[claim] = map[string]any{"metadata_policy": map[string]any{}, "metadata_policy_crit": []any{"regexp"}, "constraints": map[string]any{"max_path_length": 0}}[claim]
			}
			srv, _ := anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+jwksFile(t, e)+"\n")
			resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+anchorID)
			if resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, claim) {
				t.Fatalf("%d %.300s", resp.StatusCode, body)
			}
		})
	}
	for _, claim := range []string{"authority_hints", "trust_anchor_hints", "trust_marks"} {
		t.Run("subordinate statement with "+claim, func(t *testing.T) {
			inter := newEntity(t, nil, anchorID)
			leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Leaf"}}, inter.id())
			inter.subs[leaf.id()] = map[string]any{"jwks": leaf.jwks(), claim: []any{anchorID}}
			srv, _ := anchorWith(t, "  - entity_id: "+inter.id()+"\n    jwks_file: "+jwksFile(t, inter)+"\n")
			resp, body := get(t, srv.URL, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID)
			if resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, claim) {
				t.Fatalf("%d %.300s", resp.StatusCode, body)
			}
		})
	}
}

// TestResolveRefusesMalformedPolicyClaims: a subordinate statement's
// metadata_policy and constraints are JSON objects and its
// metadata_policy_crit a non-empty array of strings; a claim of another
// shape is an invalid chain, not a claim ignored (docs/design.md §13).
func TestResolveRefusesMalformedPolicyClaims(t *testing.T) {
	for name, c := range map[string]struct {
		claim string
		v     any
	}{
		"metadata_policy a string":       {"metadata_policy", "subset_of"},
		"constraints an array":           {"constraints", []any{"max_path_length"}},
		"metadata_policy_crit empty":     {"metadata_policy_crit", []any{}},
		"metadata_policy_crit an object": {"metadata_policy_crit", map[string]any{"regexp": true}},
	} {
		t.Run(name, func(t *testing.T) {
			inter := newEntity(t, nil, anchorID)
			leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Leaf"}}, inter.id())
			inter.subs[leaf.id()] = map[string]any{"jwks": leaf.jwks(), c.claim: c.v}
			srv, _ := anchorWith(t, "  - entity_id: "+inter.id()+"\n    jwks_file: "+jwksFile(t, inter)+"\n")
			resp, body := get(t, srv.URL, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID)
			if resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, c.claim) {
				t.Fatalf("%d %.300s", resp.StatusCode, body)
			}
		})
	}
}

// TestResolveExpiresWithTheChain: the resolve response expires when the
// first statement of its trust chain does, here the intermediate's
// statement about the leaf (docs/design.md §13).
func TestResolveExpiresWithTheChain(t *testing.T) {
	inter := newEntity(t, nil, anchorID)
	leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "Leaf"}}, inter.id())
	exp := time.Now().Add(5 * time.Minute).Unix()
	inter.subs[leaf.id()] = map[string]any{"jwks": leaf.jwks(), "exp": exp}
	srv, keys := anchorWith(t, "  - entity_id: "+inter.id()+"\n    jwks_file: "+jwksFile(t, inter)+"\n")
	resp, body := get(t, srv.URL, "/resolve?sub="+leaf.id()+"&trust_anchor="+anchorID)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %.300s", resp.StatusCode, body)
	}
	if got := parseStatement(t, body, "resolve-response+jwt", keys)["exp"].(float64); int64(got) != exp {
		t.Fatalf("exp %d, want the intermediate statement's %d", int64(got), exp)
	}
}

// TestResolveEntityTypeFilter: entity_type keeps only the metadata of the
// types named; it may be repeated (docs/design.md §13).
func TestResolveEntityTypeFilter(t *testing.T) {
	e := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "RP"}, "oauth_client": map[string]any{"client_name": "C"},
		"federation_entity": map[string]any{"organization_name": "Org"}}, anchorID)
	srv, keys := anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+jwksFile(t, e)+"\n")
	for q, want := range map[string][]string{
		"&entity_type=openid_relying_party":                       {"openid_relying_party"},
		"&entity_type=oauth_client&entity_type=federation_entity": {"federation_entity", "oauth_client"},
		"&entity_type=openid_provider":                            {},
		"":                                                        {"federation_entity", "oauth_client", "openid_relying_party"},
	} {
		resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+anchorID+q)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %.300s", q, resp.StatusCode, body)
		}
		md := parseStatement(t, body, "resolve-response+jwt", keys)["metadata"].(map[string]any)
		got := []string{}
		for k := range md {
			got = append(got, k)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: metadata of %v, want %v", q, got, want)
		}
	}
}

// trustMarkJWT is a signed JWT with the claims given (its signature is not
// what these tests look at).
func trustMarkJWT(t *testing.T, claims map[string]any) string {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k, KeyID: "tm"}}, (&jose.SignerOptions{}).WithType("trust-mark+jwt"))
	b, _ := json.Marshal(claims)
	jws, _ := sig.Sign(b)
	s, _ := jws.CompactSerialize()
	return s
}

// TestResolveChecksEntityConfigurationSyntax: authority_hints and
// trust_anchor_hints are non-empty arrays of entity IDs, and trust_marks an
// array of {trust_mark_type, trust_mark} whose JWT names the same
// trust_mark_type; a configuration that breaks that is an invalid chain
// naming the claim, one that keeps it resolves (docs/design.md §13).
func TestResolveChecksEntityConfigurationSyntax(t *testing.T) {
	good := trustMarkJWT(t, map[string]any{"trust_mark_type": "https://tm.example.com/a", "sub": "x"})
	for name, c := range map[string]struct {
		edit func(map[string]any)
		want string // "" resolves
	}{
		"authority_hints with a number": {func(m map[string]any) { m["authority_hints"] = []any{anchorID, 7} }, "authority_hints"},
		"trust_anchor_hints empty":      {func(m map[string]any) { m["trust_anchor_hints"] = []any{} }, "trust_anchor_hints"},
		"trust_anchor_hints a string":   {func(m map[string]any) { m["trust_anchor_hints"] = anchorID }, "trust_anchor_hints"},
		"trust_marks not an array":      {func(m map[string]any) { m["trust_marks"] = map[string]any{} }, "trust_marks"},
		"trust mark without its type":   {func(m map[string]any) { m["trust_marks"] = []any{map[string]any{"trust_mark": good}} }, "trust_marks"},
		"trust mark that is not a JWT": {func(m map[string]any) {
			m["trust_marks"] = []any{map[string]any{"trust_mark_type": "https://tm.example.com/a", "trust_mark": "x"}}
		}, "trust_marks"},
		"trust mark of another type": {func(m map[string]any) {
			m["trust_marks"] = []any{map[string]any{"trust_mark_type": "https://tm.example.com/b", "trust_mark": good}}
		}, "trust_marks"},
		"trust mark of its type": {func(m map[string]any) {
			m["trust_marks"] = []any{map[string]any{"trust_mark_type": "https://tm.example.com/a", "trust_mark": good}}
		}, ""},
		"trust_anchor_hints of entities": {func(m map[string]any) { m["trust_anchor_hints"] = []any{anchorID} }, ""},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "RP"}}, anchorID)
			e.ecEdit = c.edit
			srv, _ := anchorWith(t, "  - entity_id: "+e.id()+"\n    jwks_file: "+jwksFile(t, e)+"\n")
			resp, body := get(t, srv.URL, "/resolve?sub="+e.id()+"&trust_anchor="+anchorID)
			if c.want == "" {
				if resp.StatusCode != 200 {
					t.Fatalf("%d %.300s", resp.StatusCode, body)
				}
				return
			}
			if resp.StatusCode != 400 || !strings.Contains(body, "invalid_trust_chain") || !strings.Contains(body, c.want) {
				t.Fatalf("%d %.300s", resp.StatusCode, body)
			}
		})
	}
}
