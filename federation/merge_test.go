package federation

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func pol(t *testing.T, s string) Policy {
	t.Helper()
	p, err := ParsePolicy(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mergeOK(t *testing.T, a, b string) Policy {
	t.Helper()
	m, err := MergePolicies(pol(t, a), pol(t, b))
	if err != nil {
		t.Fatalf("merge %s + %s: %v", a, b, err)
	}
	return m
}

func mergeFails(t *testing.T, a, b, operator string) {
	t.Helper()
	_, err := MergePolicies(pol(t, a), pol(t, b))
	var me *MergeError
	if !errors.As(err, &me) {
		t.Fatalf("merge %s + %s: want a MergeError, got %v", a, b, err)
	}
	if !strings.Contains(me.Error(), operator) {
		t.Fatalf("merge error %q does not name %s", me.Error(), operator)
	}
}

func same(t *testing.T, got Policy, want string) {
	t.Helper()
	w := pol(t, want)
	gb, _ := json.Marshal(got)
	var g Policy
	_ = json.Unmarshal(gb, &g)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("merged %s, want %s", gb, want)
	}
}

// OpenID Federation 1.0 §6.1.4: one test per operator's merge rule.

func TestMergeValueEqual(t *testing.T) {
	same(t, mergeOK(t, `{"application_type":{"value":"web"}}`, `{"application_type":{"value":"web"}}`), `{"application_type":{"value":"web"}}`)
}

func TestMergeValueDifferentFails(t *testing.T) {
	mergeFails(t, `{"application_type":{"value":"web"}}`, `{"application_type":{"value":"native"}}`, "value")
}

func TestMergeAddIsUnion(t *testing.T) {
	// The specification's example: contacts added by a superior and by a subordinate.
	same(t, mergeOK(t, `{"contacts":{"add":["helpdesk@federation.example.org"]}}`, `{"contacts":{"add":["helpdesk@org.example.org"]}}`),
		`{"contacts":{"add":["helpdesk@federation.example.org","helpdesk@org.example.org"]}}`)
}

func TestMergeDefaultEqualOrFails(t *testing.T) {
	same(t, mergeOK(t, `{"scope":{"default":"openid"}}`, `{"scope":{"default":"openid"}}`), `{"scope":{"default":"openid"}}`)
	mergeFails(t, `{"scope":{"default":"openid"}}`, `{"scope":{"default":"openid email"}}`, "default")
}

func TestMergeOneOfIsIntersection(t *testing.T) {
	same(t, mergeOK(t, `{"id_token_signed_response_alg":{"one_of":["ES256","ES384","PS256"]}}`, `{"id_token_signed_response_alg":{"one_of":["ES256","ES512","PS256"]}}`),
		`{"id_token_signed_response_alg":{"one_of":["ES256","PS256"]}}`)
	mergeFails(t, `{"id_token_signed_response_alg":{"one_of":["ES256"]}}`, `{"id_token_signed_response_alg":{"one_of":["PS256"]}}`, "one_of")
}

func TestMergeSubsetOfIsIntersection(t *testing.T) {
	// The specification's example (§6.1.4): subset_of merged is the intersection.
	same(t, mergeOK(t, `{"scope":{"subset_of":["openid","eduperson","phone"]}}`, `{"scope":{"subset_of":["openid","eduperson","address"]}}`),
		`{"scope":{"subset_of":["openid","eduperson"]}}`)
	// An empty intersection is a legal subset_of: the parameter is removed when applied.
	same(t, mergeOK(t, `{"scope":{"subset_of":["phone"]}}`, `{"scope":{"subset_of":["address"]}}`), `{"scope":{"subset_of":[]}}`)
}

func TestMergeSupersetOfIsUnion(t *testing.T) {
	same(t, mergeOK(t, `{"grant_types":{"superset_of":["authorization_code"]}}`, `{"grant_types":{"superset_of":["refresh_token"]}}`),
		`{"grant_types":{"superset_of":["authorization_code","refresh_token"]}}`)
}

func TestMergeEssentialIsOr(t *testing.T) {
	same(t, mergeOK(t, `{"contacts":{"essential":false}}`, `{"contacts":{"essential":true}}`), `{"contacts":{"essential":true}}`)
	same(t, mergeOK(t, `{"contacts":{"essential":false}}`, `{"contacts":{"essential":false}}`), `{"contacts":{"essential":false}}`)
}

func TestMergeDifferentParametersAndOperatorsCombine(t *testing.T) {
	same(t, mergeOK(t, `{"scope":{"subset_of":["openid","email"]}}`, `{"scope":{"default":"openid"},"contacts":{"essential":true}}`),
		`{"scope":{"subset_of":["openid","email"],"default":"openid"},"contacts":{"essential":true}}`)
}

// After the merge, the operators of a parameter must still combine (§6.1.3).
func TestMergeResultMustCombine(t *testing.T) {
	// value from one role outside the other's one_of.
	mergeFails(t, `{"token_endpoint_auth_method":{"value":"client_secret_basic"}}`, `{"token_endpoint_auth_method":{"one_of":["private_key_jwt","tls_client_auth"]}}`, "value must be one of one_of")
	// add outside subset_of.
	mergeFails(t, `{"grant_types":{"add":["implicit"]}}`, `{"grant_types":{"subset_of":["authorization_code"]}}`, "add must be a subset of subset_of")
	// superset_of outside subset_of.
	mergeFails(t, `{"grant_types":{"superset_of":["implicit"]}}`, `{"grant_types":{"subset_of":["authorization_code"]}}`, "superset_of must be a subset of subset_of")
	// one_of with subset_of.
	mergeFails(t, `{"scope":{"one_of":["openid"]}}`, `{"scope":{"subset_of":["openid"]}}`, "one_of cannot be combined with subset_of")
}

func TestMergeDoesNotChangeInputs(t *testing.T) {
	a, b := pol(t, `{"scope":{"subset_of":["a","b"]}}`), pol(t, `{"scope":{"subset_of":["b"]}}`)
	if _, err := MergePolicies(a, b); err != nil {
		t.Fatal(err)
	}
	if len(a["scope"]["subset_of"].([]any)) != 2 {
		t.Fatal("the first policy was changed")
	}
}

// §6.2: one test per constraint.

func constraints(t *testing.T, s string) Constraints {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	c, err := ParseConstraints(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConstraintMaxPathLength(t *testing.T) {
	c := constraints(t, `{"max_path_length":1}`)
	if err := c.CheckPath(1); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckPath(2); err == nil {
		t.Fatal("two intermediates passed max_path_length 1")
	}
	if err := constraints(t, `{"max_path_length":0}`).CheckPath(1); err == nil {
		t.Fatal("an intermediate passed max_path_length 0")
	}
	if _, err := ParseConstraints(map[string]any{"max_path_length": -1.0}); err == nil {
		t.Fatal("a negative max_path_length was accepted")
	}
}

func TestConstraintNamingPermittedAndExcluded(t *testing.T) {
	// The specification's example: permitted .example.com, excluded east.example.com.
	c := constraints(t, `{"naming_constraints":{"permitted":[".example.com"],"excluded":["east.example.com"]}}`)
	if err := c.CheckName("https://op.example.com"); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckName("https://east.example.com"); err == nil || !strings.Contains(err.Error(), "excluded") {
		t.Fatalf("excluded name: %v", err)
	}
	if err := c.CheckName("https://rp.example.org"); err == nil || !strings.Contains(err.Error(), "permitted") {
		t.Fatalf("name outside permitted: %v", err)
	}
}

func TestConstraintAllowedEntityTypes(t *testing.T) {
	c := constraints(t, `{"allowed_entity_types":["openid_relying_party"]}`)
	md := map[string]any{"openid_relying_party": map[string]any{}, "openid_provider": map[string]any{}, "federation_entity": map[string]any{}}
	got := c.FilterEntityTypes(md)
	if _, ok := got["openid_provider"]; ok {
		t.Fatal("openid_provider kept although only openid_relying_party is allowed")
	}
	if _, ok := got["openid_relying_party"]; !ok {
		t.Fatal("openid_relying_party removed")
	}
	if _, ok := got["federation_entity"]; !ok {
		t.Fatal("federation_entity removed: it is always allowed")
	}
}

// TestConstraintNamingSubtrees: a name with a leading dot matches the hosts
// below it and not itself; a name without one matches that host only
// (docs/design.md §13).
func TestConstraintNamingSubtrees(t *testing.T) {
	dot := constraints(t, `{"naming_constraints":{"permitted":[".example.com"]}}`)
	for _, ok := range []string{"https://host.example.com", "https://my.host.example.com/path", "https://HOST.Example.COM"} {
		if err := dot.CheckName(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"https://example.com", "https://badexample.com", "https://example.com.evil.org"} {
		if err := dot.CheckName(bad); err == nil {
			t.Errorf("%s passed .example.com", bad)
		}
	}
	host := constraints(t, `{"naming_constraints":{"permitted":["host.example.com"]}}`)
	if err := host.CheckName("https://host.example.com:8443"); err != nil {
		t.Error(err)
	}
	if err := host.CheckName("https://my.host.example.com"); err == nil {
		t.Error("my.host.example.com passed host.example.com")
	}
	if _, err := ParseConstraints(map[string]any{"naming_constraints": []any{".example.com"}}); err == nil {
		t.Error("naming_constraints that is not an object was accepted")
	}
}

// TestConstraintAllowedEntityTypesEmpty: an empty allowed_entity_types
// leaves only federation_entity; an absent one allows every type.
func TestConstraintAllowedEntityTypesEmpty(t *testing.T) {
	md := map[string]any{"openid_relying_party": map[string]any{}, "federation_entity": map[string]any{}}
	got := constraints(t, `{"allowed_entity_types":[]}`).FilterEntityTypes(md)
	if _, ok := got["openid_relying_party"]; ok || got["federation_entity"] == nil {
		t.Fatalf("allowed_entity_types []: %v", got)
	}
	if got := constraints(t, `{}`).FilterEntityTypes(md); len(got) != 2 {
		t.Fatalf("no allowed_entity_types: %v", got)
	}
}
