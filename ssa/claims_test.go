package ssa

import (
	"encoding/json"
	"testing"
	"time"
)

// TestIssueHasEveryListedClaim: docs/design.md §6 lists the claims of an
// SSA; only the CIBA ones are "when set". An application without origin
// URIs (or redirect URIs, or roles) still gets the claim, as an empty list,
// and iat is the signing time in seconds.
func TestIssueHasEveryListedClaim(t *testing.T) {
	k, err := GenerateKey(MLDSA44, 0)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1800000000, 999_000_000)
	tok, _, err := Issue(k, Claims{Iss: "https://directory.example"}, now)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := Verify(tok, k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"iss", "iat", "jti", "software_id", "software_client_id", "software_client_name",
		"software_redirect_uris", "software_roles", "software_jwks_uri", "software_origin_uris", "software_status",
		"org_id", "org_name", "org_status"} {
		if _, ok := c[name]; !ok {
			t.Errorf("claim %s is missing", name)
		}
	}
	for _, name := range []string{"software_redirect_uris", "software_roles", "software_origin_uris"} {
		if l, ok := c[name].([]any); !ok || len(l) != 0 {
			t.Errorf("%s = %#v, want []", name, c[name])
		}
	}
	if c["iat"] != float64(1800000000) {
		t.Errorf("iat %v", c["iat"])
	}
	for _, name := range []string{"backchannel_token_delivery_mode", "backchannel_client_notification_endpoint"} {
		if _, ok := c[name]; ok {
			t.Errorf("%s present though not set", name)
		}
	}
}
