package orgkeys_test

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/trustframe/trustframe/orgkeys"
	"github.com/trustframe/trustframe/web/webtest"
)

func TestGoodCertificates(t *testing.T) {
	for _, kind := range []string{"rsa2048", "p256", "p384"} {
		t.Run(kind, func(t *testing.T) {
			p := webtest.ValidCert(t, kind, "tpp.example")
			c, err := orgkeys.ParseCertificate(p, time.Now(), "sig")
			if err != nil {
				t.Fatal(err)
			}
			var jwk jose.JSONWebKey
			if err := jwk.UnmarshalJSON(c.JWK); err != nil {
				t.Fatal(err)
			}
			if jwk.KeyID != c.Kid || len(jwk.Certificates) != 1 || jwk.Use != "sig" || !jwk.IsPublic() {
				t.Fatalf("jwk %+v", jwk)
			}
			var m map[string]any
			json.Unmarshal(c.JWK, &m)
			if m["x5t#S256"] != c.Kid {
				t.Fatalf("x5t#S256 %v, kid %s", m["x5t#S256"], c.Kid)
			}
			if !strings.Contains(c.SubjectDN, "CN=tpp.example") || c.Serial == "" {
				t.Fatalf("%s %s", c.SubjectDN, c.Serial)
			}
		})
	}
}

func TestCertificateRefusals(t *testing.T) {
	now := time.Now()
	rsaKey := webtest.Key(t, "rsa2048")
	keyDER, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	privPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
	good := webtest.ValidCert(t, "p256", "a")
	cases := map[string]struct{ pem, want string }{
		"not PEM":          {"hello", "not a PEM certificate"},
		"empty":            {"  ", "empty"},
		"two certificates": {good + webtest.ValidCert(t, "p256", "b"), "2 certificates"},
		"private key":      {good + privPEM, "private key"},
		"expired":          {webtest.Cert(t, webtest.Key(t, "p256"), "old", now.Add(-48*time.Hour), now.Add(-24*time.Hour)), "expired"},
		"not yet valid":    {webtest.Cert(t, webtest.Key(t, "p256"), "new", now.Add(24*time.Hour), now.Add(48*time.Hour)), "not valid before"},
		"weak RSA":         {webtest.ValidCert(t, "rsa1024", "weak"), "1024 bits"},
		"P-521":            {webtest.ValidCert(t, "p521", "big"), "P-256 or P-384"},
		"garbage after":    {good + "trailing", "not PEM"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := orgkeys.ParseCertificate(c.pem, now, "sig")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want %q", err, c.want)
			}
		})
	}
}

func TestKeyMaterial(t *testing.T) {
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pubJWK, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	privJWK, _ := json.Marshal(jose.JSONWebKey{Key: k})
	km, err := orgkeys.ParseKeyMaterial(pubJWK, "", "sig")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := (&jose.JSONWebKey{Key: &k.PublicKey}).Thumbprint(0x5)
	_ = want
	der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	fromPEM, err := orgkeys.ParseKeyMaterial(nil, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), "sig")
	if err != nil || fromPEM.Kid != km.Kid {
		t.Fatalf("same key from PEM: %v %s %s", err, fromPEM.Kid, km.Kid)
	}
	cert := webtest.Cert(t, k, "x", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	if fromCert, err := orgkeys.ParseKeyMaterial(nil, cert, "sig"); err != nil || fromCert.Kid != km.Kid {
		t.Fatalf("same key from a certificate: %v", err)
	}
	for name, c := range map[string]struct {
		jwk  string
		pem  string
		want string
	}{
		"private JWK":       {string(privJWK), "", `private member "d"`},
		"symmetric":         {`{"kty":"oct","k":"c2VjcmV0"}`, "", `private member "k"`},
		"not JSON":          {`[1]`, "", "not a JSON object"},
		"nothing":           {"", "", "Send the public key"},
		"both":              {string(pubJWK), cert, "not both"},
		"not PEM":           {"", "hello", "The PEM cannot be read: paste a whole PEM public key or certificate"},
		"a BEGIN line only": {"", "-----BEGIN PRIVATE KEY-----", "The PEM cannot be read"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := orgkeys.ParseKeyMaterial(json.RawMessage(c.jwk), c.pem, "sig")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want %q", err, c.want)
			}
		})
	}
}
