package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/trustframe/trustframe/directory"
)

// AuditRecord is one entry of the audit log (directory.AuditRecord).
type AuditRecord = directory.AuditRecord

// Audit names who does a change; every write method takes one.
type Audit = directory.Actor

// withReason adds the reason an administrator gave to an audit summary.
func withReason(summary, reason string) string {
	if reason == "" {
		return summary
	}
	return summary + "; reason: " + reason
}

// updateAction names an update of something with a status for the audit
// log: a reactivation (leaving the end state), a status change, or an update.
func updateAction(from, to string) string {
	switch {
	case from == to:
		return "update"
	case from == "Withdrawn":
		return "reactivate"
	default:
		return "status"
	}
}

const auditInsert = `INSERT INTO audit_log
		(at, actor, action, subject_type, subject_id, organisation_id, key_id, certificate_type, summary)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

func (d *DB) writeAudit(ctx context.Context, tx *sql.Tx, r AuditRecord) error {
	_, err := d.insertAudit(ctx, tx, r, false)
	return err
}

// errUnchanged ends the transaction of an update that changes nothing:
// it is rolled back (UpdatedOn, the ETag, the audit log, the change feed
// and webhooks stay as they were) and tx answers success, so the update
// returns the resource as it is (docs/design.md §4).
var errUnchanged = errors.New("store: the update changes nothing")

// writeUpdateAudit writes an update's record, or ends an update whose
// summary is "no change" (diff) with errUnchanged. Only for resources
// whose every field is in their JSON (diff compares the JSON).
func (d *DB) writeUpdateAudit(ctx context.Context, tx *sql.Tx, r AuditRecord) error {
	if r.Summary == "no change" {
		return errUnchanged
	}
	return d.writeAudit(ctx, tx, r)
}

// auditIfKeyActive writes an SSA's record only while the key that signed it
// is still Active in the same transaction.
const auditIfKeyActive = `INSERT INTO audit_log
		(at, actor, action, subject_type, subject_id, organisation_id, key_id, certificate_type, summary)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM ssa_keys WHERE kid = ? AND status = 'Active')`

// insertAudit writes r and reports whether it was written. signedBy says
// r is an SSA's record, written only while the SSA key r.KeyID is Active
// (RecordSSA): otherwise nothing is written.
func (d *DB) insertAudit(ctx context.Context, tx *sql.Tx, r AuditRecord, signedBy bool) (bool, error) {
	query := auditInsert
	args := []any{d.stamp(), r.Actor, r.Action, r.SubjectType, r.SubjectID, r.OrganisationID, r.KeyID, r.CertificateType, r.Summary}
	if signedBy {
		query, args = auditIfKeyActive, append(args, r.KeyID)
	}
	// Only a statement prepared already (Open prepares both): preparing one
	// here would take a second connection from the pool while this
	// transaction holds the write lock, and with every other connection
	// held by writers waiting for that lock, none would come until their
	// busy timeout failed them (TestChangeFeedUnderConcurrentWriters).
	var res sql.Result
	var err error
	if st, ok := d.stmts.Load(query); ok {
		res, err = tx.StmtContext(ctx, st.(*sql.Stmt)).ExecContext(ctx, args...)
	} else {
		res, err = tx.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return false, fmt.Errorf("store: audit: %w", err)
	}
	if !signedBy {
		return true, nil
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: audit: %w", err)
	}
	return n == 1, nil
}

// RecordEvent writes an audit record that goes with no other change (a
// sign-in) and returns once it is durable; records of concurrent events
// share one transaction (group commit, groupcommit.go).
func (d *DB) RecordEvent(ctx context.Context, r AuditRecord) error {
	return d.recordGrouped(ctx, r, false)
}

// AuditFilter selects audit records (directory.AuditFilter).
type AuditFilter = directory.AuditFilter

// auditWhere is the WHERE clause of the records f selects and its
// arguments.
func auditWhere(f AuditFilter) (string, []any) {
	return auditWhereAt(f, "at")
}

// auditWhereAt is auditWhere with the time column written as at: "+at"
// keeps SQLite from reading the time range through audit_at (ListAudit).
func auditWhereAt(f AuditFilter, at string) (string, []any) {
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
	// A key ID matches by prefix: a kid is long, people paste its start.
	if f.KeyID != "" {
		// substr, not LIKE: LIKE ignores case and kids are case-sensitive.
		where += ` AND substr(key_id, 1, ?) = ?`
		args = append(args, utf8.RuneCountInString(f.KeyID), f.KeyID)
	}
	add("certificate_type", f.CertificateType)
	add("action", f.Action)
	add("actor", f.Actor)
	// Stamps are RFC 3339 in UTC with a fixed "T" and "Z": they sort as text
	// within a second; compare at second precision and round the bounds.
	if !f.From.IsZero() {
		where += " AND " + at + " >= ?"
		args = append(args, f.From.UTC().Format("2006-01-02T15:04:05"))
	}
	if !f.To.IsZero() {
		where += " AND " + at + " < ?"
		args = append(args, f.To.UTC().Format("2006-01-02T15:04:05"))
	}
	return where, args
}

const auditCols = `id, at, actor, action, subject_type, subject_id, organisation_id, key_id, certificate_type, summary`

func scanAudit(row rowScanner) (AuditRecord, error) {
	var r AuditRecord
	var at string
	err := row.Scan(&r.ID, &at, &r.Actor, &r.Action, &r.SubjectType, &r.SubjectID, &r.OrganisationID, &r.KeyID, &r.CertificateType, &r.Summary)
	r.At = parseStamp(at)
	return r, err
}

// EachAudit calls fn for every record that matches the filter, oldest
// first, from one query (a consistent read); it stops at fn's first error.
func (d *DB) EachAudit(ctx context.Context, f AuditFilter, fn func(AuditRecord) error) error {
	where, args := auditWhere(f)
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
//
// With a time range the count also finds the lowest and highest id that
// match, from the same pass over audit_at; the page is then read walking
// the ids down from the highest within those bounds. Without them a time range was
// read through audit_at and every record in it sorted by id to find the
// newest twenty (0.8 s for a range of a million records, docs/benchmarks.md
// "The audit page on a million records").
func (d *DB) ListAudit(ctx context.Context, f AuditFilter) ([]AuditRecord, int, error) {
	where, args := auditWhere(f)
	var total int
	if f.From.IsZero() && f.To.IsZero() {
		if err := d.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM audit_log "+where, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("store: count audit: %w", err)
		}
	} else {
		var lo, hi sql.NullInt64
		if err := d.db.QueryRowContext(ctx, "SELECT COUNT(*), MIN(id), MAX(id) FROM audit_log "+where, args...).Scan(&total, &lo, &hi); err != nil {
			return nil, 0, fmt.Errorf("store: count audit: %w", err)
		}
		if d.engine != Postgres {
			where, args = auditWhereAt(f, "+at")
		}
		where += " AND id BETWEEN ? AND ?"
		args = append(args, lo.Int64, hi.Int64)
	}
	if f.Size <= 0 {
		f.Size = 20
	}
	if total == 0 {
		return []AuditRecord{}, 0, nil
	}
	out, err := queryList(ctx, d.db, scanAudit, `SELECT `+auditCols+` FROM audit_log `+where+` ORDER BY id DESC LIMIT ? OFFSET ?`,
		append(args, f.Size, f.Page*f.Size)...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list audit: %w", err)
	}
	return out, total, nil
}

// LatestAudit returns the n newest audit records (no total: the home page
// needs no count of a log that only grows).
func (d *DB) LatestAudit(ctx context.Context, n int) ([]AuditRecord, error) {
	out, err := queryList(ctx, d.db, scanAudit, `SELECT `+auditCols+` FROM audit_log ORDER BY id DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("store: latest audit: %w", err)
	}
	return out, nil
}

