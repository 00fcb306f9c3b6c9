package ssa

import (
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"
)

// TestVerifyRefusesCrit: RFC 7515 §4.1.11: a JWS whose "crit" names an
// extension the recipient does not understand is invalid. This verifier
// understands none, so any "crit" is refused, even with a good signature.
func TestVerifyRefusesCrit(t *testing.T) {
	for _, alg := range []string{PS256, MLDSA44} {
		k, err := GenerateKey(alg, 2048)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := k.SignJWS(map[string]any{"typ": "JWT", "crit": []string{"urn:example:unknown"}, "urn:example:unknown": true}, []byte(`{"iss":"x"}`), false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(tok, k.PublicJWK()); err == nil {
			t.Fatalf("%s: a JWS with a crit extension we do not understand verified", alg)
		}
		// The same key and payload without crit verify: the refusal is the crit.
		good, _ := k.SignJWS(map[string]any{"typ": "JWT"}, []byte(`{"iss":"x"}`), false)
		if _, err := Verify(good, k.PublicJWK()); err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
	}
}

// TestVerifyRefusesMissingAlg: RFC 7515 §4.1.1: "alg" MUST be present. A
// published key without "alg" must not make a header without "alg" pass.
func TestVerifyRefusesMissingAlg(t *testing.T) {
	k, err := GenerateKey(PS256, 2048)
	if err != nil {
		t.Fatal(err)
	}
	// Sign a header without alg by hand (SignJWS always sets it).
	input := b64.EncodeToString([]byte(`{"typ":"JWT"}`)) + "." + b64.EncodeToString([]byte(`{"iss":"x"}`))
	sig, err := k.Sign([]byte(input), false)
	if err != nil {
		t.Fatal(err)
	}
	key := k.PublicJWK()
	key.Alg = ""
	if _, err := Verify(input+"."+b64.EncodeToString(sig), key); err == nil {
		t.Fatal("a JWS without alg verified")
	}
}

// TestVerifyRefusesNonCanonicalBase64url: RFC 7515 §5.2 steps 2, 6 and 7
// decode each part "following the restriction that no line breaks,
// whitespace, or other additional characters have been used"; §2 defines
// base64url without padding. Go's decoder skips CR and LF and ignores
// non-zero trailing bits, so without care another string verifies as the
// same JWS.
func TestVerifyRefusesNonCanonicalBase64url(t *testing.T) {
	for _, alg := range []string{PS256, MLDSA44, MLDSA65, MLDSA87} {
		k, err := GenerateKey(alg, 2048)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := k.SignJWS(map[string]any{"typ": "JWT"}, []byte(`{"iss":"x"}`), false)
		if err != nil {
			t.Fatal(err)
		}
		key := k.PublicJWK()
		if _, err := Verify(tok, key); err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		parts := strings.Split(tok, ".")
		variants := map[string]string{
			"line break in the signature": parts[0] + "." + parts[1] + "." + parts[2][:10] + "\n" + parts[2][10:],
			"CR LF in the signature":      parts[0] + "." + parts[1] + "." + parts[2][:10] + "\r\n" + parts[2][10:],
			"padding on the signature":    tok + strings.Repeat("=", (4-len(parts[2])%4)%4),
		}
		if last, ok := flipSpareBits(parts[2]); ok {
			variants["non-zero trailing bits in the signature"] = parts[0] + "." + parts[1] + "." + last
		}
		for name, v := range variants {
			if v == tok {
				continue // no padding needed for this length
			}
			if _, err := Verify(v, key); err == nil {
				t.Errorf("%s: a token with %s verified", alg, name)
			}
		}
	}
}

// flipSpareBits changes the unused low bits of the last character of an
// unpadded base64url string (which decodes to the same bytes leniently).
func flipSpareBits(s string) (string, bool) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var spare int
	switch len(s) % 4 {
	case 2:
		spare = 0xF // 4 spare bits
	case 3:
		spare = 0x3 // 2 spare bits
	default:
		return "", false
	}
	i := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[i|spare]), true
}

// TestVerifyRefusesShortRSAKeys: RFC 7518 §3.5: "A key of size 2048 bits
// or larger MUST be used with these algorithms" (PS256).
func TestVerifyRefusesShortRSAKeys(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	k := &PrivateKey{Alg: PS256, rsa: rk}
	tok, err := k.SignJWS(map[string]any{"typ": "JWT"}, []byte(`{"iss":"x"}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(tok, k.PublicJWK()); err == nil {
		t.Fatal("a PS256 signature by a 1024-bit key verified")
	}
}
