// Package orgkeys checks what organisations upload as keys: X.509
// certificates (one leaf, in date, RSA ≥ 2048 or EC P-256/P-384) and public
// key material (a JWK, a PEM public key or a certificate), and turns them
// into public JWKs for the organisation keystore.
package orgkeys

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

var b64 = base64.RawURLEncoding

// Certificate is a checked certificate.
type Certificate struct {
	Cert      *x509.Certificate
	Kid       string // base64url SHA-256 of the DER, the same value as x5t#S256
	SubjectDN string
	IssuerDN  string
	Serial    string
	JWK       json.RawMessage
}

// Refusal is a clear reason to refuse an upload.
type Refusal struct {
	Message string
	// PrivateKey: what was sent holds a private key, which a refused form
	// must not show back (the console clears the field).
	PrivateKey bool
}

func (r *Refusal) Error() string { return r.Message }

// unreadableCert is the refusal of a CERTIFICATE block that is not an
// X.509 certificate (the parser's own words name its internals).
const unreadableCert = "The certificate cannot be read: the CERTIFICATE block is not an X.509 certificate (damaged or cut short?). Export it again as PEM."

func refuse(format string, args ...any) error { return &Refusal{Message: fmt.Sprintf(format, args...)} }

func refusePrivate(format string, args ...any) error {
	return &Refusal{Message: fmt.Sprintf(format, args...), PrivateKey: true}
}

// HoldsPrivateKey reports whether err refuses what was sent because it
// holds a private key.
func HoldsPrivateKey(err error) bool {
	var r *Refusal
	return errors.As(err, &r) && r.PrivateKey
}

// HasPrivateKey reports whether pemText holds a PEM block of a private
// key anywhere: such text is refused before it is kept anywhere, even for
// a moment (the certificate wizard's review step).
func HasPrivateKey(pemText string) bool {
	rest := []byte(pemText)
	for {
		blk, r := pem.Decode(rest)
		if blk == nil {
			return false
		}
		if strings.Contains(blk.Type, "PRIVATE KEY") {
			return true
		}
		rest = r
	}
}

