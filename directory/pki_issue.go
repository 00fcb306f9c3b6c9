package directory

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"time"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/orgkeys"
	"github.com/trustframe/trustframe/pki"
)

// DefaultLeafLifetime is the lifetime of an issued certificate when the
// configuration sets none: 397 days.
const DefaultLeafLifetime = 9528 * time.Hour

// IssueStore is what issuing certificates needs of the database.
type IssueStore interface {
	GetOrganisation(ctx context.Context, id string) (Organisation, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (SoftwareStatement, error)
	// AddCertificate stores the certificate; one IssuedByCA is refused
	// (a conflict) unless its organisation and application are Active
	// inside the write.
	AddCertificate(ctx context.Context, a Actor, c Certificate) (Certificate, error)
	ListApplicationCertificates(ctx context.Context, orgID, appID string) ([]Certificate, error)
	ApplicationKeys(ctx context.Context, orgID, appID string, typs []string, active bool) ([]json.RawMessage, error)
}

// Issuance is the use cases of the directory's CA for its participants:
// certificates issued from CSRs, an application's certificates and its
// keystores.
type Issuance struct {
	Store    IssueStore
	CA       CASource
	URLs     pki.URLs      // where the CA publishes (pki.URLsUnder the base URL)
	Lifetime time.Duration // of an issued certificate; 0: DefaultLeafLifetime
	Vocab    lifecycle.Vocabulary
	Now      func() time.Time
}

// Issued is an issued certificate as the API answers it: the stored
// certificate, its x5t#S256, and the chain (leaf, then CA) as PEM.
type Issued struct {
	Certificate
	X5tS256 string `json:"x5t#S256"`
	Chain   string `json:"-"`
}

// AppUses are the certificates an application is issued, in the order
// the console offers them.
var AppUses = []string{pki.UseTransport, pki.UseSigning, pki.UseEncryption}

// jwkUse is the JWK use of a certificate of each use (the certificate
// type's use in Reference Data).
var jwkUse = map[string]string{pki.UseTransport: "tls", pki.UseSigning: "sig", pki.UseEncryption: "enc", pki.UseSeal: "sig"}

// pkiOff is the answer of every issuing use case while --pki is off.
func pkiOff() error {
	return &Error{Code: CodeNotFound, Message: "The directory's certificate authority is off here (--pki): it issues no certificates."}
}

// ca is the CA, or the refusal while it is off.
func (s *Issuance) ca(ctx context.Context) (*pki.CA, error) {
	if s.CA == nil {
		return nil, pkiOff()
	}
	ca, err := s.CA(ctx)
	if err != nil {
		return nil, err
	}
	if ca == nil {
		return nil, pkiOff()
	}
	return ca, nil
}

// ForApplication issues a certificate of use (transport, signing or
// encryption) for the application appID of orgID from csr (PEM or DER):
// only for an Active application of an Active organisation (checked
// before the CSR), the subject the directory's records give.
func (s *Issuance) ForApplication(ctx context.Context, a Actor, orgID, appID, use string, csr []byte) (Issued, error) {
	ca, err := s.ca(ctx)
	if err != nil {
		return Issued{}, err
	}
	if !isAppUse(use) {
		return Issued{}, &Error{Code: CodeNotFound, Message: "There is no certificate type " + use + " to issue for an application; use one of " + strings.Join(AppUses, ", ") + "."}
	}
	o, err := s.Store.GetOrganisation(ctx, orgID)
	if err != nil {
		return Issued{}, Named(err, "Organisation")
	}
	app, err := s.Store.GetSoftwareStatement(ctx, orgID, appID)
	if err != nil {
		return Issued{}, Named(err, "Application")
	}
	if refused := s.refused(o, &app); refused != nil {
		return Issued{}, refused
	}
	subj := pki.Subject{Country: o.CountryOfRegistration, Organization: o.LegalEntityName, OrganizationIdentifier: o.RegistrationNumber,
		UID: app.SoftwareStatementID, CommonName: app.ClientName}
	return s.issue(ctx, a, ca, o.OrganisationID, app.SoftwareStatementID, use, csr, subj)
}

// ForOrganisation issues the organisation's own seal certificate from
// csr: only for an Active organisation.
func (s *Issuance) ForOrganisation(ctx context.Context, a Actor, orgID string, csr []byte) (Issued, error) {
	ca, err := s.ca(ctx)
	if err != nil {
		return Issued{}, err
	}
	o, err := s.Store.GetOrganisation(ctx, orgID)
	if err != nil {
		return Issued{}, Named(err, "Organisation")
	}
	if refused := s.refused(o, nil); refused != nil {
		return Issued{}, refused
	}
	subj := pki.Subject{Country: o.CountryOfRegistration, Organization: o.LegalEntityName, OrganizationIdentifier: o.RegistrationNumber,
		CommonName: o.OrganisationName}
	return s.issue(ctx, a, ca, o.OrganisationID, "", pki.UseSeal, csr, subj)
}

// refused says why no certificate is issued now (nil: one is): only an
// Active application (app nil: the organisation's own) of an Active
// organisation gets one.
func (s *Issuance) refused(o Organisation, app *SoftwareStatement) *Error {
	if app != nil && app.Status != lifecycle.Active {
		return &Error{Code: CodeApplicationNotActive, Message: "The application is " + s.Vocab.Display(app.Status) + ": only an Active application is issued certificates."}
	}
	if o.Status != lifecycle.Active {
		return &Error{Code: CodeOrganisationNotActive, Message: "The organisation is " + s.Vocab.Display(o.Status) + ": only an Active organisation is issued certificates."}
	}
	return nil
}

func isAppUse(use string) bool {
	for _, u := range AppUses {
		if u == use {
			return true
		}
	}
	return false
}

// issue checks csr, signs the certificate with the CA and stores it.
func (s *Issuance) issue(ctx context.Context, a Actor, ca *pki.CA, orgID, appID, use string, csr []byte, subj pki.Subject) (Issued, error) {
	req, err := pki.ParseCSR(csr, use)
	var ce *pki.CSRError
	if errors.As(err, &ce) {
		return Issued{}, Fields{"CSR": ce.Message}.Err()
	}
	if err != nil {
		return Issued{}, err
	}
	if what := subj.Contradicts(req); what != "" {
		return Issued{}, Fields{"CSR": "The CSR's subject contradicts the directory's records: " + what + ". Leave the attribute out or give the directory's value."}.Err()
	}
	serial, err := pki.Serial()
	if err != nil {
		return Issued{}, err
	}
	now := s.Now()
	lifetime := s.Lifetime
	if lifetime <= 0 {
		lifetime = DefaultLeafLifetime
	}
	der, err := ca.Issue(pki.Leaf{Key: req.PublicKey, Subject: subj.Name(), Use: use, Serial: serial,
		NotBefore: now.Add(-time.Minute).Truncate(time.Second), NotAfter: now.Add(lifetime).Truncate(time.Second)}, s.URLs)
	if err != nil {
		return Issued{}, err
	}
	leafPEM := certificatePEM(der)
	parsed, err := orgkeys.ParseCertificate(leafPEM, now, jwkUse[use])
	if err != nil {
		return Issued{}, err
	}
	jwk, err := withChain(parsed.JWK, der, ca.Cert.Raw)
	if err != nil {
		return Issued{}, err
	}
	c, err := s.Store.AddCertificate(ctx, a, Certificate{Kid: parsed.Kid, OrganisationID: orgID, OrganisationCertificateType: use,
		SubjectDN: parsed.SubjectDN, IssuerDN: parsed.IssuerDN, SerialNumber: parsed.Serial, NotBefore: parsed.Cert.NotBefore, NotAfter: parsed.Cert.NotAfter,
		PEM: leafPEM, PublicJwk: jwk, SoftwareStatementID: appID, IssuedByCA: true})
	if err != nil {
		if appID != "" {
			return Issued{}, Named(err, "Application")
		}
		return Issued{}, Named(err, "Organisation")
	}
	return Issued{Certificate: c, X5tS256: c.Kid, Chain: leafPEM + certificatePEM(ca.Cert.Raw)}, nil
}

// withChain is jwk with x5c the leaf, then the CA (RFC 7517 §4.7).
func withChain(jwk json.RawMessage, leaf, ca []byte) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(jwk, &m); err != nil {
		return nil, err
	}
	m["x5c"] = []string{base64.StdEncoding.EncodeToString(leaf), base64.StdEncoding.EncodeToString(ca)}
	return json.Marshal(m)
}

