package ssa

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

type vector struct {
	Priv          string `json:"priv"`
	JWK           JWK    `json:"jwk"`
	JWS           string `json:"jws"`
	RawToBeSigned string `json:"raw_to_be_signed"`
	RawSignature  string `json:"raw_signature"`
	RawPublicKey  string `json:"raw_public_key"`
}

func loadVector(t *testing.T, name string) vector {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mldsa-jose", name))
	if err != nil {
		t.Fatal(err)
	}
	var v vector
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRFC9964Vectors checks each parameter set against the published
// vectors: public key from the seed, thumbprint kid, verification of the
// vector JWS, and byte-exact deterministic re-signing.
func TestRFC9964Vectors(t *testing.T) {
	for alg, file := range map[string]string{MLDSA44: "ML_DSA_44.jose.json", MLDSA65: "ML_DSA_65.jose.json", MLDSA87: "ML_DSA_87.jose.json"} {
		t.Run(alg, func(t *testing.T) {
			v := loadVector(t, file)
			seed, _ := hex.DecodeString(v.Priv)
			k, err := FromSeed(alg, seed)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(k.pub) != v.RawPublicKey {
				t.Fatal("public key from seed differs from the vector")
			}
			jwk := k.PublicJWK()
			if jwk.Pub != v.JWK.Pub || jwk.Alg != v.JWK.Alg || jwk.Kty != "AKP" {
				t.Fatalf("jwk %+v", jwk)
			}
			if jwk.Kid != v.JWK.Kid {
				t.Fatalf("kid %s, want %s", jwk.Kid, v.JWK.Kid)
			}
			payload, err := Verify(v.JWS, v.JWK)
			if err != nil {
				t.Fatalf("vector JWS: %v", err)
			}
			// Re-sign the same payload deterministically with the vector's header.
			input, _ := hex.DecodeString(v.RawToBeSigned)
			sig, err := k.Sign(input, true)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(sig) != v.RawSignature {
				t.Fatal("deterministic signature differs from the vector")
			}
			again, err := k.SignJWS(map[string]any{}, payload, true)
			if err != nil {
				t.Fatal(err)
			}
			if again != v.JWS {
				t.Fatalf("re-signed JWS differs:\n%s\n%s", again[:80], v.JWS[:80])
			}
			// A hedged signature verifies and differs from the deterministic one.
			hedged, _ := k.SignJWS(map[string]any{}, payload, false)
			if hedged == v.JWS {
				t.Fatal("hedged signing gave the deterministic signature")
			}
			if _, err := Verify(hedged, jwk); err != nil {
				t.Fatal(err)
			}
			// A changed byte fails.
			bad := []byte(v.JWS)
			bad[len(bad)-5] ^= 1
			if _, err := Verify(string(bad), v.JWK); err == nil {
				t.Fatal("a corrupted signature verified")
			}
		})
	}
}