// ParseCertificate checks a PEM certificate for an organisation: exactly
// one CERTIFICATE block and nothing else, valid now, with an accepted key.
// use is the JWK use of the certificate type (sig or tls).
func ParseCertificate(pemText string, now time.Time, use string) (*Certificate, error) {
	rest := []byte(strings.TrimSpace(pemText))
	if len(rest) == 0 {
		return nil, refuse("The certificate is empty: paste or upload a PEM certificate.")
	}
	var certs []*pem.Block
	for len(rest) > 0 {
		blk, r := pem.Decode(rest)
		if blk == nil {
			if len(certs) == 0 {
				return nil, refuse("This is not a PEM certificate: expected -----BEGIN CERTIFICATE-----.")
			}
			if strings.TrimSpace(string(rest)) != "" {
				return nil, refuse("There is text after the certificate that is not PEM.")
			}
			break
		}
		if blk.Type != "CERTIFICATE" {
			if strings.Contains(blk.Type, "PRIVATE KEY") {
				return nil, refusePrivate("The PEM holds a private key (%s). Upload the certificate only; never send a private key.", blk.Type)
			}
			return nil, refuse("The PEM holds a %s block; only one CERTIFICATE is accepted.", blk.Type)
		}
		certs = append(certs, blk)
		rest = []byte(strings.TrimSpace(string(r)))
	}
	if len(certs) != 1 {
		return nil, refuse("The PEM holds %d certificates; upload the leaf certificate only.", len(certs))
	}
	c, err := x509.ParseCertificate(certs[0].Bytes)
	if err != nil {
		return nil, refuse(unreadableCert)
	}
	if now.After(c.NotAfter) {
		return nil, refuse("The certificate expired on %s.", c.NotAfter.UTC().Format("2006-01-02"))
	}
	if now.Before(c.NotBefore) {
		return nil, refuse("The certificate is not valid before %s.", c.NotBefore.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if err := CheckKey(c.PublicKey, false); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(c.Raw)
	kid := b64.EncodeToString(sum[:])
	jwk, err := publicJWK(c.PublicKey, kid, use, map[string]any{
		"x5c":      []string{base64.StdEncoding.EncodeToString(c.Raw)},
		"x5t#S256": kid,
	})
	if err != nil {
		return nil, err
	}
	return &Certificate{Cert: c, Kid: kid, SubjectDN: c.Subject.String(), IssuerDN: c.Issuer.String(),
		Serial: strings.ToUpper(hex.EncodeToString(c.SerialNumber.Bytes())), JWK: jwk}, nil
}

// MaxRSABits bounds the RSA keys taken (as Go's TLS stack does); pki and
// clienttoken hold the same bound, not importing this package.
const MaxRSABits = 8192

// CheckKey accepts RSA of 2048 to MaxRSABits bits and EC P-256 or P-384 (and,
// for key material, P-521 and Ed25519).
func CheckKey(pub crypto.PublicKey, keyMaterial bool) error {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < 2048 {
			return refuse("The RSA key has %d bits; at least 2048 are required.", k.N.BitLen())
		}
		if k.N.BitLen() > MaxRSABits {
			// Each use (a client assertion, a chain) checks a signature
			// under it: an enormous modulus costs seconds a time.
			return refuse("The RSA key has %d bits; at most %d are taken.", k.N.BitLen(), MaxRSABits)
		}
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256(), elliptic.P384():
		case elliptic.P521():
			if !keyMaterial {
				return refuse("EC keys must use P-256 or P-384, not P-521.")
			}
		default:
			return refuse("EC keys must use P-256 or P-384.")
		}
	case ed25519.PublicKey:
		if !keyMaterial {
			return refuse("Ed25519 certificates are not accepted; use RSA (2048 bits or more) or EC P-256/P-384.")
		}
	default:
		return refuse("The key type %T is not accepted; use RSA (2048 bits or more) or EC P-256/P-384.", pub)
	}
	return nil
}

// publicJWK is the JWK of a public key with kid, use and extra members.
func publicJWK(pub crypto.PublicKey, kid, use string, extra map[string]any) (json.RawMessage, error) {
	m := map[string]any{"kid": kid}
	if use != "" {
		m["use"] = use
	}
	switch k := pub.(type) {
	case *rsa.PublicKey:
		m["kty"], m["n"], m["e"] = "RSA", b64.EncodeToString(k.N.Bytes()), b64.EncodeToString(big.NewInt(int64(k.E)).Bytes())
	case *ecdsa.PublicKey:
		size := (k.Curve.Params().BitSize + 7) / 8
		ecdh, err := k.ECDH()
		if err != nil {
			return nil, refuse("The EC key is not valid.")
		}
		raw := ecdh.Bytes() // 0x04 || X || Y
		m["kty"], m["crv"], m["x"], m["y"] = "EC", k.Curve.Params().Name, b64.EncodeToString(raw[1:1+size]), b64.EncodeToString(raw[1+size:])
	case ed25519.PublicKey:
		m["kty"], m["crv"], m["x"] = "OKP", "Ed25519", b64.EncodeToString(k)
	default:
		return nil, refuse("The key type %T is not accepted.", pub)
	}
	for k, v := range extra {
		m[k] = v
	}
	return json.Marshal(m)
}

var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "k", "oth", "priv"}

// KeyMaterial is checked public key material.
type KeyMaterial struct {
	Kid string // RFC 7638 thumbprint
	JWK json.RawMessage
}