// ApplicationCertificates are the certificates the CA issued for an
// application, newest first.
func (s *Issuance) ApplicationCertificates(ctx context.Context, orgID, appID string) ([]Certificate, error) {
	l, err := s.Store.ListApplicationCertificates(ctx, orgID, appID)
	return l, Named(err, "Application")
}

// ApplicationCertificate is one certificate of an application with its
// chain (leaf, then CA) as PEM.
func (s *Issuance) ApplicationCertificate(ctx context.Context, orgID, appID, kid string) (Issued, error) {
	l, err := s.ApplicationCertificates(ctx, orgID, appID)
	if err != nil {
		return Issued{}, err
	}
	for _, c := range l {
		if c.Kid == kid {
			return Issued{Certificate: c, X5tS256: c.Kid, Chain: c.PEM + chainOf(c.PublicJwk)}, nil
		}
	}
	return Issued{}, NotFound("Certificate")
}

// chainOf is the PEM of the certificates after the leaf in jwk's x5c.
func chainOf(jwk json.RawMessage) string {
	var k struct {
		X5c []string `json:"x5c"`
	}
	if json.Unmarshal(jwk, &k) != nil || len(k.X5c) < 2 {
		return ""
	}
	var b strings.Builder
	for _, c := range k.X5c[1:] {
		der, err := base64.StdEncoding.DecodeString(c)
		if err == nil {
			b.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
		}
	}
	return b.String()
}

// Keystores of an application (docs/design.md §18).
const (
	KeystoreApplication = "application" // signing and encryption keys
	KeystoreTransport   = "transport"   // transport keys
)

// Keys are the public JWKs of an application's keystore (which is
// KeystoreApplication or KeystoreTransport): Active and in date, or
// (active false) revoked and expired.
func (s *Issuance) Keys(ctx context.Context, orgID, appID, which string, active bool) ([]json.RawMessage, error) {
	typs := []string{pki.UseSigning, pki.UseEncryption}
	if which == KeystoreTransport {
		typs = []string{pki.UseTransport}
	}
	keys, err := s.Store.ApplicationKeys(ctx, orgID, appID, typs, active)
	return keys, Named(err, "Application")
}
