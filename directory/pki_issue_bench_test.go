package directory_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// BenchmarkIssuance measures a certificate issued from a CSR through the
// use case (CSR checks, subject, signature, JWK, the store's write with
// its audit record on a SQLite file) against the CA's signature alone
// (pki.CA.Issue of the same leaf, which is crypto/x509's signature and its
// check of it) and one raw signature of the CA's key: docs/benchmarks.md
// holds the figures.
func BenchmarkIssuance(b *testing.B) {
	for _, alg := range []string{pki.AlgES384, pki.AlgRS3072} {
		certDER, keyDER, err := pki.NewCA(pkix.Name{CommonName: "Bench CA"}, alg, time.Now(), 24*time.Hour*3650)
		if err != nil {
			b.Fatal(err)
		}
		ca, err := pki.Load(certDER, keyDER)
		if err != nil {
			b.Fatal(err)
		}
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		csr, _ := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, key)
		urls := pki.URLsUnder("https://directory.example")
		b.Run(alg+"/raw_signature", func(b *testing.B) {
			digest := sha512.Sum384([]byte("a certificate's TBS"))
			for b.Loop() {
				if _, err := ca.Key.Sign(rand.Reader, digest[:], crypto.SHA384); err != nil {
					b.Fatal(err)
				}
			}
		})
		// What crypto/x509 does at least for every certificate it makes:
		// the signature, then its own check of it with the CA's public key
		// (x509.CreateCertificate verifies unconditionally).
		b.Run(alg+"/raw_signature_and_check", func(b *testing.B) {
			digest := sha512.Sum384([]byte("a certificate's TBS"))
			for b.Loop() {
				sig, err := ca.Key.Sign(rand.Reader, digest[:], crypto.SHA384)
				if err != nil {
					b.Fatal(err)
				}
				if !verifies(ca.Key.Public(), digest[:], sig) {
					b.Fatal("the signature does not verify")
				}
			}
		})
		b.Run(alg+"/CA_Issue", func(b *testing.B) {
			for b.Loop() {
				serial, _ := pki.Serial()
				if _, err := ca.Issue(pki.Leaf{Key: key.Public(), Subject: pkix.Name{CommonName: "x"}, Use: pki.UseSigning, Serial: serial,
					NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}, urls); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(alg+"/use_case", func(b *testing.B) {
			ctx, who := context.Background(), store.Audit{Actor: "admin@example.com"}
			db, err := store.Open(ctx, storetest.Path(b), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			o, err := db.CreateOrganisation(ctx, who, store.Organisation{OrganisationName: "Bank", LegalEntityName: "Bank plc", RegistrationNumber: "1", CountryOfRegistration: "GB", Status: "Active"}, nil)
			if err != nil {
				b.Fatal(err)
			}
			app, err := db.CreateSoftwareStatement(ctx, who, store.SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: "App", Status: "Active"}, nil)
			if err != nil {
				b.Fatal(err)
			}
			iss := &directory.Issuance{Store: db, CA: func(context.Context) (*pki.CA, error) { return ca, nil }, URLs: urls, Now: time.Now}
			for b.Loop() {
				if _, err := iss.ForApplication(ctx, who, o.OrganisationID, app.SoftwareStatementID, pki.UseSigning, csr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// verifies checks a signature over a SHA-384 digest as crypto/x509 checks
// its own: ECDSA ASN.1, or RSA PKCS #1 v1.5.
func verifies(pub crypto.PublicKey, digest, sig []byte) bool {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		return ecdsa.VerifyASN1(k, digest, sig)
	case *rsa.PublicKey:
		return rsa.VerifyPKCS1v15(k, crypto.SHA384, digest, sig) == nil
	}
	return false
}
