package orgkeys

import (
	"encoding/json"
	"testing"
)

// TestThumbprintRFC7638Example: the example key of RFC 7638 §3.1 has the
// thumbprint the RFC gives; members beyond the required ones (kid, use,
// alg) do not change it; a private key or a JWK that is not one gives
// none.
func TestThumbprintRFC7638Example(t *testing.T) {
	const n = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
	want := "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
	for _, jwk := range []string{
		`{"kty":"RSA","n":"` + n + `","e":"AQAB"}`,
		`{"kty":"RSA","n":"` + n + `","e":"AQAB","alg":"RS256","kid":"2011-04-29","use":"sig"}`,
	} {
		if got, ok := Thumbprint(json.RawMessage(jwk)); !ok || got != want {
			t.Fatalf("Thumbprint(%s) = %q %v, want %q", jwk[:40], got, ok, want)
		}
	}
	for _, bad := range []string{`{"kty":"oct","k":"c2VjcmV0"}`, `{"kty":"RSA"}`, `not json`,
		`{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cLV5lO1W7Q5o0Z4x9Ed5_g"}`} {
		if tp, ok := Thumbprint(json.RawMessage(bad)); ok {
			t.Errorf("Thumbprint(%s) = %q, want none", bad, tp)
		}
	}
}