// The audit filter lists' queries read audit_actions alone
// (TestAuditFilterListsReadNoRecords).
const (
	auditActionsSQL       = `SELECT DISTINCT action FROM audit_actions ORDER BY action`
	auditActionsOfTypeSQL = `SELECT action FROM audit_actions WHERE subject_type = ? ORDER BY action`
	auditSubjectTypesSQL  = `SELECT DISTINCT subject_type FROM audit_actions ORDER BY subject_type`
)

// auditActionsOfSubjectSQL lists one subject's actions from its records.
func auditActionsOfSubjectSQL(subjectType, subjectID string) (string, []any) {
	where, args := auditWhere(AuditFilter{SubjectType: subjectType, SubjectID: subjectID})
	return `SELECT DISTINCT action FROM audit_log ` + where + ` ORDER BY action`, args
}

// AuditActions lists the actions the audit log holds (for the Action
// filter), sorted, restricted by subject type and id when given. Without
// a subject id they come from audit_actions, the (subject type, action)
// pairs the log holds, kept by a trigger on every insert (migration 0028;
// docs/design.md §9): a DISTINCT over the log read all of it, and it
// grows by a record per SSA issued. One subject's actions are read from
// its own records through the audit_subject index.
func (d *DB) AuditActions(ctx context.Context, subjectType, subjectID string) ([]string, error) {
	var q string
	var args []any
	switch {
	case subjectID != "":
		q, args = auditActionsOfSubjectSQL(subjectType, subjectID)
	case subjectType != "":
		q, args = auditActionsOfTypeSQL, []any{subjectType}
	default:
		q = auditActionsSQL
	}
	out, err := queryList(ctx, d.db, scanString, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: audit actions: %w", err)
	}
	return out, nil
}

// AuditSubjectTypes lists the subject types the audit log holds (for the
// Subject type filter of the audit page), sorted, from audit_actions (see
// AuditActions).
func (d *DB) AuditSubjectTypes(ctx context.Context) ([]string, error) {
	out, err := queryList(ctx, d.db, scanString, auditSubjectTypesSQL)
	if err != nil {
		return nil, fmt.Errorf("store: audit subject types: %w", err)
	}
	return out, nil
}

// AuditNames are the names of what audit records are about
// (directory.AuditNames).
type AuditNames = directory.AuditNames

