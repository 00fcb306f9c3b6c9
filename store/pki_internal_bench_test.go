package store

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509/pkix"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/store/storetest"
)

// BenchmarkCRL10000Revoked: the CRL made afresh with 10,000 revoked
// certificates the CA issued (read, sign, write: what every revocation
// costs), and a revocation with its CRL (docs/benchmarks.md).
func BenchmarkCRL10000Revoked(b *testing.B) {
	ctx := context.Background()
	d, err := Open(ctx, storetest.Path(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	certDER, keyDER, err := pki.NewCA(pkix.Name{CommonName: "Bench CA"}, pki.AlgES384, time.Now(), 24*time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := d.KeepCA(ctx, certDER, []byte("sealed"), pki.AlgES384); err != nil {
		b.Fatal(err)
	}
	ca, err := pki.Load(certDER, keyDER)
	if err != nil {
		b.Fatal(err)
	}
	p := &directory.PKI{Store: d, CA: ca, Now: time.Now}
	d.SetCRLSigner(p.Signer())
	a := Audit{Actor: "bench"}
	o, err := d.CreateOrganisation(ctx, a, Organisation{OrganisationName: "Bench", RegistrationNumber: "B", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	const n = 10000
	now := time.Now().UTC()
	err = d.tx(ctx, func(tx *sql.Tx) error {
		for i := range n {
			serial, _ := pki.Serial()
			if _, err := tx.ExecContext(ctx, `INSERT INTO organisation_certificates(`+certCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,'Revoked','keycompromise',?,?,?,?,1)`,
				fmt.Sprintf("kid-%d", i), o.OrganisationID, "transport", "CN=x", "CN=Bench CA", directory.SerialText(serial),
				now.Format(fixedStamp), now.Add(time.Hour).Format(fixedStamp), "", "{}", now.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano), "bench", "app"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	var size int
	b.Run("regenerate", func(b *testing.B) {
		for range b.N {
			st, err := d.RegenerateCRL(ctx, time.Time{})
			if err != nil {
				b.Fatal(err)
			}
			size = len(st.CRLDER)
		}
		b.ReportMetric(float64(size), "CRL-bytes")
	})
	b.Run("revoke_one_more", func(b *testing.B) {
		for i := range b.N {
			b.StopTimer()
			key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			serial, _ := pki.Serial()
			der, err := ca.Issue(pki.Leaf{Key: key.Public(), Subject: pkix.Name{CommonName: "leaf"}, Use: pki.UseSigning, Serial: serial, NotBefore: now, NotAfter: now.Add(time.Hour)}, pki.URLsUnder("https://d.example"))
			if err != nil {
				b.Fatal(err)
			}
			c, err := d.AddCertificate(ctx, a, Certificate{Kid: fmt.Sprintf("more-%d-%s", i, pki.Thumbprint(der)), OrganisationID: o.OrganisationID, OrganisationCertificateType: "signing",
				SerialNumber: directory.SerialText(serial), NotBefore: now, NotAfter: now.Add(time.Hour), PublicJwk: []byte("{}"), IssuedByCA: true})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if err := d.RevokeCertificate(ctx, a, o.OrganisationID, c.Kid, "superseded", nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
