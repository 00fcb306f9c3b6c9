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
