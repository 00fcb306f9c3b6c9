package directory

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/trustframe/trustframe/orgkeys"
)

// Certificate is an organisation certificate.
type Certificate struct {
	Kid                         string          `json:"kid"`
	OrganisationID              string          `json:"OrganisationId"`
	OrganisationCertificateType string          `json:"OrganisationCertificateType"`
	SubjectDN                   string          `json:"SubjectDN"`
	IssuerDN                    string          `json:"IssuerDN"`
	SerialNumber                string          `json:"SerialNumber"`
	NotBefore                   time.Time       `json:"NotBefore"`
	NotAfter                    time.Time       `json:"NotAfter"`
	Status                      string          `json:"Status"`
	RevokeReason                string          `json:"RevokeReason,omitempty"`
	RevokedOn                   *time.Time      `json:"RevokedOn,omitempty"`
	PublicJwk                   json.RawMessage `json:"PublicJwk"`
	PEM                         string          `json:"PEM"`
	CreatedOn                   time.Time       `json:"CreatedOn"`
	CreatedBy                   string          `json:"CreatedBy"`
	// SoftwareStatementID is the application a certificate the directory's
	// CA issued is for ("" for the organisation's own, and for uploads);
	// IssuedByCA marks those the CA issued (docs/design.md §18).
	SoftwareStatementID string `json:"SoftwareStatementId,omitempty"`
	IssuedByCA          bool   `json:"IssuedByDirectoryCA,omitempty"`
}

// CertificateType is Reference Data: a kind of organisation certificate
// and the JWK use of its key (sig or tls).
type CertificateType struct {
	Name        string `json:"Name"`
	Description string `json:"Description"`
	Use         string `json:"Use"`
	Status      string `json:"Status"`
}

// CertificateText is an uploaded certificate file as PEM text. A .cer or
// .crt file is often the DER itself (application/pkix-cert is DER by
// definition): one that parses as a certificate is taken as its PEM.
// Other bytes that are not text are refused, so that a form never shows
// them back.
func CertificateText(b []byte) (string, error) {
	if !bytes.Contains(b, []byte("-----BEGIN")) {
		if _, err := x509.ParseCertificate(b); err == nil {
			return certificatePEM(b), nil
		}
		if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			return "", Fields{"PEM": "The file is neither a PEM certificate nor a DER one."}.Err()
		}
	}
	return string(b), nil
}

// certificatePEM is the PEM kept for a certificate: its own block, not the
// text the parser skipped before it (which may hold anything, a NUL too).
func certificatePEM(der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// CertificateStore is what the certificate use cases need of the
// database.
type CertificateStore interface {
	ListCertificateTypes(ctx context.Context) ([]CertificateType, error)
	GetCertificateType(ctx context.Context, name string) (CertificateType, error)
	ListCertificates(ctx context.Context, orgID, typ string) ([]Certificate, error)
	GetCertificate(ctx context.Context, orgID, kid string) (Certificate, error)
	CertificateKnown(ctx context.Context, kid string) (bool, error)
	AddCertificate(ctx context.Context, a Actor, c Certificate) (Certificate, error)
	RevokeCertificate(ctx context.Context, a Actor, orgID, kid, reason string, problems Fields, check Check[Certificate]) error
	// RecordRefusedUpload writes the audit record of an upload refused
	// for summary.
	RecordRefusedUpload(ctx context.Context, a Actor, orgID, typ, summary string) error
	GetOrganisation(ctx context.Context, id string) (Organisation, error)
}

// Certificates are the use cases of organisation certificates: upload
// (checked against its type and the clock), revocation, and the reads.
type Certificates struct {
	Store CertificateStore
	Now   func() time.Time
}

// Types are the certificate types, Active or not.
func (s *Certificates) Types(ctx context.Context) ([]CertificateType, error) {
	return s.Store.ListCertificateTypes(ctx)
}

// List is an organisation's certificates, of the type typ when it is not
// empty (a type that does not exist is NotFound).
func (s *Certificates) List(ctx context.Context, orgID, typ string) ([]Certificate, error) {
	if typ != "" {
		if _, err := s.Store.GetCertificateType(ctx, typ); err != nil {
			return nil, Named(err, "Certificate type")
		}
	}
	return s.Store.ListCertificates(ctx, orgID, typ)
}

// Get is one certificate of an organisation by its kid.
func (s *Certificates) Get(ctx context.Context, orgID, kid string) (Certificate, error) {
	c, err := s.Store.GetCertificate(ctx, orgID, kid)
	return c, Named(err, "Certificate")
}

// OfApplication is the certificate kid of the application appID of
// orgID; a certificate of the organisation or of another of its
// applications is NotFound.
func (s *Certificates) OfApplication(ctx context.Context, orgID, appID, kid string) (Certificate, error) {
	c, err := s.Get(ctx, orgID, kid)
	if err == nil && c.SoftwareStatementID != appID {
		return Certificate{}, NotFound("Certificate")
	}
	return c, err
}

// ActiveType is the certificate type name when it is Active; any other is
// refused on OrganisationCertificateType, naming the Active ones.
func (s *Certificates) ActiveType(ctx context.Context, name string) (CertificateType, error) {
	ct, err := s.Store.GetCertificateType(ctx, name)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return ct, err
	}
	if err != nil || ct.Status != "Active" {
		return ct, Fields{"OrganisationCertificateType": s.unknownType(ctx, name)}.Err()
	}
	return ct, nil
}

