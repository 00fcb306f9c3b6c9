package pki_test

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
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"

	"github.com/trustframe/trustframe/pki"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

var (
	caOnce sync.Once
	theCA  *pki.CA
	caErr  error
)

// testCA is one ES384 CA for the package's tests (made once).
func testCA(t *testing.T) *pki.CA {
	t.Helper()
	caOnce.Do(func() {
		certDER, keyDER, err := pki.NewCA(pkix.Name{CommonName: "Test Issuing CA", Organization: []string{"Test"}}, pki.AlgES384, now, 10*365*24*time.Hour)
		if err != nil {
			caErr = err
			return
		}
		theCA, caErr = pki.Load(certDER, keyDER)
	})
	if caErr != nil {
		t.Fatal(caErr)
	}
	return theCA
}

var urls = pki.URLsUnder("https://directory.example.org/")

func ecKey(t *testing.T, c elliptic.Curve) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var (
	rsaOnce sync.Once
	rsaKey  *rsa.PrivateKey
)

func rsa2048(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	rsaOnce.Do(func() { rsaKey, _ = rsa.GenerateKey(rand.Reader, 2048) })
	return rsaKey
}

func issue(t *testing.T, ca *pki.CA, key crypto.PublicKey, use string) *x509.Certificate {
	t.Helper()
	serial, err := pki.Serial()
	if err != nil {
		t.Fatal(err)
	}
	subject := pki.Subject{Country: "GB", Organization: "Example Ltd", OrganizationIdentifier: "12345678", UID: "app-1", CommonName: "Example App"}
	der, err := ca.Issue(pki.Leaf{Key: key, Subject: subject.Name(), Use: use, Serial: serial, NotBefore: now, NotAfter: now.Add(397 * 24 * time.Hour)}, urls)
	if err != nil {
		t.Fatalf("issue %s: %v", use, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func TestNewCAMakesASelfSignedCA(t *testing.T) {
	for _, alg := range []string{pki.AlgES384, pki.AlgRS3072} {
		t.Run(alg, func(t *testing.T) {
			certDER, keyDER, err := pki.NewCA(pkix.Name{CommonName: "Issuing CA"}, alg, now, 10*365*24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			ca, err := pki.Load(certDER, keyDER)
			if err != nil {
				t.Fatal(err)
			}
			c := ca.Cert
			if !c.IsCA || !c.BasicConstraintsValid || c.MaxPathLen != 0 || !c.MaxPathLenZero {
				t.Errorf("basic constraints: CA %v, path length %d (zero %v)", c.IsCA, c.MaxPathLen, c.MaxPathLenZero)
			}
			if c.KeyUsage&x509.KeyUsageCertSign == 0 || c.KeyUsage&x509.KeyUsageCRLSign == 0 {
				t.Errorf("key usage %b lacks certSign or cRLSign", c.KeyUsage)
			}
			if err := c.CheckSignatureFrom(c); err != nil {
				t.Errorf("not self-signed: %v", err)
			}
			if got := c.NotAfter.Sub(now); got < 3649*24*time.Hour {
				t.Errorf("valid for %v", got)
			}
			want := map[string]x509.PublicKeyAlgorithm{pki.AlgES384: x509.ECDSA, pki.AlgRS3072: x509.RSA}[alg]
			if c.PublicKeyAlgorithm != want {
				t.Errorf("key %v, want %v", c.PublicKeyAlgorithm, want)
			}
			switch k := c.PublicKey.(type) {
			case *ecdsa.PublicKey:
				if k.Curve != elliptic.P384() {
					t.Errorf("curve %s", k.Curve.Params().Name)
				}
			case *rsa.PublicKey:
				if k.N.BitLen() != 3072 {
					t.Errorf("RSA %d bits", k.N.BitLen())
				}
			}
		})
	}
}

func TestNewCARefusesAnUnknownAlgorithm(t *testing.T) {
	if _, _, err := pki.NewCA(pkix.Name{CommonName: "x"}, "ES256", now, time.Hour); err == nil || !strings.Contains(err.Error(), "ES256") {
		t.Fatalf("got %v", err)
	}
}

func TestLoadRefusesAKeyThatIsNotTheCertificates(t *testing.T) {
	certDER, _, err := pki.NewCA(pkix.Name{CommonName: "A"}, pki.AlgES384, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey, err := pki.NewCA(pkix.Name{CommonName: "B"}, pki.AlgES384, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pki.Load(certDER, otherKey); err == nil || !strings.Contains(err.Error(), "not the certificate's") {
		t.Fatalf("got %v", err)
	}
	if _, err := pki.Load([]byte("junk"), otherKey); err == nil {
		t.Fatal("junk certificate loaded")
	}
}

func TestLoadRefusesACertificateThatIsNotACA(t *testing.T) {
	ca := testCA(t)
	leafKey := ecKey(t, elliptic.P384())
	leaf := issue(t, ca, leafKey.Public(), pki.UseSigning)
	keyDER, _ := x509.MarshalPKCS8PrivateKey(leafKey)
	if _, err := pki.Load(leaf.Raw, keyDER); err == nil || !strings.Contains(err.Error(), "not a CA's") {
		t.Fatalf("got %v", err)
	}
}

func TestSerialIs128BitsPositiveAndRandom(t *testing.T) {
	seen := map[string]bool{}
	topSet := 0
	for range 400 {
		s, err := pki.Serial()
		if err != nil {
			t.Fatal(err)
		}
		if s.Sign() <= 0 {
			t.Fatalf("serial %v not positive", s)
		}
		if s.BitLen() > 128 {
			t.Fatalf("serial %x longer than 128 bits", s)
		}
		if s.Bit(127) == 1 {
			topSet++
		}
		der, _ := asn1.Marshal(s)
		if len(der)-2 > 20 { // tag and length, then RFC 5280's 20 octets at most
			t.Fatalf("DER of the serial is %d octets", len(der)-2)
		}
		if seen[s.String()] {
			t.Fatal("a serial repeated")
		}
		seen[s.String()] = true
	}
	// The 128th bit is random too: set in about half the serials (a fixed
	// or cleared top bit would leave 127 random bits).
	if topSet < 120 || topSet > 280 {
		t.Fatalf("the top bit was set in %d of 400 serials", topSet)
	}
}

func TestURLsUnderTheBaseURL(t *testing.T) {
	u := pki.URLsUnder("https://d.example/dir/")
	if u.CRL != "https://d.example/dir/pki/crl" || u.OCSP != "https://d.example/dir/pki/ocsp" || u.CAIssuers != "https://d.example/dir/pki/ca.crt" {
		t.Fatalf("%+v", u)
	}
}

// TestIssuedCertificateUses checks each use's key usages and extended key
// usages, and that every certificate carries the CA's URLs and chains to it.
func TestIssuedCertificateUses(t *testing.T) {
	ca := testCA(t)
	type want struct {
		ku  x509.KeyUsage
		eku []x509.ExtKeyUsage
	}
	cases := []struct {
		use  string
		key  crypto.PublicKey
		want want
	}{
		{pki.UseTransport, ecKey(t, elliptic.P256()).Public(), want{x509.KeyUsageDigitalSignature, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}}},
		{pki.UseTransport, rsa2048(t).Public(), want{x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}}},
		{pki.UseSigning, ecKey(t, elliptic.P384()).Public(), want{x509.KeyUsageDigitalSignature, nil}},
		{pki.UseEncryption, rsa2048(t).Public(), want{x509.KeyUsageKeyEncipherment, nil}},
		{pki.UseSeal, ecKey(t, elliptic.P256()).Public(), want{x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment, nil}},
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	for _, c := range cases {
		t.Run(c.use, func(t *testing.T) {
			cert := issue(t, ca, c.key, c.use)
			if cert.KeyUsage != c.want.ku {
				t.Errorf("key usage %b, want %b", cert.KeyUsage, c.want.ku)
			}
			if !slices.Equal(cert.ExtKeyUsage, c.want.eku) {
				t.Errorf("extended key usage %v, want %v", cert.ExtKeyUsage, c.want.eku)
			}
			if cert.IsCA {
				t.Error("a leaf is a CA")
			}
			if !slices.Equal(cert.CRLDistributionPoints, []string{"https://directory.example.org/pki/crl"}) {
				t.Errorf("CRL distribution points %v", cert.CRLDistributionPoints)
			}
			if !slices.Equal(cert.OCSPServer, []string{"https://directory.example.org/pki/ocsp"}) {
				t.Errorf("AIA OCSP %v", cert.OCSPServer)
			}
			if !slices.Equal(cert.IssuingCertificateURL, []string{"https://directory.example.org/pki/ca.crt"}) {
				t.Errorf("AIA CA issuers %v", cert.IssuingCertificateURL)
			}
			if cert.Issuer.String() != ca.Cert.Subject.String() {
				t.Errorf("issuer %s", cert.Issuer)
			}
			usage := []x509.ExtKeyUsage{x509.ExtKeyUsageAny}
			if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now.Add(time.Hour), KeyUsages: usage}); err != nil {
				t.Errorf("does not chain to the CA: %v", err)
			}
			if len(cert.AuthorityKeyId) == 0 || !slices.Equal(cert.AuthorityKeyId, ca.Cert.SubjectKeyId) {
				t.Errorf("authority key id %x, CA's subject key id %x", cert.AuthorityKeyId, ca.Cert.SubjectKeyId)
			}
		})
	}
}

func TestIssueRefusesAnECEncryptionKeyAndUnknownUses(t *testing.T) {
	ca := testCA(t)
	serial, _ := pki.Serial()
	leaf := pki.Leaf{Key: ecKey(t, elliptic.P256()).Public(), Subject: pkix.Name{CommonName: "x"}, Use: pki.UseEncryption, Serial: serial, NotBefore: now, NotAfter: now.Add(time.Hour)}
	if _, err := ca.Issue(leaf, urls); err == nil || !strings.Contains(err.Error(), "RSA") {
		t.Errorf("EC encryption: %v", err)
	}
	leaf.Use = "tls"
	if _, err := ca.Issue(leaf, urls); err == nil || !strings.Contains(err.Error(), "transport") {
		t.Errorf("unknown use: %v", err)
	}
}

func TestIssuedSubjectIsTheDirectorys(t *testing.T) {
	ca := testCA(t)
	cert := issue(t, ca, ecKey(t, elliptic.P256()).Public(), pki.UseSigning)
	got := map[string]string{}
	for _, atv := range cert.Subject.Names {
		got[atv.Type.String()] = atv.Value.(string)
	}
	want := map[string]string{"2.5.4.6": "GB", "2.5.4.10": "Example Ltd", "2.5.4.97": "12345678", "0.9.2342.19200300.100.1.1": "app-1", "2.5.4.3": "Example App"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestCRL(t *testing.T) {
	ca := testCA(t)
	at := now.Add(-time.Hour).Truncate(time.Second)
	revoked := []pki.Revoked{
		{Serial: big.NewInt(1001), At: at, Reason: pki.ReasonKeyCompromise},
		{Serial: big.NewInt(1002), At: at, Reason: pki.ReasonCessationOfOperation},
		{Serial: big.NewInt(1003), At: at, Reason: pki.ReasonUnspecified},
	}
	der, err := ca.CRL(7, revoked, now)
	if err != nil {
		t.Fatal(err)
	}
	crl, err := x509.ParseRevocationList(der)
	if err != nil {
		t.Fatal(err)
	}
	if err := crl.CheckSignatureFrom(ca.Cert); err != nil {
		t.Fatalf("not signed by the CA: %v", err)
	}
	if crl.Number.Int64() != 7 {
		t.Errorf("number %v", crl.Number)
	}
	if !crl.ThisUpdate.Equal(now) || !crl.NextUpdate.Equal(now.Add(24*time.Hour)) {
		t.Errorf("this update %v, next %v", crl.ThisUpdate, crl.NextUpdate)
	}
	if crl.Issuer.String() != ca.Cert.Subject.String() || !slices.Equal(crl.AuthorityKeyId, ca.Cert.SubjectKeyId) {
		t.Errorf("issuer %s, authority key id %x", crl.Issuer, crl.AuthorityKeyId)
	}
	if len(crl.RevokedCertificateEntries) != 3 {
		t.Fatalf("%d entries", len(crl.RevokedCertificateEntries))
	}
	for i, e := range crl.RevokedCertificateEntries {
		if e.SerialNumber.Cmp(revoked[i].Serial) != 0 || !e.RevocationTime.Equal(at) || e.ReasonCode != revoked[i].Reason {
			t.Errorf("entry %d: %v %v reason %d", i, e.SerialNumber, e.RevocationTime, e.ReasonCode)
		}
	}
	// unspecified (0) is left out, as RFC 5280 §5.3.1 asks.
	if len(crl.RevokedCertificateEntries[2].Extensions) != 0 {
		t.Errorf("unspecified carries a reason code extension")
	}
	empty, err := ca.CRL(8, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if crl, err := x509.ParseRevocationList(empty); err != nil || len(crl.RevokedCertificateEntries) != 0 {
		t.Fatalf("empty CRL: %v", err)
	}
}

func TestReasonCodes(t *testing.T) {
	for reason, code := range map[string]int{"unspecified": 0, "keycompromise": 1, "KeyCompromise": 1, "superseded": 4,
		"cessationofoperation": 5, "cessationOfOperation": 5, "privilegewithdrawn": 9, "": 0, "other": 0} {
		if got := pki.ReasonCode(reason); got != code {
			t.Errorf("%q: %d, want %d", reason, got, code)
		}
	}
}

func ocspRequest(t *testing.T, cert, issuer *x509.Certificate, h crypto.Hash) *ocsp.Request {
	t.Helper()
	der, err := ocsp.CreateRequest(cert, issuer, &ocsp.RequestOptions{Hash: h})
	if err != nil {
		t.Fatal(err)
	}
	req, err := ocsp.ParseRequest(der)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestOCSPAnswers(t *testing.T) {
	ca := testCA(t)
	cert := issue(t, ca, ecKey(t, elliptic.P256()).Public(), pki.UseTransport)
	revokedAt := now.Add(-2 * time.Hour).Truncate(time.Second)
	for _, h := range []crypto.Hash{crypto.SHA1, crypto.SHA256} {
		req := ocspRequest(t, cert, ca.Cert, h)
		if !ca.ForThisCA(req) {
			t.Fatalf("%v: the request is not for this CA", h)
		}
		for _, st := range []pki.CertStatus{{Status: pki.Good}, {Status: pki.IsRevoked, RevokedAt: revokedAt, Reason: pki.ReasonKeyCompromise}, {Status: pki.Unknown}} {
			der, err := ca.OCSPAnswer(req, st, now)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := ocsp.ParseResponseForCert(der, cert, ca.Cert)
			if err != nil {
				t.Fatalf("%v status %d: %v", h, st.Status, err)
			}
			if resp.Status != st.Status || resp.SerialNumber.Cmp(cert.SerialNumber) != 0 {
				t.Errorf("%v: status %d serial %v", h, resp.Status, resp.SerialNumber)
			}
			if resp.IssuerHash != h {
				t.Errorf("answered with hash %v to a request with %v", resp.IssuerHash, h)
			}
			if !resp.ThisUpdate.Equal(now) || !resp.NextUpdate.Equal(now.Add(time.Hour)) {
				t.Errorf("this update %v next %v", resp.ThisUpdate, resp.NextUpdate)
			}
			if st.Status == pki.IsRevoked && (!resp.RevokedAt.Equal(revokedAt) || resp.RevocationReason != ocsp.KeyCompromise) {
				t.Errorf("revoked at %v reason %d", resp.RevokedAt, resp.RevocationReason)
			}
			if err := resp.CheckSignatureFrom(ca.Cert); err != nil {
				t.Errorf("not signed by the CA: %v", err)
			}
		}
	}
}

func TestForThisCARefusesAnotherIssuer(t *testing.T) {
	ca := testCA(t)
	otherDER, otherKey, err := pki.NewCA(pkix.Name{CommonName: "Other CA"}, pki.AlgES384, now, time.Hour*24)
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.Load(otherDER, otherKey)
	if err != nil {
		t.Fatal(err)
	}
	cert := issue(t, other, ecKey(t, elliptic.P256()).Public(), pki.UseSigning)
	if ca.ForThisCA(ocspRequest(t, cert, other.Cert, crypto.SHA1)) {
		t.Fatal("a request for another CA is taken as this CA's")
	}
	// Same name, another key: still not this CA.
	req := ocspRequest(t, cert, other.Cert, crypto.SHA1)
	req.IssuerNameHash = ocspRequest(t, issue(t, ca, ecKey(t, elliptic.P256()).Public(), pki.UseSigning), ca.Cert, crypto.SHA1).IssuerNameHash
	if ca.ForThisCA(req) {
		t.Fatal("this CA's name with another key is taken as this CA's")
	}
}

func TestThumbprint(t *testing.T) {
	der := []byte("certificate")
	sum := sha256.Sum256(der)
	if got := pki.Thumbprint(der); got != base64.RawURLEncoding.EncodeToString(sum[:]) || strings.ContainsAny(got, "=+/") {
		t.Fatalf("%s", got)
	}
}