// ParseKeyMaterial reads a public JWK, or a PEM public key or certificate,
// refusing private members; Kid is its RFC 7638 thumbprint.
func ParseKeyMaterial(jwkJSON json.RawMessage, pemText, use string) (*KeyMaterial, error) {
	var pub crypto.PublicKey
	switch {
	case len(jwkJSON) > 0 && string(jwkJSON) != "null" && pemText != "":
		return nil, refuse("Give the public key once: as a JWK or as PEM, not both.")
	case len(jwkJSON) > 0 && string(jwkJSON) != "null":
		var members map[string]json.RawMessage
		if err := json.Unmarshal(jwkJSON, &members); err != nil {
			return nil, refuse("The public key (JWK) is not a JSON object: paste the key as {\"kty\": …}.")
		}
		for _, m := range privateMembers {
			if _, ok := members[m]; ok {
				return nil, refusePrivate("The JWK holds the private member %q: send the public key only.", m)
			}
		}
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(jwkJSON); err != nil {
			return nil, refuse("The public key (JWK) is not a usable key: check its kty, crv and coordinates (x, y) or modulus and exponent (n, e), or export it again.")
		}
		if !k.IsPublic() {
			return nil, refuse("The JWK must be a public key.")
		}
		pub = k.Key
	case pemText != "":
		blk, rest := pem.Decode([]byte(strings.TrimSpace(pemText)))
		if blk == nil {
			return nil, refuse("The PEM cannot be read: paste a whole PEM public key or certificate, from its -----BEGIN line to its -----END line.")
		}
		if strings.TrimSpace(string(rest)) != "" {
			return nil, refuse("PEM must hold one public key or one certificate.")
		}
		switch blk.Type {
		case "PUBLIC KEY":
			k, err := x509.ParsePKIXPublicKey(blk.Bytes)
			if err != nil {
				return nil, refuse("The public key cannot be read: it is not a PEM PUBLIC KEY (SubjectPublicKeyInfo). Export the public key again.")
			}
			pub = k
		case "CERTIFICATE":
			c, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				return nil, refuse(unreadableCert)
			}
			pub = c.PublicKey
		default:
			if strings.Contains(blk.Type, "PRIVATE KEY") {
				return nil, refusePrivate("The PEM holds a private key: send the public key only.")
			}
			return nil, refuse("PEM must be a PUBLIC KEY or a CERTIFICATE, not %s.", blk.Type)
		}
	default:
		return nil, refuse("Send the public key as a JWK or as PEM.")
	}
	if err := CheckKey(pub, true); err != nil {
		return nil, err
	}
	tp, err := (&jose.JSONWebKey{Key: pub}).Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, refuse("No thumbprint for this key.")
	}
	kid := b64.EncodeToString(tp)
	jwk, err := publicJWK(pub, kid, use, nil)
	if err != nil {
		return nil, err
	}
	return &KeyMaterial{Kid: kid, JWK: jwk}, nil
}

// RevokeReasons are the accepted reasons to revoke.
var RevokeReasons = []string{"unspecified", "keycompromise", "superseded", "cessationofoperation", "privilegewithdrawn"}

// ValidRevokeReason reports whether r is one of RevokeReasons, in any
// case (keyCompromise, as RFC 5280 spells it, too).
func ValidRevokeReason(r string) bool {
	_, ok := CanonicalRevokeReason(r)
	return ok
}

// CanonicalRevokeReason is r as RevokeReasons spell it (lower case), and
// whether it is one.
func CanonicalRevokeReason(r string) (string, bool) {
	for _, v := range RevokeReasons {
		if strings.EqualFold(v, r) {
			return v, true
		}
	}
	return r, false
}

// Thumbprint is the RFC 7638 SHA-256 thumbprint (base64url) of a public
// JWK, the key's identity whatever its kid says; false when jwkJSON is not
// a usable public key.
func Thumbprint(jwkJSON json.RawMessage) (string, bool) {
	var k jose.JSONWebKey
	if err := k.UnmarshalJSON(jwkJSON); err != nil || !k.Valid() || !k.IsPublic() {
		return "", false
	}
	tp, err := k.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", false
	}
	return b64.EncodeToString(tp), true
}
