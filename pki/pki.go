// Package pki is the directory's certificate authority (docs/design.md
// §18): the CA's own certificate, certificates issued from CSRs with the
// subject the directory's records give, CRLs and OCSP answers. The formats
// are crypto/x509's and golang.org/x/crypto/ocsp's; no ASN.1 is written
// here by hand. It knows neither HTTP nor SQL.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"golang.org/x/crypto/ocsp"
)

// Key algorithms of the CA (--pki-key-alg).
const (
	AlgES384  = "ES384"  // ECDSA P-384, the default
	AlgRS3072 = "RS3072" // RSA 3072
)

// Uses of an issued certificate: what its key may do.
const (
	UseTransport  = "transport"  // TLS client and server authentication
	UseSigning    = "signing"    // digitalSignature
	UseEncryption = "encryption" // keyEncipherment, RSA keys only
	UseSeal       = "seal"       // the organisation's: digitalSignature, nonRepudiation
)

// Uses are every use, in the order the console offers them.
var Uses = []string{UseTransport, UseSigning, UseEncryption, UseSeal}

// Object identifiers of the subject attributes the directory sets.
var (
	oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}
	oidUID                    = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
)

// CA is the certificate authority: its certificate and its key.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// NewCA makes a self-signed CA certificate for subject with a new key of
// alg, valid from now for lifetime; it returns the certificate's DER and
// the key as PKCS #8 DER (to be sealed before it is stored).
func NewCA(subject pkix.Name, alg string, now time.Time, lifetime time.Duration) (certDER, keyDER []byte, err error) {
	var key crypto.Signer
	switch alg {
	case AlgES384, "":
		key, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case AlgRS3072:
		key, err = rsa.GenerateKey(rand.Reader, 3072)
	default:
		return nil, nil, fmt.Errorf("pki: key algorithm %q: want %s or %s", alg, AlgES384, AlgRS3072)
	}
	if err != nil {
		return nil, nil, err
	}
	serial, err := Serial()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               subject,
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(lifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	certDER, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err = x509.MarshalPKCS8PrivateKey(key)
	return certDER, keyDER, err
}

// Load is the CA of a certificate and its PKCS #8 key, checked to match.
func Load(certDER, keyDER []byte) (*CA, error) {
	cert, err := x509.ParseCertificate(certDER)
	if err != nil {
		return nil, fmt.Errorf("pki: the CA certificate: %w", err)
	}
	k, err := x509.ParsePKCS8PrivateKey(keyDER)
	if err != nil {
		return nil, fmt.Errorf("pki: the CA key: %w", err)
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, errors.New("pki: the CA key cannot sign")
	}
	type equaler interface{ Equal(crypto.PublicKey) bool }
	if pub, ok := cert.PublicKey.(equaler); !ok || !pub.Equal(signer.Public()) {
		return nil, errors.New("pki: the CA key is not the certificate's")
	}
	if !cert.IsCA {
		return nil, errors.New("pki: the CA certificate is not a CA's")
	}
	return &CA{Cert: cert, Key: signer}, nil
}

// Serial is a random serial number of 128 bits, positive.
func Serial() (*big.Int, error) {
	b := make([]byte, 16)
	for {
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		// All 128 bits random, read as an unsigned number: positive, and at
		// most 17 octets in DER (a leading zero when the top bit is set),
		// within RFC 5280's 20. Zero, never seen in practice, is drawn again.
		if s := new(big.Int).SetBytes(b); s.Sign() > 0 {
			return s, nil
		}
	}
}

// URLs are where the CA publishes, put in every certificate it issues.
type URLs struct {
	CRL       string // the CRL distribution point
	OCSP      string // the OCSP responder
	CAIssuers string // the CA certificate (DER)
}

// URLsUnder are the CA's URLs under the service's base URL.
func URLsUnder(baseURL string) URLs {
	b := strings.TrimSuffix(baseURL, "/")
	return URLs{CRL: b + "/pki/crl", OCSP: b + "/pki/ocsp", CAIssuers: b + "/pki/ca.crt"}
}

// Leaf is a certificate to issue: the key comes from a checked CSR, the
// subject from the directory's records.
type Leaf struct {
	Key       crypto.PublicKey
	Subject   pkix.Name
	Use       string
	Serial    *big.Int
	NotBefore time.Time
	NotAfter  time.Time
}

// Issue signs leaf with the CA; the certificate carries the CA's URLs.
func (ca *CA) Issue(leaf Leaf, urls URLs) ([]byte, error) {
	tmpl := &x509.Certificate{
		SerialNumber:          leaf.Serial,
		Subject:               leaf.Subject,
		NotBefore:             leaf.NotBefore,
		NotAfter:              leaf.NotAfter,
		BasicConstraintsValid: true,
		CRLDistributionPoints: []string{urls.CRL},
		OCSPServer:            []string{urls.OCSP},
		IssuingCertificateURL: []string{urls.CAIssuers},
	}
	switch leaf.Use {
	case UseTransport:
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		if _, ok := leaf.Key.(*rsa.PublicKey); ok {
			tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment
		}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}
	case UseSigning:
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	case UseEncryption:
		if _, ok := leaf.Key.(*rsa.PublicKey); !ok {
			return nil, errors.New("pki: an encryption certificate needs an RSA key")
		}
		tmpl.KeyUsage = x509.KeyUsageKeyEncipherment
	case UseSeal:
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment
	default:
		return nil, fmt.Errorf("pki: use %q: want one of %s", leaf.Use, strings.Join(Uses, ", "))
	}
	return x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, leaf.Key, ca.Key)
}

