package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"testing"
	"time"
)

// BenchmarkCheck is the server cost of one proof check (ES256).
func BenchmarkCheck(b *testing.B) {
	s, _ := NewSigner(ecKey)
	s.now = func() time.Time { return t0 }
	proofs := make([]string, b.N)
	for i := range proofs {
		proofs[i], _ = s.Proof("GET", targetURL, token, "")
	}
	c := checker()
	req := request()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Check([]string{proofs[i]}, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkECDSAVerify is the floor: the P-256 signature check alone.
func BenchmarkECDSAVerify(b *testing.B) {
	sum := sha256.Sum256([]byte("x"))
	sig, _ := ecdsa.SignASN1(nil, ecKey, sum[:])
	for i := 0; i < b.N; i++ {
		ecdsa.VerifyASN1(&ecKey.PublicKey, sum[:], sig)
	}
}

// BenchmarkEd25519Verify is the floor for EdDSA proofs.
func BenchmarkEd25519Verify(b *testing.B) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	sig := ed25519.Sign(priv, []byte("x"))
	for i := 0; i < b.N; i++ {
		ed25519.Verify(pub, []byte("x"), sig)
	}
}

// BenchmarkRSAVerify is the floor for PS256 proofs with a 2048-bit key.
func BenchmarkRSAVerify(b *testing.B) {
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	sum := sha256.Sum256([]byte("x"))
	sig, _ := rsa.SignPSS(rand.Reader, k, crypto.SHA256, sum[:], nil)
	for i := 0; i < b.N; i++ {
		rsa.VerifyPSS(&k.PublicKey, crypto.SHA256, sum[:], sig, nil)
	}
}

// BenchmarkCheckPerAlg is one proof check for each kind of client key.
func BenchmarkCheckPerAlg(b *testing.B) {
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, ek, _ := ed25519.GenerateKey(rand.Reader)
	for _, k := range []struct {
		name string
		key  crypto.Signer
	}{{"ES256", ecKey}, {"PS256", rk}, {"EdDSA", ek}} {
		b.Run(k.name, func(b *testing.B) {
			s, _ := NewSigner(k.key)
			s.now = func() time.Time { return t0 }
			proofs := make([]string, b.N)
			for i := range proofs {
				proofs[i], _ = s.Proof("GET", targetURL, token, "")
			}
			c := checker()
			req := request()
			req.JKT = s.Thumbprint()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Check([]string{proofs[i]}, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
