package federation

import (
	"fmt"
	"testing"
)

// TestAllowedTypes: a subject is vouched for as its kind's protocol types
// and the wallet types its roles' policies name, never as the other
// kind's protocol types nor (by name) federation_entity.
func TestAllowedTypes(t *testing.T) {
	pol := map[string]Policy{"openid_provider": {}, "openid_credential_issuer": {}, "federation_entity": {}}
	if got := fmt.Sprint(AllowedTypes("Application", pol)); got != "[oauth_client openid_credential_issuer openid_relying_party]" {
		t.Errorf("application: %s", got)
	}
	if got := fmt.Sprint(AllowedTypes("AuthorisationServer", nil)); got != "[oauth_authorization_server openid_provider]" {
		t.Errorf("server: %s", got)
	}
}
