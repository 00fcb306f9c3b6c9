package federation

import "testing"

func TestApplyPolicy(t *testing.T) {
	md := map[string]any{"grant_types": []any{"authorization_code", "implicit"}, "contacts": []any{"a@x"}, "alg": "RS256"}
	out, err := ApplyPolicy(map[string]any{
		"grant_types":    map[string]any{"subset_of": []any{"authorization_code", "refresh_token"}, "superset_of": []any{"authorization_code"}},
		"contacts":       map[string]any{"add": []any{"ops@x"}},
		"token_auth":     map[string]any{"default": "private_key_jwt"},
		"alg":            map[string]any{"value": "PS256"},
		"initiate_login": map[string]any{"value": nil},
		"client_name":    map[string]any{"essential": false},
	}, md)
	if err != nil {
		t.Fatal(err)
	}
	if g := out["grant_types"].([]any); len(g) != 1 || out["alg"] != "PS256" || len(out["contacts"].([]any)) != 2 || out["token_auth"] != "private_key_jwt" {
		t.Fatalf("%v", out)
	}
	for name, pol := range map[string]map[string]any{
		"one_of":      {"alg": map[string]any{"one_of": []any{"PS256", "ES256"}}},
		"superset_of": {"grant_types": map[string]any{"superset_of": []any{"refresh_token"}}},
		"essential":   {"client_name": map[string]any{"essential": true}},
	} {
		if _, err := ApplyPolicy(pol, md); err == nil {
			t.Errorf("%s: the metadata should be refused", name)
		}
	}
}

// TestApplyEssentialWithEmptySubset: subset_of may narrow a present
// parameter to the empty array, and essential true is then satisfied (the
// parameter is present): OpenID Federation 1.0, Notes on Operators, the
// table of essential and subset_of outputs ([a,b,c] on [d,e] gives [], not
// an error).
func TestApplyEssentialWithEmptySubset(t *testing.T) {
	for _, essential := range []bool{true, false} {
		out, err := ApplyPolicy(map[string]any{
			"grant_types": map[string]any{"essential": essential, "subset_of": []any{"a", "b", "c"}},
		}, map[string]any{"grant_types": []any{"d", "e"}})
		if err != nil {
			t.Fatalf("essential %v: %v", essential, err)
		}
		if g, ok := out["grant_types"].([]any); !ok || len(g) != 0 {
			t.Fatalf("essential %v: got %v, want []", essential, out)
		}
	}
	// Absent and essential is still an error.
	if _, err := ApplyPolicy(map[string]any{"grant_types": map[string]any{"essential": true, "subset_of": []any{"a"}}}, map[string]any{}); err == nil {
		t.Fatal("an absent essential parameter was accepted")
	}
}

// TestApplyScopeAsStringArray: the scope parameter is a space-separated
// string that policy operators treat as an array of scope values, and the
// result is a space-separated string again (OpenID Federation 1.0, Notes on
// Operators).
func TestApplyScopeAsStringArray(t *testing.T) {
	out, err := ApplyPolicy(map[string]any{
		"scope": map[string]any{"subset_of": []any{"openid", "accounts", "payments"}, "superset_of": []any{"openid"}},
	}, map[string]any{"scope": "openid accounts email"})
	if err != nil {
		t.Fatal(err)
	}
	if out["scope"] != "openid accounts" {
		t.Fatalf("scope: got %#v, want \"openid accounts\"", out["scope"])
	}
	out, err = ApplyPolicy(map[string]any{"scope": map[string]any{"add": []any{"openid"}}}, map[string]any{"scope": "accounts"})
	if err != nil || out["scope"] != "accounts openid" {
		t.Fatalf("scope add: %#v %v", out["scope"], err)
	}
	out, err = ApplyPolicy(map[string]any{"scope": map[string]any{"default": "openid", "one_of": []any{"openid", "openid accounts"}}}, map[string]any{})
	if err != nil || out["scope"] != "openid" {
		t.Fatalf("scope default and one_of: %#v %v", out["scope"], err)
	}
	if _, err := ApplyPolicy(map[string]any{"scope": map[string]any{"superset_of": []any{"openid"}}}, map[string]any{"scope": "accounts"}); err == nil {
		t.Fatal("a scope without openid passed superset_of [openid]")
	}
}

