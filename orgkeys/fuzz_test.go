package orgkeys

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzParseCertificate: any text is a certificate or a refusal, never a panic.
func FuzzParseCertificate(f *testing.F) {
	f.Add("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	f.Add("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
	f.Add("hello")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCertificate(s, time.Now(), "sig")
		if err == nil && (c == nil || c.Kid == "") {
			t.Fatal("no certificate and no error")
		}
	})
}

// FuzzParseKeyMaterial: any JWK or PEM is key material or a refusal.
func FuzzParseKeyMaterial(f *testing.F) {
	f.Add(`{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}`, "")
	f.Add(`{"kty":"RSA","n":"AQAB","e":"AQAB","d":"AA"}`, "")
	f.Add(``, "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
	f.Fuzz(func(t *testing.T, jwk, pemText string) {
		k, err := ParseKeyMaterial(json.RawMessage(jwk), pemText, "sig")
		if err == nil {
			var m map[string]any
			if json.Unmarshal(k.JWK, &m) != nil || m["d"] != nil || m["k"] != nil {
				t.Fatalf("accepted key material with a private part: %s", k.JWK)
			}
		}
	})
}
