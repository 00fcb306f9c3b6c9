package views

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"

	"github.com/trustframe/trustframe/paths"

	"github.com/trustframe/trustframe/store"
)

// AuditEntry is an audit record as a person reads it: who did what to which
// named thing, and what changed (docs/decisions.md "Readable audit").
type AuditEntry struct {
	store.AuditRecord
	Verb    string   // "created", "changed the status of"
	Thing   string   // "organisation", "signing key"
	Name    string   // "Acme Bank", "Vj5c…"; the id when nothing better is known
	FullID  string   // the id behind Name, for the title attribute and copying
	OrgName string   // the organisation it belongs to, when it is not the thing itself
	Href    string   // the thing's page, when there is one
	Changes []Change // one per field
	Note    string   // what the summary says that is not a field
}

// Change is one field of an audit summary: before → after, or a value.
type Change struct {
	Field, Before, After string
	IsDiff               bool
}

// What is the sentence without the actor: "updated organisation Acme Bank".
func (e AuditEntry) What() string {
	return joinNonEmpty(" ", e.Verb, e.Thing, e.Name)
}

var auditVerbs = map[string]string{
	"create": "created", "update": "updated", "delete": "deleted", "status": "changed the status of",
	"invite": "invited", "activate": "activated", "key_create": "created", "key_retire": "retired",
	"revoke": "revoked", "upload": "uploaded", "upload_refused": "was refused uploading", "attach": "attached a file to",
	"attachment_update": "updated an attachment of", "login": "signed in", "logout": "signed out",
	"login_refused": "was refused sign-in", "ssa_issued": "issued an SSA for", "seed": "seeded", "expiry_notice": "sent expiry notices",
	"export": "exported", "import": "imported", "reactivate": "reactivated",
	"rotate_secret": "made a new secret for", "redeliver": "queued a delivery again to", "pause": "paused", "test": "sent a test event to",
	"group_grant": "granted a group role to", "group_revoke": "ended the group role of",
	"group_revoke_refused": "was refused ending the group role of",
}

var auditThings = map[string]string{
	"Organisation": "organisation", "Application": "application", "AuthorisationServer": "authorisation server",
	"Certification": "certification", "Contact": "contact", "DataAdministrator": "Data Administrator", "SuperUser": "Super User",
	"Document": "document", "Flag": "flag", "IdentityProvider": "identity provider", "KeyMaterial": "key",
	"OrganisationCertificate": "certificate", "RoleMetadataPolicy": "role metadata policy", "SigningKey": "signing key",
	"FederationKey": "federation signing key",
	"ContactType":   "contact type", "DocumentType": "document type", "CertificationType": "certification type",
	"AuditLog": "the audit log", "ExpiryNotice": "", "Session": "",
}

// subjectTypeLabels name, for a webhook's choice of subjects, the subject
// types whose audit word reads wrong alone or is empty.
var subjectTypeLabels = map[string]string{
	"KeyMaterial": "key material", "Session": "sign-in and sign-out", "ExpiryNotice": "expiry notice",
}

// SubjectTypeLabel is a subject type as a person reads it, capitalised:
// "Authorisation server" for AuthorisationServer.
func SubjectTypeLabel(t string) string {
	w := subjectTypeLabels[t]
	if w == "" {
		w = auditThings[t]
	}
	if w == "" {
		w = strings.ToLower(splitWords(t))
	}
	r := []rune(w)
	if len(r) == 0 {
		return t
	}
	return string(unicode.ToUpper(r[0])) + string(r[1:])
}

// ActionLabel is an audit action as a filter option ("key create").
func ActionLabel(a string) string {
	return strings.ReplaceAll(a, "_", " ")
}

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// shortID is the start of a long id: "Vj5c…" for a kid, "1a2b3c4d…" for a UUID.
func shortID(id string) string {
	switch {
	case uuidRe.MatchString(id):
		return id[:8] + "…"
	case len(id) > 16:
		return id[:4] + "…"
	}
	return id
}

// AuditEntries reads records with the names of what they are about.
func AuditEntries(recs []store.AuditRecord, names store.AuditNames) []AuditEntry {
	out := make([]AuditEntry, 0, len(recs))
	for _, r := range recs {
		out = append(out, auditEntry(r, names))
	}
	return out
}

