package ssa

import (
	"strings"
	"testing"

	"filippo.io/mldsa"
)

// TestCrossImplementation: signatures made here (circl, hedged) verify
// with filippo.io/mldsa, an independent ML-DSA implementation.
func TestCrossImplementation(t *testing.T) {
	params := map[string]mldsa.Parameters{MLDSA44: mldsa.MLDSA44(), MLDSA65: mldsa.MLDSA65(), MLDSA87: mldsa.MLDSA87()}
	for alg, p := range params {
		t.Run(alg, func(t *testing.T) {
			k, err := GenerateKey(alg, 0)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := k.SignJWS(map[string]any{"typ": "JWT"}, []byte(`{"iss":"x"}`), false)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := mldsa.NewPublicKey(p, k.pub)
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(tok, ".")
			sig, _ := b64.DecodeString(parts[2])
			if err := mldsa.Verify(pub, []byte(parts[0]+"."+parts[1]), sig, &mldsa.Options{}); err != nil {
				t.Fatalf("filippo.io/mldsa refuses our signature: %v", err)
			}
			// And the other way: the same seed gives the same public key there.
			priv, err := mldsa.NewPrivateKey(p, k.seed)
			if err != nil {
				t.Fatal(err)
			}
			if string(priv.PublicKey().Bytes()) != string(k.pub) {
				t.Fatal("public keys from the same seed differ")
			}
		})
	}
}
