package directory

import (
	"context"
	"strconv"
	"time"
)

// AuditRecord is one append-only entry of the audit log (docs/design.md §9).
type AuditRecord struct {
	ID              int64     `json:"AuditId"`
	At              time.Time `json:"Timestamp"`
	Actor           string    `json:"Actor"`
	Action          string    `json:"Action"`
	SubjectType     string    `json:"SubjectType"`
	SubjectID       string    `json:"SubjectId"`
	OrganisationID  string    `json:"OrganisationId,omitempty"`
	KeyID           string    `json:"KeyId,omitempty"`
	CertificateType string    `json:"CertificateType,omitempty"`
	Summary         string    `json:"Summary"`
}

// AuditFilter selects audit records; empty fields match everything.
type AuditFilter struct {
	SubjectType     string
	SubjectID       string
	OrganisationID  string
	KeyID           string // matches by prefix: a kid is long, people paste its start
	CertificateType string
	Action          string
	Actor           string
	From, To        time.Time // records at or after From and before To; zero: open
	Page, Size      int
}

// AuditNames are the current names of what audit records are about, so a
// page can say "updated organisation Acme Bank" instead of an id. A thing
// deleted since has no name; the page shows its id.
type AuditNames struct {
	Subjects      map[string]string // SubjectType + "/" + SubjectID -> name
	Organisations map[string]string // OrganisationID -> name
	Flags         map[string]string // FlagID -> name
}

// AuditColumns is the header of the audit log's CSV export; AuditRow
// writes a record in this order.
var AuditColumns = []string{"AuditId", "Timestamp", "Actor", "Action", "SubjectType", "SubjectId", "OrganisationId", "KeyId", "CertificateType", "Summary"}

// AuditRow is a as a row of the audit log's CSV export, each text guarded
// (Guard): actors and summaries hold what people typed.
func AuditRow(a AuditRecord) []string {
	row := []string{strconv.FormatInt(a.ID, 10), a.At.UTC().Format(time.RFC3339Nano)}
	for _, s := range []string{a.Actor, a.Action, a.SubjectType, a.SubjectID, a.OrganisationID, a.KeyID, a.CertificateType, a.Summary} {
		row = append(row, Guard(s))
	}
	return row
}

// AuditStore is what the audit log's reads need of the database.
type AuditStore interface {
	ListAudit(ctx context.Context, f AuditFilter) ([]AuditRecord, int, error)
	EachAudit(ctx context.Context, f AuditFilter, fn func(AuditRecord) error) error
	LatestAudit(ctx context.Context, n int) ([]AuditRecord, error)
	AuditActions(ctx context.Context, subjectType, subjectID string) ([]string, error)
	AuditSubjectTypes(ctx context.Context) ([]string, error)
	NamesForAudit(ctx context.Context, recs []AuditRecord) (AuditNames, error)
	RecordEvent(ctx context.Context, r AuditRecord) error
}

// AuditPage is a page of audit records and, for the console, what is shown
// beside them: the names of what they are about and the choices of the
// filters.
type AuditPage struct {
	Records      []AuditRecord
	Total        int
	Names        AuditNames
	Actions      []string // the Action filter's choices
	SubjectTypes []string // the Subject filter's choices (the whole log's page)
}

// AuditLog is the use cases of the audit log: reading it and noting events
// that change nothing else.
type AuditLog struct {
	Store AuditStore
}

// List is the page of the whole log that f selects, newest first; for the
// console (console true) with the names and the choices of every action
// and subject type.
func (l *AuditLog) List(ctx context.Context, f AuditFilter, console bool) (AuditPage, error) {
	var p AuditPage
	var err error
	if p.Records, p.Total, err = l.Store.ListAudit(ctx, f); err != nil || !console {
		return p, err
	}
	if p.SubjectTypes, err = l.Store.AuditSubjectTypes(ctx); err != nil {
		return p, err
	}
	return p, l.readable(ctx, &p, "", "")
}

// Choices is the filters' choices alone, for the console's log page when
// its filters are refused and no record is read.
func (l *AuditLog) Choices(ctx context.Context) (AuditPage, error) {
	var p AuditPage
	var err error
	if p.SubjectTypes, err = l.Store.AuditSubjectTypes(ctx); err != nil {
		return p, err
	}
	return p, l.readable(ctx, &p, "", "")
}

// Of is the page of one subject's records f selects (f's SubjectType, and
// SubjectID when given: an organisation's certificates, an application);
// for the console with the names and the actions that subject's records
// hold.
func (l *AuditLog) Of(ctx context.Context, f AuditFilter, console bool) (AuditPage, error) {
	var p AuditPage
	var err error
	if p.Records, p.Total, err = l.Store.ListAudit(ctx, f); err != nil || !console {
		return p, err
	}
	return p, l.readable(ctx, &p, f.SubjectType, f.SubjectID)
}

// readable fills p's names and the actions of the subject (all when none).
func (l *AuditLog) readable(ctx context.Context, p *AuditPage, subjectType, subjectID string) error {
	var err error
	if p.Names, err = l.Store.NamesForAudit(ctx, p.Records); err != nil {
		return err
	}
	p.Actions, err = l.Store.AuditActions(ctx, subjectType, subjectID)
	return err
}

// Export hands row every record f selects as a row of the CSV export
// (AuditRow), oldest first, from one consistent read; it stops at row's
// first error.
func (l *AuditLog) Export(ctx context.Context, f AuditFilter, row func([]string) error) error {
	return l.Store.EachAudit(ctx, f, func(a AuditRecord) error { return row(AuditRow(a)) })
}

// Record writes r, an event that goes with no other change (a download),
// and returns once it is durable.
func (l *AuditLog) Record(ctx context.Context, r AuditRecord) error {
	return l.Store.RecordEvent(ctx, r)
}