func auditEntry(r store.AuditRecord, names store.AuditNames) AuditEntry {
	e := AuditEntry{AuditRecord: r, FullID: r.SubjectID}
	e.Verb = auditVerbs[r.Action]
	if e.Verb == "" {
		e.Verb = strings.ReplaceAll(r.Action, "_", " ")
	}
	thing, known := auditThings[r.SubjectType]
	if !known {
		thing = strings.ToLower(splitWords(r.SubjectType))
	}
	e.Thing = thing
	name := names.Subjects[r.SubjectType+"/"+r.SubjectID]
	switch {
	case r.SubjectType == "Session" || r.SubjectType == "ExpiryNotice" || r.SubjectType == "AuditLog" || r.SubjectID == "*":
		e.FullID = ""
	case r.SubjectID == "-": // refused before it had an id (a certificate that did not upload)
		e.FullID = ""
		if r.CertificateType != "" {
			e.Thing = "a " + r.CertificateType + " " + e.Thing
		}
	case name != "" && r.SubjectType == "KeyMaterial":
		e.Name = shortID(name) // its kid
		e.FullID = name
	case name != "":
		e.Name = name
	case r.SubjectType == "KeyMaterial" || r.SubjectType == "OrganisationCertificate" || r.SubjectType == "SigningKey" || r.SubjectType == "FederationKey" || uuidRe.MatchString(r.SubjectID):
		e.Name = shortID(r.SubjectID)
	default: // an e-mail, a reference data name: the id is the name
		e.Name = r.SubjectID
	}
	if e.Name == e.FullID {
		e.FullID = ""
	}
	if r.OrganisationID != "" {
		org := names.Organisations[r.OrganisationID]
		if org == "" {
			org = shortID(r.OrganisationID)
		}
		if r.SubjectType != "Organisation" {
			e.OrgName = org
		}
		e.Href = paths.Organisation(r.OrganisationID)
		if r.SubjectType == "Application" {
			e.Href += "/softwarestatements/" + esc(r.SubjectID)
		}
	}
	changes, note := parseSummary(r.Summary)
	e.Note = note
	// Ids in a summary: the thing's own is said already, its organisation's
	// and flags are named; another id shows its start.
	idName := func(v string) (string, bool) {
		switch {
		case v == r.SubjectID && uuidRe.MatchString(v):
			return "", false
		case v == r.OrganisationID && names.Organisations[v] != "":
			return names.Organisations[v], true
		case uuidRe.MatchString(v) && names.Flags[v] == "":
			return shortID(v), true
		}
		return readable(v, names.Flags), true
	}
	for _, c := range changes {
		var keepB, keepA bool
		c.Before, keepB = idName(c.Before)
		c.After, keepA = idName(c.After)
		if keepB && keepA {
			e.Changes = append(e.Changes, c)
		}
	}
	return e
}

var fieldRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*): (.*)$`)

// parseSummary splits "Status: Pending -> Active; Flags: [] -> [\"…\"]" into
// changes; what is not "Field: value" stays a note.
func parseSummary(s string) ([]Change, string) {
	var changes []Change
	var notes []string
	for _, part := range strings.Split(s, "; ") {
		m := fieldRe.FindStringSubmatch(part)
		if m == nil {
			notes = append(notes, part)
			continue
		}
		c := Change{Field: splitWords(m[1])}
		if before, after, ok := strings.Cut(m[2], " -> "); ok {
			c.Before, c.After, c.IsDiff = before, after, true
		} else {
			c.After = m[2]
		}
		changes = append(changes, c)
	}
	return changes, strings.Join(notes, "; ")
}

// readable shows a summary value: a JSON list as "a, b" (flag ids as
// names), "(none)" for nothing.
func readable(v string, flags map[string]string) string {
	if strings.TrimSpace(v) == "" {
		return "(none)"
	}
	var list []string
	if strings.HasPrefix(v, "[") && json.Unmarshal([]byte(v), &list) == nil {
		for i, x := range list {
			if n := flags[x]; n != "" {
				list[i] = n
			}
		}
		if len(list) == 0 {
			return "(none)"
		}
		return strings.Join(list, ", ")
	}
	if n := flags[v]; n != "" {
		return n
	}
	return v
}

// splitWords is "OrganisationName" as "Organisation name"; "backchannel_token_delivery_mode" as "backchannel token delivery mode".
func splitWords(s string) string {
	if strings.Contains(s, "_") {
		return strings.ReplaceAll(s, "_", " ")
	}
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
			b.WriteByte(' ')
			// Keep acronyms (URI, ID) and proper nouns upper case.
			if i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
				r = unicode.ToLower(r)
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}
