package store_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// withCA stores a new CA in db and gives the store its CRL signer, as a
// start with --pki does.
func withCA(t *testing.T, db *store.DB) *directory.PKI {
	t.Helper()
	certDER, keyDER, err := pki.NewCA(pkix.Name{CommonName: "Store Test CA"}, pki.AlgES384, time.Now(), 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.KeepCA(context.Background(), certDER, []byte("sealed"), pki.AlgES384)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := pki.Load(st.CertDER, keyDER)
	if err != nil {
		t.Fatal(err)
	}
	p := &directory.PKI{Store: db, CA: ca, Now: time.Now}
	db.SetCRLSigner(p.Signer())
	return p
}

// issued stores a certificate the CA issued for orgID (and appID), as the
// issuing endpoint writes it.
func issued(t *testing.T, db *store.DB, p *directory.PKI, orgID, appID, use string) store.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial, _ := pki.Serial()
	now := time.Now()
	der, err := p.CA.Issue(pki.Leaf{Key: key.Public(), Subject: pkix.Name{CommonName: "leaf"}, Use: use, Serial: serial, NotBefore: now, NotAfter: now.Add(time.Hour)}, pki.URLsUnder("https://d.example"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.AddCertificate(context.Background(), store.Audit{Actor: "admin@example.com"}, store.Certificate{Kid: pki.Thumbprint(der), OrganisationID: orgID,
		OrganisationCertificateType: use, SubjectDN: "CN=leaf", IssuerDN: "CN=Store Test CA", SerialNumber: directory.SerialText(serial),
		NotBefore: now, NotAfter: now.Add(time.Hour), PEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), PublicJwk: []byte(`{}`),
		SoftwareStatementID: appID, IssuedByCA: true})
	if err != nil {
		t.Fatal(err)
	}
	if !c.IssuedByCA || c.SoftwareStatementID != appID {
		t.Fatalf("stored %+v", c)
	}
	return c
}

func crlOf(t *testing.T, db *store.DB) *x509.RevocationList {
	t.Helper()
	st, err := db.CAState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.CRLDER == nil {
		t.Fatal("no CRL stored")
	}
	crl, err := x509.ParseRevocationList(st.CRLDER)
	if err != nil {
		t.Fatal(err)
	}
	if crl.Number.Int64() != st.CRLNumber {
		t.Fatalf("CRL number %v, stored %d", crl.Number, st.CRLNumber)
	}
	return crl
}

func listed(crl *x509.RevocationList, serial string) (x509.RevocationListEntry, bool) {
	want, _ := new(big.Int).SetString(serial, 16)
	for _, e := range crl.RevokedCertificateEntries {
		if e.SerialNumber.Cmp(want) == 0 {
			return e, true
		}
	}
	return x509.RevocationListEntry{}, false
}

func pkiOrg(t *testing.T, db *store.DB, name string) (store.Organisation, store.SoftwareStatement) {
	t.Helper()
	ctx, a := context.Background(), store.Audit{Actor: "admin@example.com"}
	o, err := db.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: name, RegistrationNumber: name, CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateSoftwareStatement(ctx, a, store.SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: name + " app", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return o, app
}

func TestKeepCAKeepsTheFirst(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if _, err := db.CAState(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("before: %v", err)
	}
	first, err := db.KeepCA(ctx, []byte("cert-1"), []byte("key-1"), "ES384")
	if err != nil {
		t.Fatal(err)
	}
	second, err := db.KeepCA(ctx, []byte("cert-2"), []byte("key-2"), "RS3072")
	if err != nil {
		t.Fatal(err)
	}
	if string(second.CertDER) != "cert-1" || string(second.SealedKey) != "key-1" || second.Alg != "ES384" || first.CRLDER != nil || second.CRLNumber != 0 {
		t.Fatalf("kept %+v", second)
	}
}

func TestRegenerateCRLNumbersOneSequenceAndKeepsAFreshOne(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if _, err := db.RegenerateCRL(ctx, time.Time{}); err == nil {
		t.Fatal("a CRL without a signer")
	}
	withCA(t, db)
	st, err := db.RegenerateCRL(ctx, time.Now().Add(-time.Hour))
	if err != nil || st.CRLNumber != 1 || st.CRLDER == nil {
		t.Fatalf("first: %d %v", st.CRLNumber, err)
	}
	// Fresh: kept.
	if st, err = db.RegenerateCRL(ctx, time.Now().Add(-time.Hour)); err != nil || st.CRLNumber != 1 {
		t.Fatalf("fresh one: %d %v", st.CRLNumber, err)
	}
	// Stale, or asked for: the next number.
	if st, err = db.RegenerateCRL(ctx, time.Now().Add(time.Second)); err != nil || st.CRLNumber != 2 {
		t.Fatalf("stale one: %d %v", st.CRLNumber, err)
	}
	if st, err = db.RegenerateCRL(ctx, time.Time{}); err != nil || st.CRLNumber != 3 {
		t.Fatalf("forced: %d %v", st.CRLNumber, err)
	}
	if crl := crlOf(t, db); len(crl.RevokedCertificateEntries) != 0 {
		t.Fatalf("entries %v", crl.RevokedCertificateEntries)
	}
}

func TestRevokingAnIssuedCertificateWritesTheCRL(t *testing.T) {
	db := open(t)
	ctx, a := context.Background(), store.Audit{Actor: "admin@example.com"}
	p := withCA(t, db)
	o, app := pkiOrg(t, db, "Revoke Bank")
	if _, err := db.RegenerateCRL(ctx, time.Time{}); err != nil {
		t.Fatal(err)
	}
	c := issued(t, db, p, o.OrganisationID, app.SoftwareStatementID, pki.UseTransport)
	if err := db.RevokeCertificate(ctx, a, o.OrganisationID, c.Kid, "keycompromise", nil, nil); err != nil {
		t.Fatal(err)
	}
	crl := crlOf(t, db)
	if crl.Number.Int64() != 2 {
		t.Fatalf("number %v, want 2", crl.Number)
	}
	e, ok := listed(crl, c.SerialNumber)
	if !ok || e.ReasonCode != pki.ReasonKeyCompromise || time.Since(e.RevocationTime) > time.Minute {
		t.Fatalf("entry %+v listed %v", e, ok)
	}
	if err := crl.CheckSignatureFrom(p.CA.Cert); err != nil {
		t.Fatal(err)
	}
	st, err := db.CACertStatus(ctx, c.SerialNumber)
	if err != nil || st.Status != "Revoked" || st.Reason != "keycompromise" || st.RevokedOn.IsZero() {
		t.Fatalf("status %+v %v", st, err)
	}
	if got, _ := db.CACounts(ctx); got != (directory.CACounts{Issued: 1, Revoked: 1}) {
		t.Fatalf("counts %+v", got)
	}
}

func TestRevokingAnUploadedCertificateLeavesTheCRL(t *testing.T) {
	db := open(t)
	ctx, a := context.Background(), store.Audit{Actor: "admin@example.com"}
	p := withCA(t, db)
	o, _ := pkiOrg(t, db, "Upload Bank")
	if _, err := db.RegenerateCRL(ctx, time.Time{}); err != nil {
		t.Fatal(err)
	}
	c := issued(t, db, p, o.OrganisationID, "", pki.UseSeal)
	// The same certificate as an upload: another kid, not the CA's.
	c.Kid, c.IssuedByCA, c.SerialNumber = c.Kid+"x", false, "0A"
	up, err := db.AddCertificate(ctx, a, c)
	if err != nil || up.IssuedByCA {
		t.Fatalf("%+v %v", up, err)
	}
	if err := db.RevokeCertificate(ctx, a, o.OrganisationID, up.Kid, "superseded", nil, nil); err != nil {
		t.Fatal(err)
	}
	if crl := crlOf(t, db); crl.Number.Int64() != 1 || len(crl.RevokedCertificateEntries) != 0 {
		t.Fatalf("number %v, %d entries", crl.Number, len(crl.RevokedCertificateEntries))
	}
	if _, err := db.CACertStatus(ctx, "0A"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an upload's serial is the CA's: %v", err)
	}
}

func TestCACertStatusOfAnUnknownSerial(t *testing.T) {
	db := open(t)
	if _, err := db.CACertStatus(context.Background(), "0123456789ABCDEF"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%v", err)
	}
}

func TestWithdrawingAnApplicationRevokesWhatTheCAIssuedForIt(t *testing.T) {
	db := open(t)
	ctx, a := context.Background(), store.Audit{Actor: "admin@example.com"}
	p := withCA(t, db)
	o, app := pkiOrg(t, db, "App Bank")
	other, err := db.CreateSoftwareStatement(ctx, a, store.SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: "Other", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.RegenerateCRL(ctx, time.Time{}); err != nil {
		t.Fatal(err)
	}
	mine := []store.Certificate{issued(t, db, p, o.OrganisationID, app.SoftwareStatementID, pki.UseTransport), issued(t, db, p, o.OrganisationID, app.SoftwareStatementID, pki.UseSigning)}
	theirs := issued(t, db, p, o.OrganisationID, other.SoftwareStatementID, pki.UseSigning)
	seal := issued(t, db, p, o.OrganisationID, "", pki.UseSeal)

	// Suspended: kept.
	app.Status = "Suspended"
	if _, err := db.UpdateSoftwareStatement(ctx, a, app, nil, nil); err != nil {
		t.Fatal(err)
	}
	if crl := crlOf(t, db); crl.Number.Int64() != 1 {
		t.Fatalf("suspending made CRL %v", crl.Number)
	}
	app.Status = "Withdrawn"
	if _, err := db.UpdateSoftwareStatement(ctx, a, app, nil, nil); err != nil {
		t.Fatal(err)
	}
	crl := crlOf(t, db)
	if crl.Number.Int64() != 2 || len(crl.RevokedCertificateEntries) != 2 {
		t.Fatalf("number %v, %d entries", crl.Number, len(crl.RevokedCertificateEntries))
	}
	for _, c := range mine {
		if e, ok := listed(crl, c.SerialNumber); !ok || e.ReasonCode != pki.ReasonCessationOfOperation {
			t.Errorf("%s: %+v %v", c.Kid, e, ok)
		}
		if got, _ := db.GetCertificate(ctx, o.OrganisationID, c.Kid); got.Status != "Revoked" || got.RevokeReason != "cessationofoperation" {
			t.Errorf("%s: %s %s", c.Kid, got.Status, got.RevokeReason)
		}
	}
	for _, c := range []store.Certificate{theirs, seal} {
		if got, _ := db.GetCertificate(ctx, o.OrganisationID, c.Kid); got.Status != "Active" {
			t.Errorf("%s of another application or the organisation: %s", c.Kid, got.Status)
		}
	}
	// The audit log says each.
	recs, _, err := db.ListAudit(ctx, store.AuditFilter{OrganisationID: o.OrganisationID, Action: "revoke"})
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d revoke records %v", len(recs), err)
	}
}

func TestWithdrawingAnOrganisationRevokesEverythingTheCAIssuedForIt(t *testing.T) {
	db := open(t)
	ctx, a := context.Background(), store.Audit{Actor: "admin@example.com"}
	p := withCA(t, db)
	o, app := pkiOrg(t, db, "Org Bank")
	bystander, bapp := pkiOrg(t, db, "Other Bank")
	if _, err := db.RegenerateCRL(ctx, time.Time{}); err != nil {
		t.Fatal(err)
	}
	c1 := issued(t, db, p, o.OrganisationID, app.SoftwareStatementID, pki.UseTransport)
	c2 := issued(t, db, p, o.OrganisationID, "", pki.UseSeal)
	done := issued(t, db, p, o.OrganisationID, app.SoftwareStatementID, pki.UseSigning)
	if err := db.RevokeCertificate(ctx, a, o.OrganisationID, done.Kid, "superseded", nil, nil); err != nil {
		t.Fatal(err)
	}
	kept := issued(t, db, p, bystander.OrganisationID, bapp.SoftwareStatementID, pki.UseTransport)
	o.Status = "Withdrawn"
	if _, err := db.UpdateOrganisation(ctx, a, o, nil, nil); err != nil {
		t.Fatal(err)
	}
	crl := crlOf(t, db)
	if crl.Number.Int64() != 3 || len(crl.RevokedCertificateEntries) != 3 {
		t.Fatalf("number %v, %d entries", crl.Number, len(crl.RevokedCertificateEntries))
	}
	for _, c := range []store.Certificate{c1, c2} {
		if e, ok := listed(crl, c.SerialNumber); !ok || e.ReasonCode != pki.ReasonCessationOfOperation {
			t.Errorf("%s: %+v %v", c.Kid, e, ok)
		}
	}
	// Revoked before: its reason stays.
	if e, ok := listed(crl, done.SerialNumber); !ok || e.ReasonCode != pki.ReasonSuperseded {
		t.Errorf("revoked before: %+v %v", e, ok)
	}
	if got, _ := db.GetCertificate(ctx, bystander.OrganisationID, kept.Kid); got.Status != "Active" {
		t.Errorf("another organisation's: %s", got.Status)
	}
}

func TestRevocationsWithoutTheCAMakeANewCRLAtTheNextStart(t *testing.T) {
	db := open(t)
	ctx, a := context.Background(), store.Audit{Actor: "admin@example.com"}
	p := withCA(t, db)
	o, app := pkiOrg(t, db, "Off Bank")
	if _, err := db.RegenerateCRL(ctx, time.Time{}); err != nil {
		t.Fatal(err)
	}
	c := issued(t, db, p, o.OrganisationID, app.SoftwareStatementID, pki.UseTransport)
	db.SetCRLSigner(nil) // a start without --pki
	if err := db.RevokeCertificate(ctx, a, o.OrganisationID, c.Kid, "keycompromise", nil, nil); err != nil {
		t.Fatal(err)
	}
	if crl := crlOf(t, db); crl.Number.Int64() != 1 {
		t.Fatalf("CRL %v without a signer", crl.Number)
	}
	db.SetCRLSigner(p.Signer()) // the next start with --pki
	st, err := db.RegenerateCRL(ctx, time.Now().Add(-time.Hour))
	if err != nil || st.CRLNumber != 2 {
		t.Fatalf("%d %v", st.CRLNumber, err)
	}
	if _, ok := listed(crlOf(t, db), c.SerialNumber); !ok {
		t.Fatal("the revocation made while the CA was off is not listed")
	}
}

func TestTheCRLLeavesOutExpiredCertificates(t *testing.T) {
	c := &clock{}
	c.add(time.Duration(time.Now().UnixNano()))
	db, err := store.Open(context.Background(), storetest.Path(t), c.now)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, a := context.Background(), store.Audit{Actor: "admin@example.com"}
	p := withCA(t, db)
	o, _ := pkiOrg(t, db, "Expiry Bank")
	cert := issued(t, db, p, o.OrganisationID, "", pki.UseSeal) // valid for an hour
	if err := db.RevokeCertificate(ctx, a, o.OrganisationID, cert.Kid, "keycompromise", nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := listed(crlOf(t, db), cert.SerialNumber); !ok {
		t.Fatal("not listed while valid")
	}
	c.add(2 * time.Hour)
	if _, err := db.RegenerateCRL(ctx, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := listed(crlOf(t, db), cert.SerialNumber); ok {
		t.Fatal("still listed after it expired")
	}
	if st, err := db.CACertStatus(ctx, cert.SerialNumber); err != nil || st.Status != "Revoked" {
		t.Fatalf("OCSP's status: %+v %v", st, err)
	}
}
