package federation

import (
	"strings"
	"testing"
)

func TestEntityTypes(t *testing.T) {
	for _, ok := range []string{"openid_relying_party", "openid_provider", "oauth_authorization_server", "oauth_client",
		"openid_credential_issuer", "openid_credential_verifier", "openid_wallet_provider", "openid_credential_verifier_provider"} {
		if !ValidEntityType(ok) {
			t.Errorf("%s refused", ok)
		}
	}
	for _, bad := range []string{"federation_entity", "OpenID_Provider", "", "wallet"} {
		if ValidEntityType(bad) {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestPolicyRules: one case per rule of operator types and combinations.
func TestPolicyRules(t *testing.T) {
	good := []string{
		`{"grant_types":{"subset_of":["authorization_code","refresh_token"]}}`,
		`{"grant_types":{"value":["authorization_code"],"add":["authorization_code"]}}`,
		`{"id_token_signed_response_alg":{"one_of":["PS256","ES256"],"default":"PS256","essential":true}}`,
		`{"token_endpoint_auth_method":{"value":"private_key_jwt","one_of":["private_key_jwt","tls_client_auth"]}}`,
		`{"scope":{"subset_of":["openid","accounts"],"superset_of":["openid"]}}`,
		`{"initiate_login_uri":{"value":null}}`,
		`{"grant_types":{"value":["authorization_code"],"subset_of":["authorization_code","implicit"],"superset_of":["authorization_code"]}}`,
		`{"client_name":{"essential":false}}`,
	}
	for _, p := range good {
		if errs := ValidatePolicy([]byte(p)); len(errs) != 0 {
			t.Errorf("%s: %v", p, errs)
		}
	}
	bad := map[string]string{
		"not an object":                `[1]`,
		"parameter not an object":      `{"scope":"openid"}`,
		"no operator":                  `{"scope":{}}`,
		"unknown operator":             `{"scope":{"equals":["openid"]}}`,
		"one_of not an array":          `{"alg":{"one_of":"PS256"}}`,
		"one_of empty":                 `{"alg":{"one_of":[]}}`,
		"subset_of not an array":       `{"scope":{"subset_of":"openid"}}`,
		"add not an array":             `{"contacts":{"add":"ops@example.org"}}`,
		"essential not boolean":        `{"scope":{"essential":"yes"}}`,
		"default null":                 `{"scope":{"default":null}}`,
		"one_of with add":              `{"alg":{"one_of":["PS256"],"add":["PS256"]}}`,
		"one_of with subset_of":        `{"alg":{"one_of":["PS256"],"subset_of":["PS256"]}}`,
		"one_of with superset_of":      `{"alg":{"one_of":["PS256"],"superset_of":["PS256"]}}`,
		"value null with default":      `{"alg":{"value":null,"default":"PS256"}}`,
		"value null with essential":    `{"alg":{"value":null,"essential":true}}`,
		"add not in value":             `{"grant_types":{"value":["authorization_code"],"add":["implicit"]}}`,
		"value not in one_of":          `{"alg":{"value":"RS256","one_of":["PS256"]}}`,
		"value not in subset_of":       `{"grant_types":{"value":["implicit"],"subset_of":["authorization_code"]}}`,
		"value not superset":           `{"grant_types":{"value":["implicit"],"superset_of":["authorization_code"]}}`,
		"add not in subset_of":         `{"grant_types":{"add":["implicit"],"subset_of":["authorization_code"]}}`,
		"superset_of not in subset_of": `{"scope":{"subset_of":["openid"],"superset_of":["openid","accounts"]}}`,
		"parameter twice":              `{"scope":{"essential":true},"scope":{"subset_of":["openid"]}}`,
		"operator twice":               `{"scope":{"subset_of":["openid","accounts"],"subset_of":["openid"]}}`,
	}
	for name, p := range bad {
		t.Run(name, func(t *testing.T) {
			errs := ValidatePolicy([]byte(p))
			if len(errs) == 0 {
				t.Fatalf("%s accepted", p)
			}
			if name != "not an object" && errs[0].Parameter == "" {
				t.Fatalf("the error does not name its parameter: %v", errs)
			}
			if strings.TrimSpace(errs[0].Message) == "" {
				t.Fatal("empty message")
			}
		})
	}
}

// TestParsePolicyReadsAScalarAddAsAnArray: a policy saved when add could
// be a single value is read, and so published, with add as an array.
func TestParsePolicyReadsAScalarAddAsAnArray(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"contacts":{"add":"ops@example.org","essential":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := p["contacts"]["add"].([]any); !ok || len(l) != 1 || l[0] != "ops@example.org" {
		t.Fatalf("add: %#v", p["contacts"]["add"])
	}
}

// TestValidatePolicyRefusesDeepNesting: a policy, from a client or from a
// statement of a chain, nested deeper than formats.MaxJSONDepth is refused
// with the limit named before it is read; a member named twice deep down
// is still named by its whole path.
func TestValidatePolicyRefusesDeepNesting(t *testing.T) {
	for _, levels := range []int{33, 20000} {
		pol := `{"jwks":{"value":` + strings.Repeat(`{"a":`, levels-2) + "1" + strings.Repeat("}", levels-2) + "}}"
		errs := ValidatePolicy([]byte(pol))
		if len(errs) != 1 || !strings.Contains(errs[0].Message, "limit of 32 levels") {
			t.Errorf("%d levels: %v", levels, errs)
		}
	}
	errs := ValidatePolicy([]byte(`{"jwks":{"value":{"a":{"b":{"c":1,"c":2}}}}}`))
	if len(errs) != 1 || errs[0].Parameter != "jwks.value.a.b.c" {
		t.Errorf("repeated member: %v", errs)
	}
}
