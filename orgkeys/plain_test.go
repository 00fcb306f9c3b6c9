package orgkeys

import (
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"
)

// Refusals of a key or certificate say what is wrong in plain words,
// without the parser's text ("x509:", "go-jose") or member names.
func TestRefusalsInPlainWords(t *testing.T) {
	badCert := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("not a certificate")}))
	badKey := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte("not a key")}))
	for name, c := range map[string]struct {
		err  error
		want string
	}{
		"certificate": {func() error { _, err := ParseCertificate(badCert, time.Now(), "sig"); return err }(), "not an X.509 certificate"},
		"EC key": {func() error {
			_, err := ParseKeyMaterial([]byte(`{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}`), "", "sig")
			return err
		}(), "not a usable key"},
		"PEM key": {func() error { _, err := ParseKeyMaterial(nil, badKey, "sig"); return err }(), "not a PEM PUBLIC KEY"},
		"both":    {func() error { _, err := ParseKeyMaterial([]byte(`{"kty":"EC"}`), badKey, "sig"); return err }(), "as a JWK or as PEM, not both"},
	} {
		var r *Refusal
		if !errors.As(c.err, &r) || !strings.Contains(r.Message, c.want) {
			t.Errorf("%s: %v, want %q", name, c.err, c.want)
			continue
		}
		for _, raw := range []string{"x509:", "go-jose", "asn1", "PublicJwk"} {
			if strings.Contains(r.Message, raw) {
				t.Errorf("%s: %q holds %q", name, r.Message, raw)
			}
		}
	}
}
