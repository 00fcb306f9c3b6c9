package handlers

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

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
// per record, in the words a person recognises: a claim by its
// organisation's name (linked to the organisation's Roles tab), its domain
// and role and its authority; a role by its domain and name; an authority
// by its name; a contact, document or certification by its organisation's
// name (linked to the organisation's tab where it is changed) and its own
// ("Contact: Acme Bank — Ann Lee, ann@acme.example"). Records without the
// names (a payload of an older release) are listed field by field
// ("Contact: ContactId c1, Name Ann Lee, OrganisationId o1"), linked to
// where they are changed.
func inTheWayItems(inTheWay map[string]any) []views.InTheWay {
	raw := make(map[string]json.RawMessage, len(inTheWay))
	for k, v := range inTheWay {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		raw[k] = b
	}
	recs, _ := conflictRecords(raw)
	items := make([]views.InTheWay, 0, len(recs))
	for _, rec := range recs {
		if it, ok := rec.named(); ok {
			items = append(items, it)
			continue
		}
		it := views.InTheWay{Text: rec.line()}
		if org, ok := rec.fields["OrganisationId"].(string); ok && org != "" {
			tab, label := inTheWayTab(rec.kind)
			it.Href, it.LinkLabel = paths.Organisation(org), "Open the organisation"
			if tab != "" {
				it.Href, it.LinkLabel = paths.OrganisationTab(org, tab), label
			}
		}
		items = append(items, it)
	}
	return items
}

// named is the line of a record by its names (docs/design.md §4, §12); ok is false for other kinds, or a record without the
// names (a payload of an older release).
func (r conflictRecord) named() (views.InTheWay, bool) {
	str := func(f string) string { s, _ := r.fields[f].(string); return s }
	switch r.kind {
	case "Claims":
		org, orgName, dom, role := str("OrganisationId"), str("OrganisationName"), str("AuthorisationDomain"), str("Role")
		if org == "" || orgName == "" || dom == "" || role == "" {
			return views.InTheWay{}, false
		}
		text := " holds " + dom + " — " + role
		if a := str("AuthorityName"); a != "" {
			text += ", authorised by " + a
		}
		if st := str("Status"); st != "" && st != "Active" {
			text += " (" + st + ")"
		}
		return views.InTheWay{Prefix: "Claim: ", Name: orgName, Text: text, Href: paths.OrganisationTab(org, "authority-claims")}, true
	case "Roles":
		if str("AuthorisationDomain") == "" || str("Name") == "" {
			return views.InTheWay{}, false
		}
		return views.InTheWay{Text: "Role: " + str("AuthorisationDomain") + " — " + str("Name")}, true
	case "Authorities":
		if str("AuthorityName") == "" {
			return views.InTheWay{}, false
		}
		return views.InTheWay{Text: "Authority: " + str("AuthorityName"), Href: "/references/authorisation-domains#authorities", LinkLabel: "Open the authorities"}, true
	case "Contacts", "Documents", "Certifications":
		org, orgName := str("OrganisationId"), str("OrganisationName")
		what := r.ownName(str)
		if org == "" || orgName == "" || what == "" {
			return views.InTheWay{}, false
		}
		tab, _ := inTheWayTab(r.kind)
		return views.InTheWay{Prefix: strings.TrimSuffix(r.kind, "s") + ": ", Name: orgName, Text: " — " + what, Href: paths.OrganisationTab(org, tab)}, true
	case "RoleMetadataPolicies":
		if str("Policy") == "" {
			return views.InTheWay{}, false
		}
		return views.InTheWay{Text: "Role metadata policy: " + str("Policy"), Href: "/references/role-metadata-policies", LinkLabel: "Open the role metadata policies"}, true
	}
	return views.InTheWay{}, false
}

// ownName is how a person knows a contact ("Ann Doe, ann@acme.example"),
// a document (its type and reference number, or its description when it
// has none) or a certification (its type and the application or
// authorisation server that holds it); "" when the payload lacks the
// names (an older release's).
func (r conflictRecord) ownName(str func(string) string) string {
	join := func(parts ...string) string {
		var out []string
		for _, p := range parts {
			if p != "" {
				out = append(out, p)
			}
		}
		return strings.Join(out, " ")
	}
	switch r.kind {
	case "Contacts":
		name, mail := str("Name"), str("EmailAddress")
		if name == "" || mail == "" {
			return join(name, mail)
		}
		return name + ", " + mail
	case "Documents":
		typ, ref, desc := str("DocumentType"), str("DocumentReferenceNumber"), str("DocumentDescription")
		if typ == "" {
			return ""
		}
		if ref == "" && desc != "" {
			return typ + " “" + desc + "”"
		}
		return join(typ, ref)
	case "Certifications":
		typ, holder := str("CertificationType"), str("SubjectName")
		if typ == "" || holder == "" {
			return ""
		}
		switch str("SubjectType") {
		case "SoftwareStatement":
			return typ + " of the application " + holder
		case "AuthorisationServer":
			return typ + " of the authorisation server " + holder
		}
		return typ + " of " + holder
	}
	return ""
}

// inTheWayTab is the organisation's tab that shows records of a kind of
// conflict payload, and the link's words.
func inTheWayTab(kind string) (tab, label string) {
	switch kind {
	case "Claims":
		return "authority-claims", "Open the organisation's Roles"
	case "Contacts":
		return "contacts", "Open the organisation's Contacts"
	case "Documents":
		return "documents", "Open the organisation's Documents"
	case "Certifications":
		return "certifications", "Open the organisation's Certifications"
	}
	return "", ""
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
