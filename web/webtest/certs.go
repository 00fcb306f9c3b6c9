package webtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// Key makes a key for test certificates: "rsa2048", "rsa1024", "p256", "p384", "p521".
func Key(t testing.TB, kind string) crypto.Signer {
	t.Helper()
	var k crypto.Signer
	var err error
	switch kind {
	case "rsa2048":
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	case "rsa1024":
		k, err = rsa.GenerateKey(rand.Reader, 1024)
	case "p256":
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "p384":
		k, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "p521":
		k, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	default:
		t.Fatalf("unknown key kind %s", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Cert makes a self-signed PEM certificate for key, valid from nb to na.
func Cert(t testing.TB, key crypto.Signer, cn string, nb, na time.Time) string {
	t.Helper()
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn, Organization: []string{"Acme Bank"}, Country: []string{"GB"}},
		NotBefore: nb, NotAfter: na, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// ValidCert is a certificate valid for a year, with a new key of kind.
func ValidCert(t testing.TB, kind, cn string) string {
	return Cert(t, Key(t, kind), cn, time.Now().Add(-time.Hour), time.Now().Add(365*24*time.Hour))
}
