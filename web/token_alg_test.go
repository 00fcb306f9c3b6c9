package web_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestAccessTokenAlgNoneAndHMACRefused: an access token that names alg
// none, or HS256 keyed with the issuer's public key (in any of the forms
// a verifier might use as the secret), is refused as Bearer and as DPoP,
// whatever its claims say.
func TestAccessTokenAlgNoneAndHMACRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	now := time.Now()
	claims, _ := json.Marshal(map[string]any{"iss": env.URL + "/dev/idp", "aud": []string{env.URL + "/api"}, "sub": "admin@example.com",
		"email": "admin@example.com", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "x"})
	b64 := base64.RawURLEncoding.EncodeToString
	b, err := os.ReadFile(filepath.Join(env.DataDir, "dev-idp-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	key, err := x509.ParsePKCS1PrivateKey(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	secrets := map[string][]byte{
		"PEM":   pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}),
		"DER":   der,
		"PKCS1": x509.MarshalPKCS1PublicKey(&key.PublicKey),
	}
	tokens := map[string]string{}
	for _, alg := range []string{"none", "None", "NONE"} {
		h, _ := json.Marshal(map[string]string{"alg": alg, "typ": "at+jwt"})
		tokens["alg "+alg] = b64(h) + "." + b64(claims) + "."
	}
	for name, secret := range secrets {
		h, _ := json.Marshal(map[string]string{"alg": "HS256", "typ": "at+jwt"})
		in := b64(h) + "." + b64(claims)
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(in))
		tokens["HS256 keyed with the "+name] = in + "." + b64(m.Sum(nil))
	}
	for name, tok := range tokens {
		for _, scheme := range []string{"Bearer", "DPoP"} {
			r, body := call(t, "GET", env.URL+"/api/users/super", http.Header{"Authorization": {scheme + " " + tok}})
			if r.StatusCode != http.StatusUnauthorized || !strings.Contains(strings.Join(r.Header.Values("WWW-Authenticate"), " "), `error="invalid_token"`) {
				t.Errorf("%s as %s: %d %v %s", name, scheme, r.StatusCode, r.Header.Values("WWW-Authenticate"), body)
			}
		}
	}
}
