package directory

import (
	"strings"

	"github.com/trustframe/trustframe/formats"
)

// InTheWay names, by kind, the records that stop a change: the payload of
// a conflict (docs/design.md §4). The API sends it as one JSON object of
// the kinds present, in name order (the order of the fields below).
type InTheWay struct {
	Authorities          []AuthorityRef      `json:"Authorities,omitempty"`
	Certifications       []HeldCertification `json:"Certifications,omitempty"`
	Claims               []ClaimRef          `json:"Claims,omitempty"`
	Contacts             []ContactInUse      `json:"Contacts,omitempty"`
	Documents            []DocumentInUse     `json:"Documents,omitempty"`
	RoleMetadataPolicies []PolicyRef         `json:"RoleMetadataPolicies,omitempty"`
	Roles                []RoleRef           `json:"Roles,omitempty"`
}

// Empty reports whether nothing is named.
func (w InTheWay) Empty() bool { return w.count() == nil }

// Summary says in words how many of each kind are in the way: "2 authority
// claims, 1 role".
func (w InTheWay) Summary() string {
	var out []string
	for _, k := range w.count() {
		words := kindWords[k.kind]
		out = append(out, formats.Count(k.n, words[0], words[1]))
	}
	return strings.Join(out, ", ")
}

// kindWords are each kind's words, one and many.
var kindWords = map[string][2]string{
	"Authorities": {"authority", "authorities"}, "Certifications": {"certification", "certifications"},
	"Claims": {"authority claim", "authority claims"}, "Contacts": {"contact", "contacts"},
	"Documents": {"document", "documents"}, "RoleMetadataPolicies": {"role metadata policy", "role metadata policies"},
	"Roles": {"role", "roles"},
}

type kindCount struct {
	kind string
	n    int
}

// count lists the kinds present, in name order, with their numbers.
func (w InTheWay) count() []kindCount {
	var out []kindCount
	for _, k := range []kindCount{
		{"Authorities", len(w.Authorities)}, {"Certifications", len(w.Certifications)}, {"Claims", len(w.Claims)},
		{"Contacts", len(w.Contacts)}, {"Documents", len(w.Documents)}, {"RoleMetadataPolicies", len(w.RoleMetadataPolicies)},
		{"Roles", len(w.Roles)},
	} {
		if k.n > 0 {
			out = append(out, k)
		}
	}
	return out
}

// InUse is the conflict of something the records in w still use.
func InUse(summary string, w InTheWay) error {
	return &ConflictError{Message: summary, InTheWay: w}
}

// ClaimRef names an authority claim in the way: its ids for programs,
// and the organisation's and authority's names and the claim's status for
// people.
type ClaimRef struct {
	ClaimID             string `json:"ClaimId"`
	OrganisationID      string `json:"OrganisationId"`
	OrganisationName    string `json:"OrganisationName"`
	AuthorisationDomain string `json:"AuthorisationDomain"`
	Role                string `json:"Role"`
	AuthorityID         string `json:"AuthorityId"`
	AuthorityName       string `json:"AuthorityName"`
	Status              string `json:"Status"`
}

// HeldCertification names a certification in the way: its ids, its
// organisation's name, its type and the name of the application
// (ClientName) or authorisation server (CustomerFriendlyName) holding it.
type HeldCertification struct {
	CertificationID   string `json:"CertificationId"`
	OrganisationID    string `json:"OrganisationId"`
	OrganisationName  string `json:"OrganisationName"`
	CertificationType string `json:"CertificationType"`
	SubjectType       string `json:"SubjectType"`
	SubjectID         string `json:"SubjectId"`
	SubjectName       string `json:"SubjectName"`
}

// ContactInUse is a contact in the way of deleting its contact type.
type ContactInUse struct {
	ContactID        string `json:"ContactId"`
	OrganisationID   string `json:"OrganisationId"`
	OrganisationName string `json:"OrganisationName"`
	Name             string `json:"Name"`
	EmailAddress     string `json:"EmailAddress"`
}

// DocumentInUse is a document in the way of deleting its document type.
type DocumentInUse struct {
	DocumentID              string `json:"DocumentId"`
	OrganisationID          string `json:"OrganisationId"`
	OrganisationName        string `json:"OrganisationName"`
	DocumentType            string `json:"DocumentType"`
	DocumentReferenceNumber string `json:"DocumentReferenceNumber"`
	DocumentDescription     string `json:"DocumentDescription"`
}

// AuthorityRef names an authority in the way (one covering a domain).
type AuthorityRef struct {
	AuthorityID   string `json:"AuthorityId"`
	AuthorityName string `json:"AuthorityName"`
}

// PolicyRef names a role metadata policy in the way ("role / entity type").
type PolicyRef struct {
	Policy   string `json:"Policy"`
	PolicyID string `json:"PolicyId"`
}

// RoleRef names a role of a domain in the way.
type RoleRef struct {
	AuthorisationDomain string `json:"AuthorisationDomain"`
	Name                string `json:"Name"`
}
