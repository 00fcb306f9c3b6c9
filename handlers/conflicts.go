package handlers

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/views"
)

// A conflict (409) names what is in the way as data (store.ConflictError,
// Error.InTheWay). The API sends it as the message "summary|payload"
// (conflictWire, docs/design.md §4); the console lists it (conflictList).

// conflictList is a conflict as a page shows it: the summary and one line
// per record in the way, each with a link to the page that shows it (the
// organisation's tab) when the record names its organisation. Without
// anything named it says the item is in use.
func conflictList(e *Error) (string, []views.InTheWay) {
	if items := inTheWayItems(e.InTheWay); len(items) > 0 {
		return e.Message, items
	}
	if e.Message != "" {
		return e.Message, nil
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
func inTheWayItems(w directory.InTheWay) []views.InTheWay {
	var items []views.InTheWay
	for _, a := range w.Authorities {
		items = append(items, views.InTheWay{Text: "Authority: " + a.AuthorityName, Href: "/references/authorisation-domains#authorities", LinkLabel: "Open the authorities"})
	}
	for _, c := range w.Certifications {
		items = append(items, orgItem("Certification", c.OrganisationID, c.OrganisationName, certificationName(c), "certifications"))
	}
	for _, c := range w.Claims {
		text := " holds " + c.AuthorisationDomain + " — " + c.Role
		if c.AuthorityName != "" {
			text += ", authorised by " + c.AuthorityName
		}
		if c.Status != "" && c.Status != "Active" {
			text += " (" + c.Status + ")"
		}
		items = append(items, views.InTheWay{Prefix: "Claim: ", Name: orName(c.OrganisationName, c.OrganisationID), Text: text, Href: paths.OrganisationTab(c.OrganisationID, "authority-claims")})
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
		items = append(items, views.InTheWay{Text: "Role metadata policy: " + p.Policy, Href: "/references/role-metadata-policies", LinkLabel: "Open the role metadata policies"})
	}
	for _, r := range w.Roles {
		items = append(items, views.InTheWay{Text: "Role: " + r.AuthorisationDomain + " — " + r.Name})
	}
	return items
}

// orgItem is a record of an organisation in the way, linked to the
// organisation's tab where it is changed.
func orgItem(kind, orgID, orgName, what, tab string) views.InTheWay {
	return views.InTheWay{Prefix: kind + ": ", Name: orName(orgName, orgID), Text: " — " + what, Href: paths.OrganisationTab(orgID, tab)}
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

// conflictRecord is one record of a conflict payload, of its kind
// ("Claims", "Contacts", …).
type conflictRecord struct {
	kind   string
	fields map[string]any
}

// line is the record as one line: "Claim: ClaimId c1, OrganisationId o1".
func (r conflictRecord) line() string {
	fields := make([]string, 0, len(r.fields))
	for f := range r.fields {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		parts = append(parts, fmt.Sprintf("%s %v", f, r.fields[f]))
	}
	return strings.TrimSuffix(r.kind, "s") + ": " + strings.Join(parts, ", ")
}

// conflictRecords reads each kind's list of records, kinds in name order;
// ok is false when a kind is not a list of objects.
func conflictRecords(m map[string]json.RawMessage) (recs []conflictRecord, ok bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ok = true
	for _, k := range keys {
		var list []map[string]any
		if err := json.Unmarshal(m[k], &list); err != nil {
			ok = false
			continue
		}
		for _, it := range list {
			recs = append(recs, conflictRecord{kind: k, fields: it})
		}
	}
	return recs, ok
}

// listRecords formats each kind's list of records; ok is false when a kind
// is not a list of objects.
func listRecords(m map[string]json.RawMessage) (items []string, ok bool) {
	recs, ok := conflictRecords(m)
	for _, r := range recs {
		items = append(items, r.line())
	}
	return items, ok
}

// ParseConflict reads a conflict message as the API sends it,
// "summary|payload" (docs/design.md §4), for clients of the API: the
// summary and the records of the payload. ok is false when the separator
// or a payload that is a JSON object of lists is missing.
func ParseConflict(msg string) (summary string, items []string, ok bool) {
	summary, payload, found := strings.Cut(msg, "|")
	if !found {
		return "", nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(payload), &m); err != nil || len(m) == 0 {
		return "", nil, false
	}
	items, ok = listRecords(m)
	if !ok {
		return "", nil, false
	}
	return summary, items, true
}
