package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Signer makes proofs with one key.
type Signer struct {
	key  crypto.Signer
	alg  jose.SignatureAlgorithm
	jose jose.Signer
	now  func() time.Time
}

// NewSigner makes proofs with key (ECDSA P-256/384/521, Ed25519 or RSA).
func NewSigner(key crypto.Signer) (*Signer, error) {
	var alg jose.SignatureAlgorithm
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve.Params().BitSize {
		case 256:
			alg = jose.ES256
		case 384:
			alg = jose.ES384
		case 521:
			alg = jose.ES512
		}
	case ed25519.PrivateKey:
		alg = jose.EdDSA
	case *rsa.PrivateKey:
		alg = jose.PS256
	}
	if alg == "" {
		return nil, fmt.Errorf("dpop: unsupported key type %T", key)
	}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		return nil, err
	}
	return &Signer{key: key, alg: alg, jose: s, now: time.Now}, nil
}

// Thumbprint is the RFC 7638 thumbprint of the public key (cnf.jkt).
func (s *Signer) Thumbprint() string { return thumbprintOf(s.key.Public()) }

// Proof makes a proof for one request. accessToken, when set, is bound by
// ath; nonce is the server's last DPoP-Nonce.
func (s *Signer) Proof(method, uri, accessToken, nonce string) (string, error) {
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	c := map[string]any{
		"jti": base64.RawURLEncoding.EncodeToString(jti),
		"htm": method,
		"htu": uri,
		"iat": s.now().Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		c["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		c["nonce"] = nonce
	}
	return jwt.Signed(s.jose).Claims(c).Serialize()
}

func thumbprintOf(pub crypto.PublicKey) string {
	tp, _ := (&jose.JSONWebKey{Key: pub}).Thumbprint(crypto.SHA256)
	return base64.RawURLEncoding.EncodeToString(tp)
}
