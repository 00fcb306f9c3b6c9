package views

import (
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
)

// Conflict is a refused change (409) as a page shows it: the summary and
// one line per record in the way, each with a link to the page that shows
// it (the organisation's tab) when the record names its organisation.
// Without anything named it says the item is in use.
func Conflict(summary string, w directory.InTheWay) (string, []InTheWay) {
	if items := inTheWayItems(w); len(items) > 0 {
		return summary, items
	}
	if summary != "" {
		return summary, nil
	}
	return "This item is in use and cannot be changed or deleted.", nil
}

// inTheWayItems lists what a conflict names, kinds in name order, one line
// per record, in the words a person recognises, each linked to where it is
// changed: a claim by its organisation's name, its domain and role and its
// authority; a role by its domain and name; an authority by its name; a
// contact, document or certification by its organisation's name and its
// own ("Contact: Acme Bank — Ann Lee, ann@acme.example"); a role metadata
// policy by its role and entity type.
func inTheWayItems(w directory.InTheWay) []InTheWay {
	var items []InTheWay
	for _, a := range w.Authorities {
		items = append(items, InTheWay{Text: "Authority: " + a.AuthorityName, Href: "/references/authorisation-domains#authorities", LinkLabel: "Open the authorities"})
	}
	for _, c := range w.Certifications {
		// Linked to the certifications of the application or server that
		// holds it, where it is ended (issue 40), not the organisation's tab.
		it := orgItem("Certification", c.OrganisationID, c.OrganisationName, certificationName(c), "certifications")
		if c.SubjectID != "" && (c.SubjectType == "SoftwareStatement" || c.SubjectType == "AuthorisationServer") {
			it.Href = CertificationsPath(c.OrganisationID, directory.CertificationSubject{Type: c.SubjectType, ID: c.SubjectID})
		}
		items = append(items, it)
	}
	for _, c := range w.Claims {
		text := " holds " + c.AuthorisationDomain + " — " + c.Role
		if c.AuthorityName != "" {
			text += ", authorised by " + c.AuthorityName
		}
		if c.Status != "" && c.Status != "Active" {
			text += " (" + c.Status + ")"
		}
		items = append(items, InTheWay{Prefix: "Claim: ", Name: orName(c.OrganisationName, c.OrganisationID), Text: text, Href: paths.OrganisationTab(c.OrganisationID, "authority-claims")})
	}
	for _, c := range w.Contacts {
		name := c.Name
		if name != "" && c.EmailAddress != "" {
			name += ", " + c.EmailAddress
		} else if name == "" {
			name = c.EmailAddress
		}
		items = append(items, orgItem("Contact", c.OrganisationID, c.OrganisationName, name, "contacts"))
	}
	for _, d := range w.Documents {
		items = append(items, orgItem("Document", d.OrganisationID, d.OrganisationName, documentName(d), "documents"))
	}
	for _, p := range w.RoleMetadataPolicies {
		items = append(items, InTheWay{Text: "Role metadata policy: " + p.Policy, Href: "/references/role-metadata-policies", LinkLabel: "Open the role metadata policies"})
	}
	for _, r := range w.Roles {
		items = append(items, InTheWay{Text: "Role: " + r.AuthorisationDomain + " — " + r.Name})
	}
	return items
}

// orgItem is a record of an organisation in the way, linked to the
// organisation's tab where it is changed.
func orgItem(kind, orgID, orgName, what, tab string) InTheWay {
	return InTheWay{Prefix: kind + ": ", Name: orName(orgName, orgID), Text: " — " + what, Href: paths.OrganisationTab(orgID, tab)}
}

// orName is an organisation's name, or its id when the name is not known.
func orName(name, id string) string {
	if name != "" {
		return name
	}
	return id
}

// documentName is how a person knows a document: its type and reference
// number, or its description when it has no number.
func documentName(d directory.DocumentInUse) string {
	if d.DocumentReferenceNumber == "" && d.DocumentDescription != "" {
		return d.DocumentType + " “" + d.DocumentDescription + "”"
	}
	return strings.TrimSpace(d.DocumentType + " " + d.DocumentReferenceNumber)
}

// certificationName is a certification's type and what holds it.
func certificationName(c directory.HeldCertification) string {
	switch c.SubjectType {
	case "SoftwareStatement":
		return c.CertificationType + " of the application " + c.SubjectName
	case "AuthorisationServer":
		return c.CertificationType + " of the authorisation server " + c.SubjectName
	}
	return c.CertificationType + " of " + c.SubjectName
}
