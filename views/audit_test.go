package views

import (
	"strings"
	"testing"
	"unicode"

	"github.com/trustframe/trustframe/store"
)

func TestAuditEntryReadsAsASentence(t *testing.T) {
	org := "6b3ede61-7d34-44da-99b8-0140aa3689da"
	app := "3bde5b87-affc-4c6b-947a-186add4be954"
	flag := "0238e269-a2b4-4fb5-a68f-ab5ab155c1cf"
	names := store.AuditNames{
		Subjects:      map[string]string{"Organisation/" + org: "Acme Bank", "Application/" + app: "Payments app"},
		Organisations: map[string]string{org: "Acme Bank"},
		Flags:         map[string]string{flag: "Pilot"},
	}
	for _, c := range []struct {
		rec     store.AuditRecord
		what    string
		changes []string
		note    string
	}{
		{store.AuditRecord{Action: "update", SubjectType: "Organisation", SubjectID: org, OrganisationID: org,
			Summary: `Flags: [] -> ["` + flag + `"]; LegalEntityName: (none) -> Acme Bank plc`},
			"updated organisation Acme Bank", []string{"Flags: (none) → Pilot", "Legal entity name: (none) → Acme Bank plc"}, ""},
		{store.AuditRecord{Action: "create", SubjectType: "Application", SubjectID: app, OrganisationID: org,
			Summary: `ClientName: Payments app; OrganisationId: ` + org + `; SoftwareStatementId: ` + app},
			"created application Payments app", []string{"Client name: Payments app", "Organisation id: Acme Bank"}, ""},
		{store.AuditRecord{Action: "create", SubjectType: "Flag", SubjectID: flag, Summary: "FlagId: " + flag + "; Name: Pilot"},
			"created flag 0238e269…", []string{"Name: Pilot"}, ""},
		{store.AuditRecord{Action: "create", SubjectType: "SuperUser", SubjectID: "administrator@example.com", Summary: "Status: Active"},
			"created Super User administrator@example.com", []string{"Status: Active"}, ""},
		{store.AuditRecord{Action: "key_create", SubjectType: "SigningKey", SubjectID: "Vj5cQ2x9lq0bW3nYtZk8", Summary: "alg ES256; signs from now on"},
			"created signing key Vj5c…", nil, "alg ES256; signs from now on"},
		{store.AuditRecord{Action: "key_create", SubjectType: "FederationKey", SubjectID: "pQ7rS9tU1vW3xY5zA7bC", Summary: "alg ES256"},
			"created federation signing key pQ7r…", nil, "alg ES256"},
		{store.AuditRecord{Action: "upload_refused", SubjectType: "OrganisationCertificate", SubjectID: "-", OrganisationID: org, CertificateType: "QWAC",
			Summary: "The certificate has expired."},
			"was refused uploading a QWAC certificate", nil, "The certificate has expired."},
		{store.AuditRecord{Action: "delete", SubjectType: "Contact", SubjectID: "9d0a1b2c-0000-4000-8000-000000000000", OrganisationID: org, Summary: "deleted FirstName: Ann"},
			"deleted contact 9d0a1b2c…", nil, "deleted FirstName: Ann"},
	} {
		e := auditEntry(c.rec, names)
		if e.What() != c.what {
			t.Errorf("%s %s: %q, want %q", c.rec.Action, c.rec.SubjectType, e.What(), c.what)
		}
		var got []string
		for _, ch := range e.Changes {
			if ch.IsDiff {
				got = append(got, ch.Field+": "+ch.Before+" → "+ch.After)
			} else {
				got = append(got, ch.Field+": "+ch.After)
			}
		}
		if strings.Join(got, "|") != strings.Join(c.changes, "|") {
			t.Errorf("%s: changes %q, want %q", c.what, got, c.changes)
		}
		if e.Note != c.note {
			t.Errorf("%s: note %q, want %q", c.what, e.Note, c.note)
		}
	}
}

// Every subject type a webhook can subscribe to reads as words, not as its
// API name, and none is left empty.
func TestSubjectTypeLabelReadsAsWords(t *testing.T) {
	want := map[string]string{
		"AuthorisationServer": "Authorisation server", "KeyMaterial": "Key material",
		"DataAdministrator": "Data Administrator", "AuthorityClaim": "Authority claim",
		"Session": "Sign-in and sign-out", "ExpiryNotice": "Expiry notice", "RoleMetadataPolicy": "Role metadata policy",
	}
	for typ, w := range want {
		if got := SubjectTypeLabel(typ); got != w {
			t.Errorf("SubjectTypeLabel(%q) = %q, want %q", typ, got, w)
		}
	}
	for _, typ := range store.WebhookSubjectTypes {
		got := SubjectTypeLabel(typ)
		if got == "" || got == typ && strings.ContainsFunc(typ[1:], unicode.IsUpper) {
			t.Errorf("SubjectTypeLabel(%q) = %q: not words", typ, got)
		}
	}
}
