package dpop

import (
	"strings"
	"testing"
)

// TestWrongKeyForAlgNamedInJOSETerms: a proof whose alg does not fit its
// jwk was refused as "alg RS256 does not fit a *ecdsa.PublicKey key", a Go
// type a client never sees; it now names the key as its jwk does.
func TestWrongKeyForAlgNamedInJOSETerms(t *testing.T) {
	h, c := goodParts()
	h["alg"] = "RS256"
	_, err := checker().Check([]string{build(t, h, c, ecKey)}, request())
	if err == nil || !strings.Contains(err.Error(), "an EC P-256 key") || strings.Contains(err.Error(), "*ecdsa") {
		t.Fatalf("%v", err)
	}
}
