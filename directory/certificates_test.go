package directory_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// newKey is a new P-256 key.
func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// newCertDER is a self-signed certificate of key, valid from an hour ago
// for a year.
func newCertDER(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "seal.acme.example"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func pemOf(typ string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func openCertificates(t *testing.T) (*directory.Certificates, *store.DB, string) {
	t.Helper()
	db := mustOpen(t)
	return &directory.Certificates{Store: db, Now: time.Now}, db, mustOrg(t, db, "Certificate Bank")
}

// refusedUploads are the summaries of the organisation's upload_refused
// audit records.
func refusedUploads(t *testing.T, db *store.DB, orgID string) []string {
	t.Helper()
	recs, _, err := db.ListAudit(context.Background(), store.AuditFilter{SubjectType: "OrganisationCertificate", OrganisationID: orgID, Action: "upload_refused", Size: 50})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, r.Summary)
	}
	return out
}

// An upload is refused on its type when the type is not an Active one,
// naming the Active types, and on PEM when the certificate is not one the
// rules accept; each refusal is written to the audit log.
func TestCertificateUploadRefusals(t *testing.T) {
	s, db, orgID := openCertificates(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	good := pemOf("CERTIFICATE", newCertDER(t, newKey(t)))

	_, err := s.Upload(ctx, a, orgID, "QWAC", good)
	var e *directory.Error
	if !errors.As(err, &e) || !strings.Contains(e.Fields["OrganisationCertificateType"], "Use one of: brseal") {
		t.Fatalf("unknown type: %v", err)
	}
	_, err = s.Upload(ctx, a, orgID, "qseal", "not a certificate")
	if !errors.As(err, &e) || e.Fields["PEM"] == "" || errors.Is(err, directory.ErrHoldsPrivateKey) {
		t.Fatalf("not PEM: %v", err)
	}
	der, _ := x509.MarshalECPrivateKey(newKey(t))
	_, err = s.Upload(ctx, a, orgID, "qseal", pemOf("EC PRIVATE KEY", der))
	if !errors.As(err, &e) || e.Fields["PEM"] == "" || !errors.Is(err, directory.ErrHoldsPrivateKey) {
		t.Fatalf("a private key: %v", err)
	}
	if got := refusedUploads(t, db, orgID); len(got) != 3 {
		t.Fatalf("want 3 refusals audited, got %q", got)
	}
}

// A certificate is uploaded once: the same one again is a conflict, said
// in the audit record as the API says it.
func TestCertificateUploadTwiceIsAConflict(t *testing.T) {
	s, db, orgID := openCertificates(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	good := pemOf("CERTIFICATE", newCertDER(t, newKey(t)))
	c, err := s.Upload(ctx, a, orgID, "qseal", good)
	if err != nil || c.Kid == "" || c.Status != "Active" || c.OrganisationCertificateType != "qseal" {
		t.Fatalf("upload: %+v, %v", c, err)
	}
	_, err = s.Upload(ctx, a, orgID, "qseal", good)
	var ce *directory.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("want a conflict, got %v", err)
	}
	if got := refusedUploads(t, db, orgID); len(got) != 1 || !strings.HasPrefix(got[0], "This certificate (kid "+c.Kid+") was already uploaded") {
		t.Fatalf("audited: %q", got)
	}
}

// A revocation names one of the reasons, and happens once.
func TestCertificateRevoke(t *testing.T) {
	s, _, orgID := openCertificates(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	c, err := s.Upload(ctx, a, orgID, "qseal", pemOf("CERTIFICATE", newCertDER(t, newKey(t))))
	if err != nil {
		t.Fatal(err)
	}
	var e *directory.Error
	if err := s.Revoke(ctx, a, orgID, c.Kid, "lost", nil, nil); !errors.As(err, &e) || e.Fields["RevokeReason"] == "" {
		t.Fatalf("a reason that is not one: %v", err)
	}
	if err := s.Revoke(ctx, a, orgID, c.Kid, "superseded", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, orgID, c.Kid); got.Status != "Revoked" || got.RevokeReason != "superseded" {
		t.Fatalf("after revoking: %+v", got)
	}
	if err := s.Revoke(ctx, a, orgID, c.Kid, "superseded", nil, nil); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("revoked twice: %v", err)
	}
	// The certificate is looked for before the reason (docs/decisions.md,
	// "A write checks its fields before its precondition").
	if err := s.Revoke(ctx, a, orgID, "no-such-kid", "lost", nil, nil); !errors.As(err, &e) || e.Code != directory.CodeNotFound {
		t.Fatalf("an unknown kid: %v", err)
	}
}

// A DER file is taken as its PEM; bytes that are neither are refused on
// PEM.
func TestCertificateText(t *testing.T) {
	der := newCertDER(t, newKey(t))
	if got, err := directory.CertificateText(der); err != nil || got != pemOf("CERTIFICATE", der) {
		t.Fatalf("DER: %q, %v", got, err)
	}
	var e *directory.Error
	if _, err := directory.CertificateText([]byte{0xff, 0, 1}); !errors.As(err, &e) || e.Fields["PEM"] == "" {
		t.Fatalf("binary: %v", err)
	}
	if got, err := directory.CertificateText([]byte("-----BEGIN CERTIFICATE-----")); err != nil || got != "-----BEGIN CERTIFICATE-----" {
		t.Fatalf("PEM text: %q, %v", got, err)
	}
}

// The review step refuses text holding a private key before it is kept,
// and passes a certificate.
func TestCertificateReviewable(t *testing.T) {
	s := &directory.Certificates{Now: time.Now}
	der, _ := x509.MarshalECPrivateKey(newKey(t))
	if err := s.Reviewable(pemOf("EC PRIVATE KEY", der)); !errors.Is(err, directory.ErrHoldsPrivateKey) {
		t.Fatalf("a private key: %v", err)
	}
	if err := s.Reviewable(pemOf("CERTIFICATE", newCertDER(t, newKey(t)))); err != nil {
		t.Fatal(err)
	}
}