// unknownType is the refusal of a type that is not an Active one. The
// types are fixed Reference Data that the API does not list, so it names
// the Active ones (names are case-sensitive: qwac, not QWAC).
func (s *Certificates) unknownType(ctx context.Context, name string) string {
	msg := "There is no active certificate type " + name + "."
	types, err := s.Store.ListCertificateTypes(ctx)
	if err != nil {
		return msg
	}
	var names []string
	for _, t := range types {
		if t.Status == "Active" {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return msg
	}
	return msg + " Use one of: " + strings.Join(names, ", ") + "."
}

// Check is the certificate in pemText as an upload of type typ would keep
// it: an Active type, and a certificate its rules accept now (one leaf,
// in date, a key of the type's use). A refused certificate is a refusal
// of PEM, with ErrHoldsPrivateKey when the text holds a private key.
func (s *Certificates) Check(ctx context.Context, typ, pemText string) (*orgkeys.Certificate, error) {
	ct, err := s.ActiveType(ctx, typ)
	if err != nil {
		return nil, err
	}
	return s.parse(pemText, ct.Use)
}

func (s *Certificates) parse(pemText, use string) (*orgkeys.Certificate, error) {
	parsed, err := orgkeys.ParseCertificate(pemText, s.Now(), use)
	var ref *orgkeys.Refusal
	if !errors.As(err, &ref) {
		return parsed, err
	}
	err = Fields{"PEM": ref.Message}.Err()
	if ref.PrivateKey {
		err = fmt.Errorf("%w (%w)", err, ErrHoldsPrivateKey)
	}
	return nil, err
}

// Reviewable refuses, before it is kept anywhere even for a moment (the
// upload's review step keeps it in the session), text that holds a
// private key.
func (s *Certificates) Reviewable(pemText string) error {
	if !orgkeys.HasPrivateKey(pemText) {
		return nil
	}
	if _, err := s.parse(pemText, ""); errors.Is(err, ErrHoldsPrivateKey) {
		return err // names the block
	}
	return fmt.Errorf("%w (%w)", Fields{"PEM": "The PEM holds a private key. Upload the certificate only; never send a private key."}.Err(), ErrHoldsPrivateKey)
}

// Duplicate refuses, when its PEM is read (the upload wizard's first
// step), a certificate already uploaded — its kid known, here or to
// another organisation — rather than at the last step (issue 40). Text
// that does not parse is left to Check.
func (s *Certificates) Duplicate(ctx context.Context, pemText string) error {
	parsed, err := orgkeys.ParseCertificate(pemText, s.Now(), "")
	if err != nil || parsed == nil {
		return nil
	}
	known, err := s.Store.CertificateKnown(ctx, parsed.Kid)
	if err != nil || !known {
		return err
	}
	return Fields{"PEM": "This certificate (kid " + parsed.Kid + ") was already uploaded. Choose another certificate; to replace it, revoke the old one on the Certificates tab and upload a new one."}.Err()
}

// Theirs refuses, when its PEM is read (the upload wizard's first step),
// a certificate an Organisation Administrator may not upload to orgID
// because its subject does not name the organisation, rather than after
// the review. Text that does not parse is left to Check.
func (s *Certificates) Theirs(ctx context.Context, a Actor, orgID, pemText string) error {
	if !a.Limited() {
		return nil
	}
	parsed, err := orgkeys.ParseCertificate(pemText, s.Now(), "")
	if err != nil || parsed == nil {
		return nil
	}
	return s.namesTheOrganisation(ctx, a, orgID, parsed)
}

// Upload checks the certificate in pemText against its type typ and adds
// it to orgID. A refusal is written to the audit log (upload_refused), so
// that an organisation's failed attempts can be followed.
func (s *Certificates) Upload(ctx context.Context, a Actor, orgID, typ, pemText string) (Certificate, error) {
	var c Certificate
	parsed, err := s.Check(ctx, typ, pemText)
	if err == nil && a.Limited() {
		err = s.namesTheOrganisation(ctx, a, orgID, parsed)
	}
	if err == nil {
		c, err = s.Store.AddCertificate(ctx, a, Certificate{Kid: parsed.Kid, OrganisationID: orgID,
			OrganisationCertificateType: typ, SubjectDN: parsed.SubjectDN, IssuerDN: parsed.IssuerDN, SerialNumber: parsed.Serial,
			NotBefore: parsed.Cert.NotBefore, NotAfter: parsed.Cert.NotAfter, PEM: certificatePEM(parsed.Cert.Raw), PublicJwk: parsed.JWK})
		err = Named(err, "Organisation")
	}
	if summary, ok := refusalSummary(err); ok {
		_ = s.Store.RecordRefusedUpload(ctx, a, orgID, auditText(typ, 100), auditText(summary, 500))
	}
	return c, err
}

// Revoke revokes the certificate kid of orgID for reason, one of
// orgkeys.RevokeReasons, when check passes on the stored version; refused
// are problems found reading the input, refused with the reason's by the
// write once it has found the certificate. A revocation is irreversible:
// revoking twice is a conflict.
func (s *Certificates) Revoke(ctx context.Context, a Actor, orgID, kid, reason string, refused Fields, check Check[Certificate]) error {
	problems := Fields{}.Merge(refused)
	reason, ok := orgkeys.CanonicalRevokeReason(reason)
	if !ok {
		problems.Add("RevokeReason", revokeReasonMessage())
	}
	return Named(s.Store.RevokeCertificate(ctx, a, orgID, kid, reason, problems, check), "Certificate")
}

// refusalSummary is a refusal of an upload as its audit record says it:
// the message of each field, or the refusal's own; ok is false for an
// error that is not a refusal (the server's).
func refusalSummary(err error) (summary string, ok bool) {
	var (
		de *Error
		ce *ConflictError
	)
	switch {
	case errors.As(err, &de) && de.Code != CodeBusy:
		if len(de.Fields) == 0 {
			return de.Message, true
		}
		var parts []string
		for _, name := range de.Fields.Names() {
			parts = append(parts, de.Fields[name])
		}
		return strings.Join(parts, " "), true
	case errors.As(err, &ce):
		return ce.Message, true
	}
	return "", false
}

// auditText is text from the request as an audit record keeps it: a NUL
// or bytes that are not UTF-8 as "?" (PostgreSQL's text holds neither, and
// the log must be the same on both engines), at most max characters.
func auditText(s string, max int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "?"), "\x00", "?")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// namesTheOrganisation refuses a certificate an Organisation Administrator
// uploads whose subject does not name their organisation (docs/design.md
// §19): a certificate's kid is unique across the directory, so a
// participant uploading another's (its public part is no secret) would
// claim it and lock its holder out. O must be the organisation's legal
// name or its name (letter case and surrounding spaces aside); the
// directory's administrators upload any certificate, as before.
func (s *Certificates) namesTheOrganisation(ctx context.Context, a Actor, orgID string, c *orgkeys.Certificate) error {
	if !a.May(orgID) {
		return NotFound("Organisation")
	}
	o, err := s.Store.GetOrganisation(ctx, orgID)
	if err != nil {
		return Named(err, "Organisation")
	}
	var names []string
	for _, n := range []string{o.LegalEntityName, o.OrganisationName} {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, strconv.Quote(n))
		}
	}
	for _, got := range c.Cert.Subject.Organization {
		for _, n := range []string{o.LegalEntityName, o.OrganisationName} {
			if n = strings.TrimSpace(n); n != "" && strings.EqualFold(strings.TrimSpace(got), n) {
				return nil
			}
		}
	}
	found := "has no O (organisation)"
	if len(c.Cert.Subject.Organization) > 0 {
		found = "names O " + strconv.Quote(c.Cert.Subject.Organization[0])
	}
	return Fields{"PEM": "The certificate's subject " + found + ", but a certificate you upload must name your organisation in O (" +
		strings.Join(names, " or ") + "). Have one issued for a certificate signing request whose subject names it, or ask the directory's administrators to upload this one."}.Err()
}
