// Package ssa signs software statement assertions: JWS with PS256 or the
// post-quantum ML-DSA-44/65/87 of RFC 9964 (key type AKP), their JWKs and
// RFC 7638 thumbprints, and the SSA claims.
package ssa

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
	"github.com/cloudflare/circl/sign/mldsa/mldsa87"
)

// The signing algorithms of release 2.6.0.
const (
	PS256    = "PS256"
	MLDSA44  = "ML-DSA-44"
	MLDSA65  = "ML-DSA-65"
	MLDSA87  = "ML-DSA-87"
	SeedSize = 32
)

// AllAlgs are the algorithms an SSA may be signed with, default first.
var AllAlgs = []string{PS256, MLDSA44, MLDSA65, MLDSA87}

// IsMLDSA reports whether alg is one of the ML-DSA parameter sets.
func IsMLDSA(alg string) bool { return alg == MLDSA44 || alg == MLDSA65 || alg == MLDSA87 }

var b64 = base64.RawURLEncoding

// JWK is a public key as published: RSA (n, e) or AKP (pub).
type JWK struct {
	Kty string `json:"kty"`
	Alg string `json:"alg"`
	Use string `json:"use,omitempty"`
	Kid string `json:"kid,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
	Pub string `json:"pub,omitempty"`
}

// Thumbprint is the RFC 7638 SHA-256 thumbprint: the required members in
// lexicographic order, no spaces (RSA: e, kty, n; AKP: alg, kty, pub as
// RFC 9964 says).
func (k JWK) Thumbprint() (string, error) {
	var canon string
	switch k.Kty {
	case "RSA":
		canon = `{"e":"` + k.E + `","kty":"RSA","n":"` + k.N + `"}`
	case "AKP":
		canon = `{"alg":"` + k.Alg + `","kty":"AKP","pub":"` + k.Pub + `"}`
	default:
		return "", fmt.Errorf("ssa: no thumbprint for kty %q", k.Kty)
	}
	sum := sha256.Sum256([]byte(canon))
	return b64.EncodeToString(sum[:]), nil
}

// PrivateKey is a signing key of one algorithm.
type PrivateKey struct {
	Alg  string
	rsa  *rsa.PrivateKey
	seed []byte
	m44  *mldsa44.PrivateKey
	m65  *mldsa65.PrivateKey
	m87  *mldsa87.PrivateKey
	pub  []byte // ML-DSA public key encoding
}

// GenerateKey makes a new key: RSA of rsaBits for PS256, a random seed for ML-DSA.
func GenerateKey(alg string, rsaBits int) (*PrivateKey, error) {
	switch {
	case alg == PS256:
		if rsaBits < 2048 {
			return nil, fmt.Errorf("ssa: RSA keys must have at least 2048 bits, not %d", rsaBits)
		}
		k, err := rsa.GenerateKey(rand.Reader, rsaBits)
		if err != nil {
			return nil, err
		}
		return &PrivateKey{Alg: alg, rsa: k}, nil
	case IsMLDSA(alg):
		seed := make([]byte, SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, err
		}
		return FromSeed(alg, seed)
	}
	return nil, fmt.Errorf("ssa: unknown algorithm %q", alg)
}

// FromSeed derives an ML-DSA key from its 32-byte seed (FIPS 204 ξ).
func FromSeed(alg string, seed []byte) (*PrivateKey, error) {
	if len(seed) != SeedSize {
		return nil, fmt.Errorf("ssa: an ML-DSA seed has %d bytes, not %d", SeedSize, len(seed))
	}
	var s [SeedSize]byte
	copy(s[:], seed)
	k := &PrivateKey{Alg: alg, seed: append([]byte(nil), seed...)}
	switch alg {
	case MLDSA44:
		pk, sk := mldsa44.NewKeyFromSeed(&s)
		k.m44, k.pub = sk, pk.Bytes()
	case MLDSA65:
		pk, sk := mldsa65.NewKeyFromSeed(&s)
		k.m65, k.pub = sk, pk.Bytes()
	case MLDSA87:
		pk, sk := mldsa87.NewKeyFromSeed(&s)
		k.m87, k.pub = sk, pk.Bytes()
	default:
		return nil, fmt.Errorf("ssa: %q is not an ML-DSA algorithm", alg)
	}
	return k, nil
}

// Marshal is the private key to keep (encrypted): PKCS #8 for RSA, the
// 32-byte seed for ML-DSA.
func (k *PrivateKey) Marshal() ([]byte, error) {
	if k.rsa != nil {
		return x509.MarshalPKCS8PrivateKey(k.rsa)
	}
	return append([]byte(nil), k.seed...), nil
}

// ParsePrivateKey reads what Marshal wrote.
func ParsePrivateKey(alg string, b []byte) (*PrivateKey, error) {
	if IsMLDSA(alg) {
		return FromSeed(alg, b)
	}
	if alg != PS256 {
		return nil, fmt.Errorf("ssa: unknown algorithm %q", alg)
	}
	key, err := x509.ParsePKCS8PrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("ssa: %w", err)
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("ssa: not an RSA key")
	}
	return &PrivateKey{Alg: alg, rsa: rk}, nil
}

// PublicJWK is the public key with its thumbprint kid.
func (k *PrivateKey) PublicJWK() JWK {
	var j JWK
	if k.rsa != nil {
		j = JWK{Kty: "RSA", Alg: PS256, Use: "sig", N: b64.EncodeToString(k.rsa.N.Bytes()),
			E: b64.EncodeToString(big.NewInt(int64(k.rsa.E)).Bytes())}
	} else {
		j = JWK{Kty: "AKP", Alg: k.Alg, Use: "sig", Pub: b64.EncodeToString(k.pub)}
	}
	j.Kid, _ = j.Thumbprint()
	return j
}

// Sign signs a JWS signing input. ML-DSA signatures are hedged (randomized)
// with an empty context unless deterministic is set (test vectors only).
func (k *PrivateKey) Sign(input []byte, deterministic bool) ([]byte, error) {
	switch {
	case k.rsa != nil:
		sum := sha256.Sum256(input)
		return rsa.SignPSS(rand.Reader, k.rsa, crypto.SHA256, sum[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	case k.m44 != nil:
		sig := make([]byte, mldsa44.SignatureSize)
		return sig, mldsa44.SignTo(k.m44, input, nil, !deterministic, sig)
	case k.m65 != nil:
		sig := make([]byte, mldsa65.SignatureSize)
		return sig, mldsa65.SignTo(k.m65, input, nil, !deterministic, sig)
	case k.m87 != nil:
		sig := make([]byte, mldsa87.SignatureSize)
		return sig, mldsa87.SignTo(k.m87, input, nil, !deterministic, sig)
	}
	return nil, errors.New("ssa: empty key")
}

// SignJWS makes a compact JWS with the header members given (alg and kid
// are set from the key).
func (k *PrivateKey) SignJWS(header map[string]any, payload []byte, deterministic bool) (string, error) {
	h := map[string]any{}
	for key, v := range header {
		h[key] = v
	}
	jwk := k.PublicJWK()
	h["alg"], h["kid"] = k.Alg, jwk.Kid
	hb, err := json.Marshal(h)
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(hb) + "." + b64.EncodeToString(payload)
	sig, err := k.Sign([]byte(input), deterministic)
	if err != nil {
		return "", err
	}
	return input + "." + b64.EncodeToString(sig), nil
}

// Verify checks a compact JWS against a published key and returns its
// payload. The header alg must be the key's alg.
func Verify(token string, key JWK) ([]byte, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("ssa: not a compact JWS")
	}
	hb, err := decodePart(parts[0])
	if err != nil {
		return nil, errors.New("ssa: header is not base64url")
	}
	var h struct {
		Alg  string          `json:"alg"`
		Crit json.RawMessage `json:"crit"`
	}
	if err := json.Unmarshal(hb, &h); err != nil || h.Alg == "" || h.Alg != key.Alg {
		return nil, fmt.Errorf("ssa: header alg %q is not the key's %q", h.Alg, key.Alg)
	}
	// RFC 7515 §4.1.11: an extension named in crit that the recipient does
	// not understand makes the JWS invalid; this verifier understands none.
	if h.Crit != nil {
		return nil, errors.New("ssa: the header names critical extensions (crit) this verifier does not support")
	}
	sig, err := decodePart(parts[2])
	if err != nil {
		return nil, errors.New("ssa: signature is not base64url")
	}
	payload, err := decodePart(parts[1])
	if err != nil {
		return nil, errors.New("ssa: payload is not base64url")
	}
	input := []byte(parts[0] + "." + parts[1])
	switch key.Kty {
	case "RSA":
		nb, err1 := b64.DecodeString(key.N)
		eb, err2 := b64.DecodeString(key.E)
		if err1 != nil || err2 != nil {
			return nil, errors.New("ssa: bad RSA key")
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(nb), E: int(new(big.Int).SetBytes(eb).Int64())}
		if pub.N.BitLen() < 2048 { // RFC 7518 §3.5
			return nil, errors.New("ssa: PS256 needs an RSA key of 2048 bits or more")
		}
		sum := sha256.Sum256(input)
		if rsa.VerifyPSS(pub, crypto.SHA256, sum[:], sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) != nil {
			return nil, errors.New("ssa: bad signature")
		}
	case "AKP":
		pb, err := b64.DecodeString(key.Pub)
		if err != nil {
			return nil, errors.New("ssa: bad AKP key")
		}
		ok := false
		switch key.Alg {
		case MLDSA44:
			var pk mldsa44.PublicKey
			ok = pk.UnmarshalBinary(pb) == nil && mldsa44.Verify(&pk, input, nil, sig)
		case MLDSA65:
			var pk mldsa65.PublicKey
			ok = pk.UnmarshalBinary(pb) == nil && mldsa65.Verify(&pk, input, nil, sig)
		case MLDSA87:
			var pk mldsa87.PublicKey
			ok = pk.UnmarshalBinary(pb) == nil && mldsa87.Verify(&pk, input, nil, sig)
		}
		if !ok {
			return nil, errors.New("ssa: bad signature")
		}
	default:
		return nil, fmt.Errorf("ssa: unknown kty %q", key.Kty)
	}
	return payload, nil
}

// strictB64 refuses non-zero trailing bits; decodePart also refuses the CR
// and LF that Go's decoder skips: RFC 7515 §5.2 decodes each part with no
// line breaks, white space or other characters, so one JWS has one string.
var strictB64 = base64.RawURLEncoding.Strict()

func decodePart(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("ssa: line break in base64url")
	}
	return strictB64.DecodeString(s)
}
