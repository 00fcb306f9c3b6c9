package handlers

import (
	"testing"

	"github.com/trustframe/trustframe/views"
)

// TestInTheWayLinesOfReferenceRecords: the words of each kind of record in
// the way of a reference type, the variants the page test does not reach
// (a contact with a name only, a document without a reference number, a
// certification of a server), and a payload of an older release (ids
// only), which is still listed field by field with its link.
func TestInTheWayLinesOfReferenceRecords(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		fields map[string]any
		want   views.InTheWay
	}{
		{"Contacts", map[string]any{"ContactId": "c1", "OrganisationId": "o1", "OrganisationName": "Acme", "Name": "Ann Lee", "EmailAddress": "ann@acme.example"},
			views.InTheWay{Prefix: "Contact: ", Name: "Acme", Text: " — Ann Lee, ann@acme.example", Href: "/organisations/o1/contacts"}},
		{"Contacts", map[string]any{"ContactId": "c1", "OrganisationId": "o1", "OrganisationName": "Acme", "Name": "", "EmailAddress": "desk@acme.example"},
			views.InTheWay{Prefix: "Contact: ", Name: "Acme", Text: " — desk@acme.example", Href: "/organisations/o1/contacts"}},
		{"Documents", map[string]any{"DocumentId": "d1", "OrganisationId": "o1", "OrganisationName": "Acme", "DocumentType": "Licence", "DocumentReferenceNumber": "FCA-1", "DocumentDescription": "licence"},
			views.InTheWay{Prefix: "Document: ", Name: "Acme", Text: " — Licence FCA-1", Href: "/organisations/o1/documents"}},
		{"Documents", map[string]any{"DocumentId": "d1", "OrganisationId": "o1", "OrganisationName": "Acme", "DocumentType": "Licence", "DocumentReferenceNumber": "", "DocumentDescription": "payment licence"},
			views.InTheWay{Prefix: "Document: ", Name: "Acme", Text: " — Licence “payment licence”", Href: "/organisations/o1/documents"}},
		{"Documents", map[string]any{"DocumentId": "d1", "OrganisationId": "o1", "OrganisationName": "Acme", "DocumentType": "Licence", "DocumentReferenceNumber": "", "DocumentDescription": ""},
			views.InTheWay{Prefix: "Document: ", Name: "Acme", Text: " — Licence", Href: "/organisations/o1/documents"}},
		{"Certifications", map[string]any{"CertificationId": "x1", "OrganisationId": "o1", "OrganisationName": "Acme", "CertificationType": "CIBA", "SubjectType": "AuthorisationServer", "SubjectId": "s1", "SubjectName": "Acme login"},
			views.InTheWay{Prefix: "Certification: ", Name: "Acme", Text: " — CIBA of the authorisation server Acme login", Href: "/organisations/o1/certifications"}},
		// An older release's payload: ids only.
		{"Documents", map[string]any{"DocumentId": "d1", "OrganisationId": "o1"},
			views.InTheWay{Text: "Document: DocumentId d1, OrganisationId o1", Href: "/organisations/o1/documents", LinkLabel: "Open the organisation's Documents"}},
		{"Certifications", map[string]any{"CertificationId": "x1", "OrganisationId": "o1", "SubjectType": "SoftwareStatement", "SubjectId": "s1"},
			views.InTheWay{Text: "Certification: CertificationId x1, OrganisationId o1, SubjectId s1, SubjectType SoftwareStatement", Href: "/organisations/o1/certifications", LinkLabel: "Open the organisation's Certifications"}},
	} {
		got := inTheWayItems(map[string]any{tc.kind: []map[string]any{tc.fields}})
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s %v:\n got %+v\nwant %+v", tc.kind, tc.fields, got, tc.want)
		}
	}
}
