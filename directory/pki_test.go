package directory_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/pki"
)

// fakeCAStore answers CACertStatus from a map and fails on demand.
type fakeCAStore struct {
	directory.PKIStore
	status map[string]directory.CACertStatus
	err    error
	reads  int
}

func (f *fakeCAStore) CACertStatus(_ context.Context, serial string) (directory.CACertStatus, error) {
	f.reads++
	if f.err != nil {
		return directory.CACertStatus{}, f.err
	}
	st, ok := f.status[serial]
	if !ok {
		return st, directory.ErrNotFound
	}
	return st, nil
}

func TestPKIOCSPReadsTheStoreEveryTimeAndReusesASignature(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	certDER, keyDER, _ := pki.NewCA(pkix.Name{CommonName: "CA"}, pki.AlgES384, now, 24*time.Hour)
	ca, _ := pki.Load(certDER, keyDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial, _ := pki.Serial()
	der, _ := ca.Issue(pki.Leaf{Key: key.Public(), Subject: pkix.Name{CommonName: "x"}, Use: pki.UseSigning, Serial: serial, NotBefore: now, NotAfter: now.Add(time.Hour)}, pki.URLsUnder("https://d"))
	cert, _ := x509.ParseCertificate(der)
	req, _ := ocsp.CreateRequest(cert, ca.Cert, nil)

	st := &fakeCAStore{status: map[string]directory.CACertStatus{directory.SerialText(serial): {Status: "Active"}}}
	clock := now
	p := &directory.PKI{Store: st, CA: ca, Now: func() time.Time { return clock }}
	answer := func() (*ocsp.Response, []byte) {
		t.Helper()
		b, err := p.OCSP(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ocsp.ParseResponseForCert(b, cert, ca.Cert)
		if err != nil {
			t.Fatal(err)
		}
		return r, b
	}
	r1, b1 := answer()
	_, b2 := answer()
	if r1.Status != ocsp.Good || !bytes.Equal(b1, b2) || st.reads != 2 {
		t.Fatalf("status %d, same answer %v, %d store reads", r1.Status, bytes.Equal(b1, b2), st.reads)
	}
	// Revoked in the store: the next answer says so, whatever was signed before.
	st.status[directory.SerialText(serial)] = directory.CACertStatus{Status: "Revoked", Reason: "keycompromise", RevokedOn: now}
	if r, _ := answer(); r.Status != ocsp.Revoked || r.RevocationReason != ocsp.KeyCompromise || !r.RevokedAt.Equal(now) {
		t.Fatalf("after the revocation: %d %d %v", r.Status, r.RevocationReason, r.RevokedAt)
	}
	// A minute on: signed afresh.
	clock = now.Add(time.Minute)
	if r, _ := answer(); !r.ThisUpdate.Equal(clock) {
		t.Fatalf("this update %v, want %v", r.ThisUpdate, clock)
	}
	// The store failing is the server's error, not an answer.
	st.err = errors.New("down")
	if _, err := p.OCSP(context.Background(), req); err == nil {
		t.Fatal("no error with the store down")
	}
	// Garbage is malformedRequest.
	st.err = nil
	if b, err := p.OCSP(context.Background(), []byte("x")); err != nil || !bytes.Equal(b, ocsp.MalformedRequestErrorResponse) {
		t.Fatalf("%x %v", b, err)
	}
}
