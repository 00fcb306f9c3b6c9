package directory

import (
	"context"
	"time"

	"github.com/trustframe/trustframe/formats"
)

// Document is a regulatory document of an organisation. Dates are
// YYYY-MM-DD; the three 2.6.0 fields are optional.
type Document struct {
	DocumentID              string `json:"DocumentId"`
	OrganisationID          string `json:"OrganisationId"`
	DocumentType            string `json:"DocumentType"`
	DocumentDescription     string `json:"DocumentDescription"`
	DocumentReferenceNumber string `json:"DocumentReferenceNumber"`
	DocumentStartDate       string `json:"DocumentStartDate,omitempty"`
	DocumentExpiryDate      string `json:"DocumentExpiryDate,omitempty"`
	// Status is Active or Withdrawn: a withdrawn document is kept (never
	// deleted) and left out of what needs renewing. A save keeps the
	// stored status; SetDocumentStatus changes it.
	Status    string    `json:"Status,omitempty"`
	CreatedOn time.Time `json:"CreatedOn"`
	UpdatedOn time.Time `json:"UpdatedOn"`
}

// Validate is what a document must be without the database: a type,
// short texts, and dates that are dates, the expiry not before the start.
// The type is checked against Reference Data by the store.
func (d *Document) Validate() Fields {
	f := Fields{}
	f.Required("DocumentType", d.DocumentType, "Document type")
	f.MaxLen("DocumentDescription", d.DocumentDescription, 500)
	f.MaxLen("DocumentReferenceNumber", d.DocumentReferenceNumber, 100)
	f.Dates("DocumentStartDate", d.DocumentStartDate, "DocumentExpiryDate", d.DocumentExpiryDate, "expiry date", false)
	if d.DocumentType != "" && d.DocumentReferenceNumber == "" && d.DocumentDescription == "" && d.DocumentStartDate == "" && d.DocumentExpiryDate == "" {
		f.Add("DocumentReferenceNumber", "A document needs more than its type: give its reference number, a description, or its start or expiry date.")
	}
	return f
}

// ExpiredOn reports whether d's expiry date is before the day of now
// (UTC): saving it records a document that no longer holds.
func (d *Document) ExpiredOn(now time.Time) bool {
	return d.DocumentExpiryDate != "" && d.DocumentExpiryDate < now.UTC().Format("2006-01-02")
}

// Document statuses: Withdrawn is kept, never deleted.
const (
	DocumentActive    = "Active"
	DocumentWithdrawn = "Withdrawn"
)

// Certification is held by an application or an authorisation server.
type Certification struct {
	CertificationID             string    `json:"CertificationId"`
	OrganisationID              string    `json:"OrganisationId"`
	SubjectType                 string    `json:"SubjectType"`
	SubjectID                   string    `json:"SubjectId"`
	CertificationType           string    `json:"CertificationType"`
	CertificationStartDate      string    `json:"CertificationStartDate"`
	CertificationExpirationDate string    `json:"CertificationExpirationDate,omitempty"`
	CertificationURI            string    `json:"CertificationURI,omitempty"`
	Status                      string    `json:"Status"`
	CreatedOn                   time.Time `json:"CreatedOn"`
	UpdatedOn                   time.Time `json:"UpdatedOn"`
}

// Validate is what a certification must be without the database: a type,
// a start date, an https URI when there is one, and a status of Active or
// Inactive (a new one is Active when none is given; an update that leaves
// the status out keeps the stored one).
func (c *Certification) Validate(isNew bool) Fields {
	f := Fields{}
	f.Required("CertificationType", c.CertificationType, "Certification type")
	f.Dates("CertificationStartDate", c.CertificationStartDate, "CertificationExpirationDate", c.CertificationExpirationDate, "expiration date", true)
	// The limit first: "too long" is the message that says what to fix.
	f.MaxLen("CertificationURI", c.CertificationURI, MaxURL)
	if c.CertificationURI != "" && !formats.ValidHTTPSURL(c.CertificationURI) {
		f.Add("CertificationURI", "The certification URI must be an https URL.")
	}
	f.Status(&c.Status, isNew)
	return f
}

// OrgCertification is a certification with the name of the application or
// authorisation server that holds it.
type OrgCertification struct {
	Certification
	HolderName string `json:"HolderName"`
}

// CertificationSubject is what holds certifications: an application (Type
// SoftwareStatement) or an authorisation server (AuthorisationServer),
// with the name it is shown by.
type CertificationSubject struct {
	Type, ID, Name string
}

// ActiveIn reports whether name is an Active item of the reference data
// types (a choice a new document or certification may make).
func ActiveIn(types []ReferenceItem, name string) bool {
	for _, t := range types {
		if t.Name == name && t.Status == "Active" {
			return true
		}
	}
	return false
}

