package dpop

import (
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
