package dpop

import (
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"
)

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func ecJWK(k *ecdsa.PrivateKey, private bool) map[string]any {
	m := map[string]any{"kty": "EC", "crv": "P-256",
		"x": b64(k.X.FillBytes(make([]byte, 32))), "y": b64(k.Y.FillBytes(make([]byte, 32)))}
	if private {
		d, _ := k.Bytes()
		m["d"] = b64(d)
	}
	return m
}

// build signs header and claims by hand so that tests can break any rule.
func build(t *testing.T, hdr, claims map[string]any, key *ecdsa.PrivateKey) string {
	t.Helper()
	hb, _ := json.Marshal(hdr)
	cb, _ := json.Marshal(claims)
	input := b64(hb) + "." + b64(cb)
	var sig []byte
	switch hdr["alg"] {
	case "HS256":
		m := hmac.New(sha256.New, []byte("secret"))
		m.Write([]byte(input))
		sig = m.Sum(nil)
	case "none":
		sig = []byte("x")
	default:
		sum := sha256.Sum256([]byte(input))
		r, s, err := ecdsa.Sign(rand.Reader, key, sum[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	}
	return input + "." + b64(sig)
}

func goodParts() (map[string]any, map[string]any) {
	return map[string]any{"typ": "dpop+jwt", "alg": "ES256", "jwk": ecJWK(ecKey, false)},
		map[string]any{"jti": "jti-1", "htm": "GET", "htu": targetURL, "iat": t0.Unix(), "ath": ath(token)}
}

func checker() *Checker { return &Checker{Now: func() time.Time { return t0 }} }

func request() Request {
	return Request{Method: "GET", URL: targetURL, AccessToken: token, JKT: jktOf(ecKey)}
}