// DocumentStore is what the document and certification use cases need of
// the database. A save gets the problems already found with the fields,
// adds the type's check, and writes nothing while any remains.
type DocumentStore interface {
	GetDocument(ctx context.Context, orgID, id string) (Document, error)
	ListDocuments(ctx context.Context, orgID string, page, size int) ([]Document, int, error)
	SaveDocument(ctx context.Context, a Actor, d Document, problems Fields, check Check[Document]) (Document, error)
	SetDocumentStatus(ctx context.Context, a Actor, orgID, id, status string, check Check[Document]) (Document, error)
	GetCertification(ctx context.Context, subjectType, subjectID, id string) (Certification, error)
	ListCertifications(ctx context.Context, subjectType, subjectID string) ([]Certification, error)
	SaveCertification(ctx context.Context, a Actor, c Certification, problems Fields, check Check[Certification]) (Certification, error)
	ListOrganisationCertifications(ctx context.Context, orgID string) ([]OrgCertification, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (SoftwareStatement, error)
	GetAuthorisationServer(ctx context.Context, orgID, id string) (AuthorisationServer, error)
	ListSoftwareStatements(ctx context.Context, orgID string) ([]SoftwareStatement, error)
	ListAuthorisationServers(ctx context.Context, orgID string) ([]AuthorisationServer, error)
}

// Documents are the use cases of regulatory documents and certifications.
type Documents struct {
	Store DocumentStore
}

// GetDocument is one document of an organisation.
func (s *Documents) GetDocument(ctx context.Context, orgID, id string) (Document, error) {
	d, err := s.Store.GetDocument(ctx, orgID, id)
	return d, Named(err, "Document")
}

// ListDocuments is a page of an organisation's documents, newest first.
func (s *Documents) ListDocuments(ctx context.Context, orgID string, page, size int) ([]Document, int, error) {
	return s.Store.ListDocuments(ctx, orgID, page, size)
}

// SaveDocument creates d (no DocumentID) or replaces it when check passes
// on the stored version; refused are problems found reading the input.
func (s *Documents) SaveDocument(ctx context.Context, a Actor, d Document, refused Fields, check Check[Document]) (Document, error) {
	problems := d.Validate().Merge(refused)
	saved, err := s.Store.SaveDocument(ctx, a, d, problems, check)
	return saved, Named(err, "Document")
}

// SetDocumentStatus withdraws a document (status Withdrawn) or makes a
// withdrawn one Active again, when check passes on the stored version.
// Nothing is deleted; the audit log records the change as "status".
func (s *Documents) SetDocumentStatus(ctx context.Context, a Actor, orgID, id, status string, check Check[Document]) (Document, error) {
	if status != DocumentActive && status != DocumentWithdrawn {
		const msg = "The status of a document is Active or Withdrawn."
		return Document{}, &Error{Code: CodeInvalid, Message: msg, Fields: Fields{"Status": msg}}
	}
	d, err := s.Store.SetDocumentStatus(ctx, a, orgID, id, status, check)
	return d, Named(err, "Document")
}

// GetCertification is one certification of an application or server.
func (s *Documents) GetCertification(ctx context.Context, subjectType, subjectID, id string) (Certification, error) {
	c, err := s.Store.GetCertification(ctx, subjectType, subjectID, id)
	return c, Named(err, "Certification")
}

// ListCertifications are the certifications of an application or server.
func (s *Documents) ListCertifications(ctx context.Context, subjectType, subjectID string) ([]Certification, error) {
	return s.Store.ListCertifications(ctx, subjectType, subjectID)
}

// SaveCertification creates c (no CertificationID) or replaces it when
// check passes on the stored version.
func (s *Documents) SaveCertification(ctx context.Context, a Actor, c Certification, refused Fields, check Check[Certification]) (Certification, error) {
	problems := c.Validate(c.CertificationID == "").Merge(refused)
	saved, err := s.Store.SaveCertification(ctx, a, c, problems, check)
	return saved, Named(err, "Certification")
}

// OrgCertifications are the certifications of all the applications and
// authorisation servers of orgID, by holder.
func (s *Documents) OrgCertifications(ctx context.Context, orgID string) ([]OrgCertification, error) {
	return s.Store.ListOrganisationCertifications(ctx, orgID)
}

// Subject is the holder of certifications a URL names: the application
// appID of orgID, or else its authorisation server serverID.
func (s *Documents) Subject(ctx context.Context, orgID, appID, serverID string) (CertificationSubject, error) {
	if appID != "" {
		a, err := s.Store.GetSoftwareStatement(ctx, orgID, appID)
		return CertificationSubject{Type: "SoftwareStatement", ID: appID, Name: a.ClientName}, Named(err, "Application")
	}
	srv, err := s.Store.GetAuthorisationServer(ctx, orgID, serverID)
	return CertificationSubject{Type: "AuthorisationServer", ID: serverID, Name: srv.CustomerFriendlyName}, Named(err, "Authorisation server")
}

// Holders are what may hold a certification in orgID: its applications,
// then its authorisation servers.
func (s *Documents) Holders(ctx context.Context, orgID string) ([]CertificationSubject, error) {
	apps, err := s.Store.ListSoftwareStatements(ctx, orgID)
	if err != nil {
		return nil, err
	}
	servers, err := s.Store.ListAuthorisationServers(ctx, orgID)
	if err != nil {
		return nil, err
	}
	var out []CertificationSubject
	for _, a := range apps {
		out = append(out, CertificationSubject{Type: "SoftwareStatement", ID: a.SoftwareStatementID, Name: a.ClientName})
	}
	for _, srv := range servers {
		out = append(out, CertificationSubject{Type: "AuthorisationServer", ID: srv.AuthorisationServerID, Name: srv.CustomerFriendlyName})
	}
	return out, nil
}