// TestApplyRefusesWrongMetadataType: add, subset_of and superset_of act on
// arrays; a metadata parameter of another JSON type is a policy error
// (OpenID Federation 1.0, Metadata Policy Operators: "When the metadata parameter has a JSON value type that is not
// supported, the operator MUST produce a policy error"), not silently
// replaced by an array.
func TestApplyRefusesWrongMetadataType(t *testing.T) {
	for name, pol := range map[string]map[string]any{
		"add":         {"contacts": map[string]any{"add": []any{"ops@x"}}},
		"subset_of":   {"contacts": map[string]any{"subset_of": []any{"ops@x"}}},
		"superset_of": {"contacts": map[string]any{"superset_of": []any{}}},
	} {
		out, err := ApplyPolicy(pol, map[string]any{"contacts": "ops@x"})
		if err == nil {
			t.Errorf("%s on a string parameter: accepted, gave %v", name, out)
		}
	}
}

// TestApplyOperatorOrder: value first (null removes a present parameter),
// then add, then default (only when absent), then the checks; the checks
// skip an absent parameter that is not essential (docs/design.md §13).
func TestApplyOperatorOrder(t *testing.T) {
	md := map[string]any{"initiate_login_uri": "https://rp.example.com/login", "client_name": "Own", "contacts": []any{"a@x"}}
	out, err := ApplyPolicy(map[string]any{
		"initiate_login_uri": map[string]any{"value": nil},
		"client_name":        map[string]any{"default": "Default"},
		"logo_uri":           map[string]any{"default": "https://rp.example.com/logo.png"},
		"contacts":           map[string]any{"value": []any{"ops@x"}, "add": []any{"ops@x"}},
		"response_types":     map[string]any{"one_of": []any{"code"}, "essential": false},
		"grant_types":        map[string]any{"subset_of": []any{"authorization_code"}, "superset_of": []any{"authorization_code"}},
		"token_auth":         map[string]any{"default": "private_key_jwt", "one_of": []any{"private_key_jwt", "tls_client_auth"}},
	}, md)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out["initiate_login_uri"]; ok {
		t.Errorf("value null did not remove the parameter: %v", out)
	}
	if out["client_name"] != "Own" || out["logo_uri"] != "https://rp.example.com/logo.png" {
		t.Errorf("default: %v", out)
	}
	if c, _ := out["contacts"].([]any); len(c) != 1 || c[0] != "ops@x" {
		t.Errorf("value then add: %v", out["contacts"])
	}
	for _, absent := range []string{"response_types", "grant_types"} {
		if _, ok := out[absent]; ok {
			t.Errorf("%s was added by a check: %v", absent, out)
		}
	}
	if out["token_auth"] != "private_key_jwt" {
		t.Errorf("default then one_of: %v", out["token_auth"])
	}
	if _, ok := md["initiate_login_uri"]; !ok {
		t.Error("the input metadata was changed")
	}
}

// TestApplyEmptyAddGivesAnEmptyArray: add [] on an absent or empty
// parameter gives [], never null (an operator outputs no null parameter;
// docs/design.md §13).
func TestApplyEmptyAddGivesAnEmptyArray(t *testing.T) {
	for name, md := range map[string]map[string]any{"absent": {}, "empty": {"grant_types": []any{}}} {
		out, err := ApplyPolicy(map[string]any{"grant_types": map[string]any{"add": []any{}}}, md)
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := out["grant_types"].([]any); !ok || l == nil || len(l) != 0 {
			t.Errorf("%s: grant_types %#v, want []", name, out["grant_types"])
		}
	}
}
