package store

import (
	"context"
	"database/sql"
	"fmt"
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

// Audit names who does a change; every write method takes one.
type Audit struct {
	Actor string
}

const auditInsert = `INSERT INTO audit_log
		(at, actor, action, subject_type, subject_id, organisation_id, key_id, certificate_type, summary)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

func (d *DB) writeAudit(ctx context.Context, tx *sql.Tx, r AuditRecord) error {
	args := []any{d.stamp(), r.Actor, r.Action, r.SubjectType, r.SubjectID, r.OrganisationID, r.KeyID, r.CertificateType, r.Summary}
	var err error
	if st, perr := d.prepared(ctx, auditInsert); perr == nil {
		_, err = tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	} else {
		_, err = tx.ExecContext(ctx, auditInsert, args...)
	}
	if err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	return nil
}

// RecordEvent writes an audit record that goes with no other change (a sign-in).
func (d *DB) RecordEvent(ctx context.Context, r AuditRecord) error {
	return d.tx(ctx, func(tx *sql.Tx) error { return d.writeAudit(ctx, tx, r) })
}

// AuditFilter selects audit records; empty fields match everything.
type AuditFilter struct {
	SubjectType     string
	SubjectID       string
	OrganisationID  string
	KeyID           string
	CertificateType string
	Action          string
	Actor           string
	From, To        time.Time // records at or after From and before To; zero: open
	Page, Size      int
}

func (f AuditFilter) where() (string, []any) {
	where := "WHERE 1=1"
	var args []any
	add := func(col, v string) {
		if v != "" {
			where += " AND " + col + " = ?"
			args = append(args, v)
		}
	}
	add("subject_type", f.SubjectType)
	add("subject_id", f.SubjectID)
	add("organisation_id", f.OrganisationID)
	add("key_id", f.KeyID)
	add("certificate_type", f.CertificateType)
	add("action", f.Action)
	add("actor", f.Actor)
	// Stamps are RFC 3339 in UTC with a fixed "T" and "Z": they sort as text
	// within a second; compare at second precision and round the bounds.
	if !f.From.IsZero() {
		where += " AND at >= ?"
		args = append(args, f.From.UTC().Format("2006-01-02T15:04:05"))
	}
	if !f.To.IsZero() {
		where += " AND at < ?"
		args = append(args, f.To.UTC().Format("2006-01-02T15:04:05"))
	}
	return where, args
}

const auditCols = `id, at, actor, action, subject_type, subject_id, organisation_id, key_id, certificate_type, summary`

func scanAudit(row interface{ Scan(...any) error }) (AuditRecord, error) {
	var r AuditRecord
	var at string
	err := row.Scan(&r.ID, &at, &r.Actor, &r.Action, &r.SubjectType, &r.SubjectID, &r.OrganisationID, &r.KeyID, &r.CertificateType, &r.Summary)
	r.At = parseStamp(at)
	return r, err
}

// EachAudit calls fn for every record that matches the filter, oldest
// first, from one query (a consistent read); it stops at fn's first error.
func (d *DB) EachAudit(ctx context.Context, f AuditFilter, fn func(AuditRecord) error) error {
	where, args := f.where()
	rows, err := d.db.QueryContext(ctx, `SELECT `+auditCols+` FROM audit_log `+where+` ORDER BY id`, args...)
	if err != nil {
		return fmt.Errorf("store: export audit: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanAudit(rows)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ListAudit returns one page of audit records, newest first, and the total.
func (d *DB) ListAudit(ctx context.Context, f AuditFilter) ([]AuditRecord, int, error) {
	where, args := f.where()
	var total int
	if err := d.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM audit_log "+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count audit: %w", err)
	}
	if f.Size <= 0 {
		f.Size = 20
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+auditCols+` FROM audit_log `+where+` ORDER BY id DESC LIMIT ? OFFSET ?`,
		append(args, f.Size, f.Page*f.Size)...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list audit: %w", err)
	}
	defer rows.Close()
	var out []AuditRecord
	for rows.Next() {
		r, err := scanAudit(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// LatestAudit returns the n newest audit records (no total: the home page
// needs no count of a log that only grows).
func (d *DB) LatestAudit(ctx context.Context, n int) ([]AuditRecord, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+auditCols+` FROM audit_log ORDER BY id DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("store: latest audit: %w", err)
	}
	defer rows.Close()
	var out []AuditRecord
	for rows.Next() {
		r, err := scanAudit(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