// auditNameQueries finds the name of a subject by type; subjects whose id
// is already a name (e-mails, reference data names, kids) have none.
var auditNameQueries = map[string]string{
	"Organisation":        `SELECT name FROM organisations WHERE organisation_id = ?`,
	"Application":         `SELECT client_name FROM software_statements WHERE software_statement_id = ?`,
	"AuthorisationServer": `SELECT customer_friendly_name FROM authorisation_servers WHERE authorisation_server_id = ?`,
	"Contact":             `SELECT trim(first_name || ' ' || last_name) FROM contacts WHERE contact_id = ?`,
	"Flag":                `SELECT name FROM flags WHERE flag_id = ?`,
	"Document":            `SELECT trim(document_type || ' ' || reference_number) FROM documents WHERE document_id = ?`,
	"Certification": `SELECT c.certification_type || ' of ' || COALESCE(s.client_name, a.customer_friendly_name, '?') FROM certifications c
		LEFT JOIN software_statements s ON c.subject_type = 'SoftwareStatement' AND s.software_statement_id = c.subject_id
		LEFT JOIN authorisation_servers a ON c.subject_type = 'AuthorisationServer' AND a.authorisation_server_id = c.subject_id
		WHERE c.certification_id = ?`,
	"RoleMetadataPolicy": `SELECT role || ' ' || entity_type FROM role_metadata_policies WHERE policy_id = ?`,
	"KeyMaterial":        `SELECT kid FROM key_material WHERE key_material_id = ?`,
	"Authority":          `SELECT name FROM authorities WHERE authority_id = ?`,
	"Webhook":            `SELECT url FROM webhooks WHERE webhook_id = ?`,
	"AuthorityClaim": `SELECT c.domain || '/' || c.role || ' by ' || a.name FROM organisation_authority_claims c
		JOIN authorities a ON a.authority_id = c.authority_id WHERE c.claim_id = ?`,
}

// NamesForAudit looks up the names of the subjects and organisations of
// records (one query per distinct thing: a page holds a few dozen).
func (d *DB) NamesForAudit(ctx context.Context, recs []AuditRecord) (AuditNames, error) {
	n := AuditNames{Subjects: map[string]string{}, Organisations: map[string]string{}, Flags: map[string]string{}}
	one := func(q, id string) (string, error) {
		var name string
		err := d.db.QueryRowContext(ctx, q, id).Scan(&name)
		if err == sql.ErrNoRows {
			return "", nil
		}
		return name, err
	}
	for _, r := range recs {
		if q, ok := auditNameQueries[r.SubjectType]; ok {
			key := r.SubjectType + "/" + r.SubjectID
			if _, done := n.Subjects[key]; !done {
				name, err := one(q, r.SubjectID)
				if err != nil {
					return n, fmt.Errorf("store: audit names: %w", err)
				}
				n.Subjects[key] = name
			}
		}
		if r.OrganisationID != "" {
			if _, done := n.Organisations[r.OrganisationID]; !done {
				name, err := one(auditNameQueries["Organisation"], r.OrganisationID)
				if err != nil {
					return n, fmt.Errorf("store: audit names: %w", err)
				}
				n.Organisations[r.OrganisationID] = name
			}
		}
	}
	rows, err := d.db.QueryContext(ctx, `SELECT flag_id, name FROM flags`)
	if err != nil {
		return n, fmt.Errorf("store: audit names: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return n, err
		}
		n.Flags[id] = name
	}
	return n, rows.Err()
}

// diff summarises what changed between two versions of a resource, for the
// audit log: "Field: old -> new; …". Timestamps are left out.
func diff(before, after any) string {
	ab, _ := json.Marshal(before)
	bb, _ := json.Marshal(after)
	// Numbers as their text: as float64, two integers past 2^53 (in a
	// policy's JSON) would compare equal and a change would be dropped.
	a, b := decodeNumbers(ab), decodeNumbers(bb)
	// Both sides' members: an optional member that became empty is left
	// out of the JSON after (omitempty), and is still a change.
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		if k == "CreatedOn" || k == "UpdatedOn" {
			continue
		}
		if !reflect.DeepEqual(a[k], b[k]) {
			parts = append(parts, fmt.Sprintf("%s: %s -> %s", k, short(a[k]), short(b[k])))
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, "; ")
}

// decodeNumbers is the JSON object b, its numbers as json.Number.
func decodeNumbers(b []byte) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&m)
	return m
}

// created summarises a new resource for the audit log.
func created(v any) string {
	var m map[string]any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &m)
	keys := make([]string, 0, len(m))
	for k, val := range m {
		if val == nil || val == "" || k == "CreatedOn" || k == "UpdatedOn" {
			continue
		}
		if l, ok := val.([]any); ok && len(l) == 0 {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+": "+short(m[k]))
	}
	return strings.Join(parts, "; ")
}

func short(v any) string {
	if v == nil {
		return "(none)"
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
		if s == "" {
			return "(none)"
		}
	default:
		b, _ := json.Marshal(x)
		s = string(b)
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
