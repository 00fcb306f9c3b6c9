package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"strings"
	"unicode/utf8"
)

// CSRError is a CSR refused, the message for a person (422 on CSR).
type CSRError struct{ Message string }

func (e *CSRError) Error() string { return e.Message }

func refuse(format string, args ...any) error {
	return &CSRError{Message: fmt.Sprintf(format, args...)}
}

// MaxRSABits bounds the RSA keys the CA certifies (Go's TLS stack refuses
// larger ones; checking a signature under a larger modulus costs the
// verifier more than a request should). orgkeys.MaxRSABits is the same
// bound for keys given, not certified.
const MaxRSABits = 8192

// ParseCSR reads a PKCS #10 request, PEM or DER, and checks it: its key
// (RSA of 2048 to MaxRSABits bits, or EC P-256 or P-384; an encryption
// certificate needs RSA), then its signature (proof of possession). A PEM
// text holds one block.
func ParseCSR(b []byte, use string) (*x509.CertificateRequest, error) {
	der := b
	if blk, _ := pem.Decode(b); blk != nil {
		if blk.Type != "CERTIFICATE REQUEST" && blk.Type != "NEW CERTIFICATE REQUEST" {
			return nil, refuse("The PEM block is a %s, not a CERTIFICATE REQUEST.", blk.Type)
		}
		// Counted over the whole text: pem.Decode skips a block it cannot
		// read, so a junk block before the CSR would pass unseen.
		if strings.Count(string(b), "-----BEGIN") > 1 {
			return nil, refuse("The PEM text holds more than one block; send one CERTIFICATE REQUEST only.")
		}
		der = blk.Bytes
	} else if strings.Contains(string(b), "-----BEGIN") {
		return nil, refuse("The PEM text does not decode.")
	}
	csr, err := x509.ParseCertificateRequest(der)
	if err != nil {
		return nil, refuse("This is not a PKCS #10 certificate request (CSR).")
	}
	switch k := csr.PublicKey.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < 2048 {
			return nil, refuse("The CSR's RSA key has %d bits; at least 2048 are needed.", k.N.BitLen())
		}
		if k.N.BitLen() > MaxRSABits {
			return nil, refuse("The CSR's RSA key has %d bits; at most %d are taken.", k.N.BitLen(), MaxRSABits)
		}
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() && k.Curve != elliptic.P384() {
			return nil, refuse("The CSR's EC key is on %s; P-256 or P-384 are taken.", k.Curve.Params().Name)
		}
		if use == UseEncryption {
			return nil, refuse("An encryption certificate needs an RSA key; the CSR's key is EC.")
		}
	default:
		return nil, refuse("The CSR's key is a %T; RSA (2048 bits or more) or EC P-256/P-384 are taken.", csr.PublicKey)
	}
	// The signature is checked after the key: checking it under an
	// enormous RSA modulus would cost the CA minutes of CPU.
	if err := csr.CheckSignature(); err != nil {
		return nil, refuse("The CSR's signature does not verify with its own key: it does not prove possession of the key.")
	}
	return csr, nil
}

// Subject is what the directory's records say a certificate's subject
// is; empty members are left out.
type Subject struct {
	Country                string // C: CountryOfRegistration
	Organization           string // O: LegalEntityName
	OrganizationIdentifier string // 2.5.4.97: RegistrationNumber
	UID                    string // 0.9.2342.19200300.100.1.1: SoftwareStatementId
	CommonName             string // CN: ClientName or OrganisationName
}

// maxNameLen is RFC 5280's upper bound of O and CN (ub-organization-name,
// ub-common-name).
const maxNameLen = 64

// cut shortens s to RFC 5280's 64 characters.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxNameLen {
		return s
	}
	return string([]rune(s)[:maxNameLen])
}

// Name is the subject as an X.509 name, O and CN cut to 64 characters.
func (s Subject) Name() pkix.Name {
	n := pkix.Name{CommonName: cut(s.CommonName)}
	if s.Country != "" {
		n.Country = []string{s.Country}
	}
	if s.Organization != "" {
		n.Organization = []string{cut(s.Organization)}
	}
	if s.OrganizationIdentifier != "" {
		n.ExtraNames = append(n.ExtraNames, pkix.AttributeTypeAndValue{Type: oidOrganizationIdentifier, Value: s.OrganizationIdentifier})
	}
	if s.UID != "" {
		n.ExtraNames = append(n.ExtraNames, pkix.AttributeTypeAndValue{Type: oidUID, Value: s.UID})
	}
	return n
}

// Contradicts names the first attribute of the CSR's subject that names a
// value other than the directory's ("" when none does): a CSR may leave
// out what the directory sets, not say otherwise. Attributes the directory
// does not set are ignored.
func (s Subject) Contradicts(csr *x509.CertificateRequest) string {
	want := s.Name()
	checks := []struct {
		name string
		oid  asn1.ObjectIdentifier
		want string
	}{
		{"C (CountryOfRegistration)", asn1.ObjectIdentifier{2, 5, 4, 6}, first(want.Country)},
		{"O (LegalEntityName)", asn1.ObjectIdentifier{2, 5, 4, 10}, first(want.Organization)},
		{"organizationIdentifier (RegistrationNumber)", oidOrganizationIdentifier, s.OrganizationIdentifier},
		{"UID (SoftwareStatementId)", oidUID, s.UID},
		{"CN", asn1.ObjectIdentifier{2, 5, 4, 3}, want.CommonName},
	}
	for _, c := range checks {
		if c.want == "" {
			continue // not the directory's to say
		}
		for _, atv := range csr.Subject.Names {
			if !atv.Type.Equal(c.oid) {
				continue
			}
			got := fmt.Sprint(atv.Value)
			if got != c.want && cut(got) != c.want {
				return fmt.Sprintf("%s is %q in the CSR, but %q in the directory", c.name, got, c.want)
			}
		}
	}
	return ""
}

func first(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
}
