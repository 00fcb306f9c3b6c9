package dpop

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"testing"
)

// TestIATMustBeANumber: iat is a NumericDate (RFC 9449 §4.2, RFC 7519
// §4.1.6), "a JSON numeric value"; a string holding digits is not one.
func TestIATMustBeANumber(t *testing.T) {
	h, c := goodParts()
	c["iat"] = json.Number("1800000000") // a number: passes
	if _, err := checker().Check([]string{build(t, h, c, ecKey)}, request()); err != nil {
		t.Fatalf("numeric iat: %v", err)
	}
	h, c = goodParts()
	c["iat"], c["jti"] = "1800000000", "jti-string-iat"
	_, err := checker().Check([]string{build(t, h, c, ecKey)}, request())
	var de *Error
	if !errors.As(err, &de) || de.Rule != RuleClaims {
		t.Fatalf("iat as a string: got %v, want rule %s", err, RuleClaims)
	}
}

// TestThumbprintPerKeyType: the thumbprint a proof's key is bound by is
// RFC 7638's, with the required members of each key type in lexicographic
// order and nothing else (kid, alg, use do not count): EC computed here from
// its members; Ed25519 the example of RFC 8037 Appendix A.3.
func TestThumbprintPerKeyType(t *testing.T) {
	jwk := ecJWK(ecKey, false)
	want := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + jwk["x"].(string) + `","y":"` + jwk["y"].(string) + `"}`))
	jwk["kid"], jwk["alg"], jwk["use"] = "k1", "ES256", "sig"
	raw, _ := json.Marshal(jwk)
	k, err := parseKey(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k.thumbprint != b64(want[:]) {
		t.Fatalf("EC thumbprint %s, want %s", k.thumbprint, b64(want[:]))
	}
	k, err = parseKey([]byte(`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"x"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if k.thumbprint != "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k" {
		t.Fatalf("Ed25519 thumbprint %s", k.thumbprint)
	}
}
