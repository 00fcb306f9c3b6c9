package views

import (
	"testing"

	"github.com/trustframe/trustframe/directory"
)

// TestInTheWayLinesOfReferenceRecords: the words of each kind of record in
// the way of a reference type, the variants the page test does not reach
// (a contact with a name only, a document without a reference number, a
// certification of a server), and a record whose organisation has no name
// (named by its id).
func TestInTheWayLinesOfReferenceRecords(t *testing.T) {
	for _, tc := range []struct {
		in   directory.InTheWay
		want InTheWay
	}{
		{directory.InTheWay{Contacts: []directory.ContactInUse{{ContactID: "c1", OrganisationID: "o1", OrganisationName: "Acme", Name: "Ann Lee", EmailAddress: "ann@acme.example"}}},
			InTheWay{Prefix: "Contact: ", Name: "Acme", Text: " — Ann Lee, ann@acme.example", Href: "/organisations/o1/contacts"}},
		{directory.InTheWay{Contacts: []directory.ContactInUse{{ContactID: "c1", OrganisationID: "o1", OrganisationName: "Acme", EmailAddress: "desk@acme.example"}}},
			InTheWay{Prefix: "Contact: ", Name: "Acme", Text: " — desk@acme.example", Href: "/organisations/o1/contacts"}},
		{directory.InTheWay{Documents: []directory.DocumentInUse{{DocumentID: "d1", OrganisationID: "o1", OrganisationName: "Acme", DocumentType: "Licence", DocumentReferenceNumber: "FCA-1", DocumentDescription: "licence"}}},
			InTheWay{Prefix: "Document: ", Name: "Acme", Text: " — Licence FCA-1", Href: "/organisations/o1/documents"}},
		{directory.InTheWay{Documents: []directory.DocumentInUse{{DocumentID: "d1", OrganisationID: "o1", OrganisationName: "Acme", DocumentType: "Licence", DocumentDescription: "payment licence"}}},
			InTheWay{Prefix: "Document: ", Name: "Acme", Text: " — Licence “payment licence”", Href: "/organisations/o1/documents"}},
		{directory.InTheWay{Documents: []directory.DocumentInUse{{DocumentID: "d1", OrganisationID: "o1", OrganisationName: "Acme", DocumentType: "Licence"}}},
			InTheWay{Prefix: "Document: ", Name: "Acme", Text: " — Licence", Href: "/organisations/o1/documents"}},
		{directory.InTheWay{Certifications: []directory.HeldCertification{{CertificationID: "x1", OrganisationID: "o1", OrganisationName: "Acme", CertificationType: "CIBA", SubjectType: "AuthorisationServer", SubjectID: "s1", SubjectName: "Acme login"}}},
			InTheWay{Prefix: "Certification: ", Name: "Acme", Text: " — CIBA of the authorisation server Acme login", Href: "/organisations/o1/authorisationservers/s1/certifications"}},
		{directory.InTheWay{Certifications: []directory.HeldCertification{{CertificationID: "x1", OrganisationID: "o1", CertificationType: "CIBA", SubjectType: "SoftwareStatement", SubjectID: "s1", SubjectName: "Wallet"}}},
			InTheWay{Prefix: "Certification: ", Name: "o1", Text: " — CIBA of the application Wallet", Href: "/organisations/o1/softwarestatements/s1/certifications"}},
	} {
		got := inTheWayItems(tc.in)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%+v:\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
}
