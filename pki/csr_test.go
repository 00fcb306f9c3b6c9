package pki_test

import (
	"crypto"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/pki"
)

func csrDER(t *testing.T, key crypto.Signer, subject pkix.Name) []byte {
	t.Helper()
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject}, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func csrPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// refused asserts that err is a CSRError whose message says want.
func refused(t *testing.T, err error, want string) {
	t.Helper()
	var ce *pki.CSRError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a CSRError saying %q", err, want)
	}
	if !strings.Contains(ce.Message, want) {
		t.Fatalf("message %q does not say %q", ce.Message, want)
	}
}

func TestParseCSRTakesPEMAndDER(t *testing.T) {
	der := csrDER(t, ecKey(t, elliptic.P256()), pkix.Name{CommonName: "x"})
	for name, b := range map[string][]byte{"DER": der, "PEM": csrPEM(der),
		"NEW CERTIFICATE REQUEST": pem.EncodeToMemory(&pem.Block{Type: "NEW CERTIFICATE REQUEST", Bytes: der})} {
		if _, err := pki.ParseCSR(b, pki.UseSigning); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := pki.ParseCSR(csrDER(t, rsa2048(t), pkix.Name{}), pki.UseEncryption); err != nil {
		t.Errorf("RSA 2048 for encryption: %v", err)
	}
	if _, err := pki.ParseCSR(csrDER(t, ecKey(t, elliptic.P384()), pkix.Name{}), pki.UseTransport); err != nil {
		t.Errorf("P-384: %v", err)
	}
}

func TestParseCSRRefusesABadSignature(t *testing.T) {
	der := csrDER(t, ecKey(t, elliptic.P256()), pkix.Name{CommonName: "x"})
	// The signature is the last BIT STRING: change a byte of its value.
	bad := append([]byte(nil), der...)
	bad[len(bad)-3] ^= 0xff
	if _, err := x509.ParseCertificateRequest(bad); err != nil {
		t.Fatalf("the tampered CSR should still parse: %v", err)
	}
	_, err := pki.ParseCSR(bad, pki.UseSigning)
	refused(t, err, "does not prove possession")
}

func TestParseCSRRefusesAnotherKeysSignature(t *testing.T) {
	// The CSR names one key and is signed by another: no proof of possession.
	a, b := ecKey(t, elliptic.P256()), ecKey(t, elliptic.P256())
	derA, derB := csrDER(t, a, pkix.Name{CommonName: "x"}), csrDER(t, b, pkix.Name{CommonName: "x"})
	rb, _ := x509.ParseCertificateRequest(derB)
	var csr struct {
		Info   asn1.RawValue
		Alg    pkix.AlgorithmIdentifier
		Signed asn1.BitString
	}
	if _, err := asn1.Unmarshal(derA, &csr); err != nil {
		t.Fatal(err)
	}
	csr.Signed = asn1.BitString{Bytes: rb.Signature, BitLength: 8 * len(rb.Signature)}
	mixed, err := asn1.Marshal(csr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pki.ParseCSR(mixed, pki.UseSigning)
	refused(t, err, "does not prove possession")
}

func TestParseCSRRefusesRSA1024(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Skipf("RSA 1024 cannot be made here: %v", err)
	}
	_, err = pki.ParseCSR(csrDER(t, k, pkix.Name{}), pki.UseTransport)
	refused(t, err, "1024 bits; at least 2048")
}

func TestParseCSRRefusesP521(t *testing.T) {
	_, err := pki.ParseCSR(csrDER(t, ecKey(t, elliptic.P521()), pkix.Name{}), pki.UseSigning)
	refused(t, err, "P-521")
}

func TestParseCSRRefusesEd25519(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(rand.Reader)
	_, err := pki.ParseCSR(csrDER(t, k, pkix.Name{}), pki.UseSigning)
	refused(t, err, "RSA (2048 bits or more) or EC P-256/P-384")
}

func TestParseCSRRefusesECForEncryption(t *testing.T) {
	_, err := pki.ParseCSR(csrDER(t, ecKey(t, elliptic.P256()), pkix.Name{}), pki.UseEncryption)
	refused(t, err, "needs an RSA key")
}

func TestParseCSRRefusesTheWrongPEMType(t *testing.T) {
	der := csrDER(t, ecKey(t, elliptic.P256()), pkix.Name{})
	_, err := pki.ParseCSR(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pki.UseSigning)
	refused(t, err, "is a CERTIFICATE, not a CERTIFICATE REQUEST")
}

func TestParseCSRRefusesBrokenPEMAndJunk(t *testing.T) {
	_, err := pki.ParseCSR([]byte("-----BEGIN CERTIFICATE REQUEST-----\n!!!\n-----END CERTIFICATE REQUEST-----\n"), pki.UseSigning)
	refused(t, err, "does not decode")
	_, err = pki.ParseCSR([]byte("hello"), pki.UseSigning)
	refused(t, err, "not a PKCS #10")
	_, err = pki.ParseCSR(nil, pki.UseSigning)
	refused(t, err, "not a PKCS #10")
}

func subjectCSR(t *testing.T, names ...pkix.AttributeTypeAndValue) *x509.CertificateRequest {
	t.Helper()
	csr, err := x509.ParseCertificateRequest(csrDER(t, ecKey(t, elliptic.P256()), pkix.Name{ExtraNames: names}))
	if err != nil {
		t.Fatal(err)
	}
	return csr
}

func atv(oid asn1.ObjectIdentifier, v string) pkix.AttributeTypeAndValue {
	return pkix.AttributeTypeAndValue{Type: oid, Value: v}
}

var (
	oidC   = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidO   = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidOI  = asn1.ObjectIdentifier{2, 5, 4, 97}
	oidUID = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
	oidCN  = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidOU  = asn1.ObjectIdentifier{2, 5, 4, 11}
)

var dirSubject = pki.Subject{Country: "GB", Organization: "Example Ltd", OrganizationIdentifier: "12345678", UID: "app-1", CommonName: "Example App"}

func TestContradictsNothingWhenTheCSRAgreesOrSaysLess(t *testing.T) {
	if got := dirSubject.Contradicts(subjectCSR(t)); got != "" {
		t.Errorf("empty subject: %s", got)
	}
	all := subjectCSR(t, atv(oidC, "GB"), atv(oidO, "Example Ltd"), atv(oidOI, "12345678"), atv(oidUID, "app-1"), atv(oidCN, "Example App"),
		atv(oidOU, "anything: not the directory's"))
	if got := dirSubject.Contradicts(all); got != "" {
		t.Errorf("agreeing subject: %s", got)
	}
}

func TestContradictsNamesTheAttribute(t *testing.T) {
	for _, c := range []struct {
		atv  pkix.AttributeTypeAndValue
		want string
	}{
		{atv(oidC, "FR"), "C (CountryOfRegistration)"},
		{atv(oidO, "Other Ltd"), "O (LegalEntityName)"},
		{atv(oidOI, "999"), "organizationIdentifier (RegistrationNumber)"},
		{atv(oidUID, "app-2"), "UID (SoftwareStatementId)"},
		{atv(oidCN, "Other App"), "CN"},
	} {
		got := dirSubject.Contradicts(subjectCSR(t, c.atv))
		if !strings.HasPrefix(got, c.want+" is ") || !strings.Contains(got, c.atv.Value.(string)) {
			t.Errorf("%v: %q, want it to name %s", c.atv.Type, got, c.want)
		}
	}
}

func TestContradictsIgnoresWhatTheDirectoryDoesNotSet(t *testing.T) {
	seal := pki.Subject{Country: "GB", Organization: "Example Ltd", CommonName: "Example"} // no UID, no organizationIdentifier
	if got := seal.Contradicts(subjectCSR(t, atv(oidUID, "anything"), atv(oidOI, "x"))); got != "" {
		t.Errorf("%s", got)
	}
}

func TestSubjectCutsOAndCNTo64(t *testing.T) {
	long := strings.Repeat("é", 70) // 70 characters, 140 bytes
	n := pki.Subject{Organization: long, CommonName: long + "x", Country: "GB"}.Name()
	if got := []rune(n.Organization[0]); len(got) != 64 {
		t.Errorf("O has %d characters", len(got))
	}
	if got := []rune(n.CommonName); len(got) != 64 {
		t.Errorf("CN has %d characters", len(got))
	}
	// A CSR naming the whole long value, or the cut one, agrees.
	s := pki.Subject{Organization: long, CommonName: "x"}
	if got := s.Contradicts(subjectCSR(t, atv(oidO, long))); got != "" {
		t.Errorf("whole value: %s", got)
	}
	if got := s.Contradicts(subjectCSR(t, atv(oidO, string([]rune(long)[:64])))); got != "" {
		t.Errorf("cut value: %s", got)
	}
	// And the issued certificate parses with the cut values.
	ca := testCA(t)
	serial, _ := pki.Serial()
	der, err := ca.Issue(pki.Leaf{Key: ecKey(t, elliptic.P256()).Public(), Subject: n, Use: pki.UseSigning, Serial: serial, NotBefore: now, NotAfter: now.Add(24 * 3600e9)}, urls)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := x509.ParseCertificate(der); err != nil || len([]rune(c.Subject.CommonName)) != 64 {
		t.Fatalf("%v", err)
	}
}