// RFC 5280 CRLReason codes (§5.3.1) of the reasons the directory takes.
const (
	ReasonUnspecified          = 0
	ReasonKeyCompromise        = 1
	ReasonSuperseded           = 4
	ReasonCessationOfOperation = 5
	ReasonPrivilegeWithdrawn   = 9
)

// ReasonCode is the RFC 5280 code of one of the directory's revoke
// reasons (orgkeys.RevokeReasons, any case); another is unspecified.
func ReasonCode(reason string) int {
	switch strings.ToLower(reason) {
	case "keycompromise":
		return ReasonKeyCompromise
	case "superseded":
		return ReasonSuperseded
	case "cessationofoperation":
		return ReasonCessationOfOperation
	case "privilegewithdrawn":
		return ReasonPrivilegeWithdrawn
	}
	return ReasonUnspecified
}

// Revoked is a certificate the CA issued and revoked.
type Revoked struct {
	Serial *big.Int
	At     time.Time
	Reason int // RFC 5280 CRLReason
}

// CRL is the CA's revocation list number, listing revoked, valid from now
// for a day (docs/design.md §18).
func (ca *CA) CRL(number int64, revoked []Revoked, now time.Time) ([]byte, error) {
	entries := make([]x509.RevocationListEntry, len(revoked))
	for i, r := range revoked {
		entries[i] = x509.RevocationListEntry{SerialNumber: r.Serial, RevocationTime: r.At.UTC(), ReasonCode: r.Reason}
	}
	return x509.CreateRevocationList(rand.Reader, &x509.RevocationList{
		Number:                    big.NewInt(number),
		ThisUpdate:                now.UTC(),
		NextUpdate:                now.UTC().Add(24 * time.Hour),
		RevokedCertificateEntries: entries,
	}, ca.Cert, ca.Key)
}

// OCSP statuses of a serial number.
const (
	Good      = ocsp.Good
	IsRevoked = ocsp.Revoked
	Unknown   = ocsp.Unknown
)

// CertStatus is what the directory knows of a serial the CA may have
// issued.
type CertStatus struct {
	Status    int // Good, IsRevoked or Unknown
	RevokedAt time.Time
	Reason    int
}

// OCSPAnswer is the CA's signed answer to req (RFC 6960) with st, valid
// from now for an hour.
func (ca *CA) OCSPAnswer(req *ocsp.Request, st CertStatus, now time.Time) ([]byte, error) {
	tmpl := ocsp.Response{
		Status:       st.Status,
		SerialNumber: req.SerialNumber,
		ThisUpdate:   now.UTC().Truncate(time.Second),
		NextUpdate:   now.UTC().Truncate(time.Second).Add(time.Hour),
		IssuerHash:   req.HashAlgorithm,
	}
	if st.Status == IsRevoked {
		tmpl.RevokedAt = st.RevokedAt.UTC().Truncate(time.Second)
		tmpl.RevocationReason = st.Reason
	}
	return ocsp.CreateResponse(ca.Cert, ca.Cert, tmpl, ca.Key)
}

// ForThisCA reports whether req asks about a certificate of this CA (the
// issuer's name and key hashes match).
func (ca *CA) ForThisCA(req *ocsp.Request) bool {
	h := req.HashAlgorithm
	if !h.Available() {
		return false
	}
	nameHash := h.New()
	nameHash.Write(ca.Cert.RawSubject)
	var spki struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	if _, err := asn1.Unmarshal(ca.Cert.RawSubjectPublicKeyInfo, &spki); err != nil {
		return false
	}
	keyHash := h.New()
	keyHash.Write(spki.PublicKey.RightAlign())
	return string(nameHash.Sum(nil)) == string(req.IssuerNameHash) && string(keyHash.Sum(nil)) == string(req.IssuerKeyHash)
}

// Thumbprint is the base64url SHA-256 of a certificate's DER: its kid and
// x5t#S256.
func Thumbprint(der []byte) string {
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
