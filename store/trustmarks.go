package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// Trust marks (docs/design.md §17) are the application layer's
// (directory/trustmarks.go).
type (
	TrustMarkType   = directory.TrustMarkType
	IssuedTrustMark = directory.IssuedTrustMark
	Entitlement     = directory.Entitlement
)

const tmtCols = `id, trust_mark_type, name, description, basis, authorisation_domain, role, certification_type, lifetime, logo_uri, ref, status, created_on, updated_on`

func scanTrustMarkType(row rowScanner) (TrustMarkType, error) {
	var t TrustMarkType
	var cr, up string
	err := row.Scan(&t.ID, &t.TrustMarkType, &t.Name, &t.Description, &t.Basis, &t.AuthorisationDomain, &t.Role, &t.CertificationType,
		&t.Lifetime, &t.LogoURI, &t.Ref, &t.Status, &cr, &up)
	t.CreatedOn, t.UpdatedOn = parseStamp(cr), parseStamp(up)
	return t, err
}

// ListTrustMarkTypes returns every trust mark type, by name.
func (d *DB) ListTrustMarkTypes(ctx context.Context) ([]TrustMarkType, error) {
	return queryList(ctx, d.db, scanTrustMarkType, `SELECT `+tmtCols+` FROM trust_mark_types ORDER BY name, id`)
}

// GetTrustMarkType returns one trust mark type or ErrNotFound.
func (d *DB) GetTrustMarkType(ctx context.Context, id string) (TrustMarkType, error) {
	return queryOne(ctx, d.db, scanTrustMarkType, `SELECT `+tmtCols+` FROM trust_mark_types WHERE id = ?`, id)
}

// TrustMarkTypeByURL returns the type whose URL is trustMarkType, or
// ErrNotFound. It is asked on every trust mark request: the answer is kept
// while the directory is unchanged (readcache.go; a type's every change
// bumps the directory version, on any instance through Sync) and for at
// most ReadCacheAge. An unknown URL is not kept.
func (d *DB) TrustMarkTypeByURL(ctx context.Context, trustMarkType string) (TrustMarkType, error) {
	return cached(ctx, d, &d.markTypes, trustMarkType, func() (TrustMarkType, error) {
		return queryOne(ctx, d.hot(), scanTrustMarkType, `SELECT `+tmtCols+` FROM trust_mark_types WHERE trust_mark_type = ?`, trustMarkType)
	})
}

// checkTrustMarkBasis adds to problems what only the database can judge of
// a type: its URL taken by another type, its role not a role of its
// domain, its certification type unknown.
func checkTrustMarkBasis(ctx context.Context, tx *sql.Tx, t TrustMarkType, problems directory.Fields) error {
	var n int
	if t.TrustMarkType != "" {
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM trust_mark_types WHERE trust_mark_type = ? AND id <> ?`, t.TrustMarkType, t.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			problems.Add("TrustMarkType", "Another trust mark type has this URL.")
		}
	}
	switch t.Basis {
	case directory.TrustMarkBasisRole:
		if t.AuthorisationDomain == "" || t.Role == "" {
			return nil
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM authorisation_domains WHERE name = ?`, t.AuthorisationDomain).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			problems.Add("AuthorisationDomain", fmt.Sprintf("There is no authorisation domain %q.", t.AuthorisationDomain))
			return nil
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM authorisation_domain_roles WHERE domain = ? AND name = ?`, t.AuthorisationDomain, t.Role).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			problems.Add("Role", fmt.Sprintf("The authorisation domain %s has no role %q.", t.AuthorisationDomain, t.Role))
		}
	case directory.TrustMarkBasisCertification:
		if t.CertificationType == "" {
			return nil
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM certification_types WHERE name = ?`, t.CertificationType).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			problems.Add("CertificationType", fmt.Sprintf("There is no certification type %q.", t.CertificationType))
		}
	}
	return nil
}

// trustMarkNameTaken refuses in problems a name another type has (in
// any letter case): the console lists types by name, and two alike would
// read as one.
func trustMarkNameTaken(ctx context.Context, tx *sql.Tx, t TrustMarkType, problems directory.Fields) error {
	if strings.TrimSpace(t.Name) == "" {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM trust_mark_types WHERE lower(name) = lower(?) AND id <> ?`, t.Name, t.ID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		problems.Add("Name", fmt.Sprintf("Another trust mark type is called %q: choose another name.", t.Name))
	}
	return nil
}

// CreateTrustMarkType adds a type. problems are what the caller found
// already; the database's checks are added and when any remains nothing is
// written. An Id the client chose that is taken is a conflict.
func (d *DB) CreateTrustMarkType(ctx context.Context, a Audit, t TrustMarkType, problems directory.Fields) (TrustMarkType, error) {
	if t.ID == "" {
		t.ID = NewID()
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		if err := checkTrustMarkBasis(ctx, tx, t, problems); err != nil {
			return err
		}
		if err := trustMarkNameTaken(ctx, tx, t, problems); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM trust_mark_types WHERE id = ?`, t.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: "a trust mark type with Id " + t.ID + " exists"}
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO trust_mark_types(`+tmtCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			t.ID, t.TrustMarkType, t.Name, t.Description, t.Basis, t.AuthorisationDomain, t.Role, t.CertificationType,
			t.Lifetime, t.LogoURI, t.Ref, t.Status, now, now); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "TrustMarkType", SubjectID: t.ID, Summary: created(t)})
	})
	if err != nil {
		return TrustMarkType{}, err
	}
	return d.GetTrustMarkType(ctx, t.ID)
}

// UpdateTrustMarkType replaces a type's fields but its URL, which cannot
// change (left out, it is kept, as is a Status left out). Marks of the
// type whose subjects the changed type no longer entitles (it is
// Inactive, or names another role or certification) are revoked in the
// same transaction.
func (d *DB) UpdateTrustMarkType(ctx context.Context, a Audit, t TrustMarkType, problems directory.Fields, check directory.Check[TrustMarkType]) (TrustMarkType, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		cur, err := queryOne(ctx, tx, scanTrustMarkType, `SELECT `+tmtCols+` FROM trust_mark_types WHERE id = ?`, t.ID)
		if err != nil {
			return err
		}
		if t.TrustMarkType == "" {
			t.TrustMarkType = cur.TrustMarkType
		} else if t.TrustMarkType != cur.TrustMarkType {
			problems.Add("TrustMarkType", "The trust mark type cannot change: the marks issued name it.")
		}
		if t.Status == "" {
			t.Status = cur.Status
		}
		if err := checkTrustMarkBasis(ctx, tx, t, problems); err != nil {
			return err
		}
		if !strings.EqualFold(t.Name, cur.Name) { // a name stored before the rule is kept
			if err := trustMarkNameTaken(ctx, tx, t, problems); err != nil {
				return err
			}
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE trust_mark_types SET name=?, description=?, basis=?, authorisation_domain=?, role=?, certification_type=?,
			lifetime=?, logo_uri=?, ref=?, status=?, updated_on=? WHERE id=?`,
			t.Name, t.Description, t.Basis, t.AuthorisationDomain, t.Role, t.CertificationType, t.Lifetime, t.LogoURI, t.Ref, t.Status, d.stamp(), t.ID); err != nil {
			return err
		}
		next := t
		next.CreatedOn, next.UpdatedOn, cur.UpdatedOn = cur.CreatedOn, time.Time{}, time.Time{}
		if err := d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: updateAction(cur.Status, t.Status), SubjectType: "TrustMarkType", SubjectID: t.ID,
			Summary: diff(cur, next)}); err != nil {
			return err
		}
		return d.revokeLapsedMarks(ctx, tx, a, lapseScope{typeID: t.ID})
	})
	if err != nil {
		return TrustMarkType{}, err
	}
	return d.GetTrustMarkType(ctx, t.ID)
}

// Entitled lists the subjects entitled now to t (docs/design.md §17), or
// only sub when it is not "".
func (d *DB) Entitled(ctx context.Context, t TrustMarkType, sub string, now time.Time) ([]Entitlement, error) {
	return entitled(ctx, d.hot(), t, sub, "", now)
}

// entitledSelect is the subordinates of §13 (Active, of an Active
// organisation, with an entity ID) with %[1]s joined and %[2]s more
// conditions; each row names the subject, its organisation, an
// application's roles and %[3]s (a certification's end, or empty text).
const entitledSelect = `SELECT s.federation_entity_id, 'Application', s.software_statement_id, s.client_name, o.organisation_id, s.roles, %[3]s
	FROM software_statements s JOIN organisations o ON o.organisation_id = s.organisation_id %[1]s
	WHERE s.federation_entity_id <> '' AND s.status = 'Active' AND o.status = 'Active' %[2]s
	UNION ALL
	SELECT s.federation_entity_id, 'AuthorisationServer', s.authorisation_server_id, s.customer_friendly_name, o.organisation_id, '', %[3]s
	FROM authorisation_servers s JOIN organisations o ON o.organisation_id = s.organisation_id %[4]s
	WHERE s.federation_entity_id <> '' AND s.status = 'Active' AND o.status = 'Active' %[2]s`

// entitled is Entitled on q (the database or a write's transaction),
// limited to one organisation's subjects when orgID is not "".
func entitled(ctx context.Context, q querier, t TrustMarkType, sub, orgID string, now time.Time) ([]Entitlement, error) {
	if t.Status != "Active" {
		return []Entitlement{}, nil
	}
	today := now.UTC().Format(time.DateOnly)
	var more string
	var args []any
	if sub != "" {
		more += ` AND s.federation_entity_id = ?`
		args = append(args, sub)
	}
	if orgID != "" {
		more += ` AND o.organisation_id = ?`
		args = append(args, orgID)
	}
	var query string
	var perBranch []any
	switch t.Basis {
	case directory.TrustMarkBasisRole:
		more += ` AND EXISTS (SELECT 1 FROM organisation_authority_claims c WHERE c.organisation_id = o.organisation_id AND c.domain = ? AND c.role = ? AND c.status = 'Active')`
		perBranch = append(args, t.AuthorisationDomain, t.Role)
		query = fmt.Sprintf(entitledSelect, "", more, "''", "")
	case directory.TrustMarkBasisCertification:
		join := `JOIN certifications c ON c.subject_type = '%s' AND c.subject_id = s.%s AND c.certification_type = ? AND c.status = 'Active'
			AND c.start_date <= ? AND (c.expiration_date = '' OR c.expiration_date >= ?)`
		query = fmt.Sprintf(entitledSelect, fmt.Sprintf(join, "SoftwareStatement", "software_statement_id"), more, "c.expiration_date",
			fmt.Sprintf(join, "AuthorisationServer", "authorisation_server_id"))
		// The join's parameters come before the WHERE's in each branch.
		perBranch = append([]any{t.CertificationType, today, today}, args...)
	default:
		return []Entitlement{}, nil
	}
	type row struct {
		e     Entitlement
		roles string
		ends  string
	}
	rows, err := queryList(ctx, q, func(r rowScanner) (row, error) {
		var x row
		err := r.Scan(&x.e.Subject, &x.e.Kind, &x.e.ID, &x.e.Name, &x.e.OrganisationID, &x.roles, &x.ends)
		return x, err
	}, query, append(slices.Clone(perBranch), perBranch...)...)
	if err != nil {
		return nil, fmt.Errorf("store: entitled: %w", err)
	}
	bySub := map[string]int{}
	out := []Entitlement{}
	for _, x := range rows {
		if x.e.Kind == "Application" && t.Basis == directory.TrustMarkBasisRole && !slices.Contains(parseList(x.roles), t.Role) {
			continue
		}
		until := certificationEnd(x.ends)
		if i, seen := bySub[x.e.Subject]; seen {
			// Several certifications cover now: the one that ends last (or
			// never) counts.
			if out[i].Until.IsZero() || until.IsZero() {
				out[i].Until = time.Time{}
			} else if until.After(out[i].Until) {
				out[i].Until = until
			}
			continue
		}
		x.e.Until = until
		bySub[x.e.Subject] = len(out)
		out = append(out, x.e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Subject < out[j].Subject })
	return out, nil
}

// certificationEnd is the moment a certification ending on the day
// expires (YYYY-MM-DD, in UTC) stops covering: the end of that day, the
// next midnight. "" (no end) is the zero time.
func certificationEnd(expires string) time.Time {
	day, err := time.Parse(time.DateOnly, expires)
	if err != nil {
		return time.Time{}
	}
	return day.AddDate(0, 0, 1)
}

// markTime is how a mark's moments are stored: whole seconds in UTC, of
// one width, so that they compare as text.
const markTime = "2006-01-02T15:04:05Z"

func markStamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(markTime) }

const trustMarkCols = `m.jti, m.type_id, t.trust_mark_type, m.sub, m.iat, m.exp, m.jwt, m.revoked_at, m.revoke_reason`

func scanTrustMark(row rowScanner) (IssuedTrustMark, error) {
	var m IssuedTrustMark
	var iat, exp string
	var revoked sql.NullString
	err := row.Scan(&m.JTI, &m.TypeID, &m.TrustMarkType, &m.Subject, &iat, &exp, &m.JWT, &revoked, &m.RevokeReason)
	m.IssuedAt, _ = time.Parse(time.RFC3339, iat)
	m.ExpiresAt, _ = time.Parse(time.RFC3339, exp)
	if revoked.Valid {
		at, _ := time.Parse(time.RFC3339, revoked.String)
		m.RevokedAt = &at
	}
	return m, err
}

// RecordTrustMark records a mark the directory signed, and returns once
// the record is durable: the status endpoint knows every mark answered.
// Records of concurrent issuances share one transaction (groupcommit.go):
// one commit and one fsync for all the marks waiting, each caller answered
// after the batch holding its record has committed, or with its error.
// Recording changes nothing derived from the directory (no cache depends
// on which marks were issued): it leaves DirectoryVersion.
func (d *DB) RecordTrustMark(ctx context.Context, m IssuedTrustMark) error {
	return d.writeGrouped(ctx, &groupReq{mark: &m})
}

const trustMarkInsert = `INSERT INTO trust_marks(jti, type_id, sub, iat, exp, jwt) VALUES (?, ?, ?, ?, ?, ?)`

// insertTrustMark writes m's record in a batch's transaction, through the
// statement prepared at Open (as insertAudit: preparing here would take a
// second connection from the pool).
func (d *DB) insertTrustMark(ctx context.Context, tx *sql.Tx, m IssuedTrustMark) error {
	args := []any{m.JTI, m.TypeID, m.Subject, markStamp(m.IssuedAt), markStamp(m.ExpiresAt), m.JWT}
	var err error
	if st, ok := d.stmts.Load(trustMarkInsert); ok {
		_, err = tx.StmtContext(ctx, st.(*sql.Stmt)).ExecContext(ctx, args...)
	} else {
		_, err = tx.ExecContext(ctx, trustMarkInsert, args...)
	}
	if err != nil {
		return fmt.Errorf("store: trust mark %s: %w", m.JTI, err)
	}
	return nil
}

// LatestTrustMark is the newest unrevoked mark of the type for sub
// (ErrNotFound when none).
func (d *DB) LatestTrustMark(ctx context.Context, typeID, sub string) (IssuedTrustMark, error) {
	return queryOne(ctx, d.hot(), scanTrustMark, `SELECT `+trustMarkCols+` FROM trust_marks m JOIN trust_mark_types t ON t.id = m.type_id
		WHERE m.type_id = ? AND m.sub = ? AND m.revoked_at IS NULL ORDER BY m.iat DESC, m.jti LIMIT 1`, typeID, sub)
}

// TrustMarkByJTI is one recorded mark, or ErrNotFound.
func (d *DB) TrustMarkByJTI(ctx context.Context, jti string) (IssuedTrustMark, error) {
	return queryOne(ctx, d.hot(), scanTrustMark, `SELECT `+trustMarkCols+` FROM trust_marks m JOIN trust_mark_types t ON t.id = m.type_id WHERE m.jti = ?`, jti)
}

// lapseScope says which recorded marks a write may have lapsed: those of
// the subjects of one organisation (and formerSub, an entity ID the write
// took from one of them), or those of one type.
type lapseScope struct {
	orgID, formerSub string
	typeID           string
}

// revokeLapsedMarks revokes, inside a write's transaction, the recorded
// marks in scope that are unexpired and unrevoked and whose subject is no
// longer entitled to their type (docs/design.md §17), each with a
// trust_mark_revoke audit record naming type, subject and why. Called by
// every write that can end an entitlement: a claim or certification
// changed, an application, server or organisation changed (its status, an
// application's roles, an entity ID), a trust mark type changed.
func (d *DB) revokeLapsedMarks(ctx context.Context, tx *sql.Tx, a Audit, scope lapseScope) error {
	now := d.now()
	q, args := `SELECT m.jti, m.type_id, m.sub, m.exp FROM trust_marks m WHERE m.revoked_at IS NULL AND m.exp > ? AND `, []any{markStamp(now)}
	if scope.typeID != "" {
		q += `m.type_id = ?`
		args = append(args, scope.typeID)
	} else {
		q += `(m.sub IN (SELECT federation_entity_id FROM software_statements WHERE organisation_id = ? AND federation_entity_id <> '')
			OR m.sub IN (SELECT federation_entity_id FROM authorisation_servers WHERE organisation_id = ? AND federation_entity_id <> '')
			OR m.sub = ?)`
		args = append(args, scope.orgID, scope.orgID, scope.formerSub)
	}
	type live struct {
		jti, typeID, sub string
		exp              time.Time
	}
	marks, err := queryList(ctx, tx, func(r rowScanner) (live, error) {
		var m live
		var exp string
		err := r.Scan(&m.jti, &m.typeID, &m.sub, &exp)
		m.exp, _ = time.Parse(time.RFC3339, exp)
		return m, err
	}, q+` ORDER BY m.type_id, m.sub, m.jti`, args...)
	if err != nil || len(marks) == 0 {
		return err
	}
	stamp := markStamp(now)
	entitledNow := map[string]map[string]directory.Entitlement{} // type -> subjects entitled
	types := map[string]TrustMarkType{}
	for _, m := range marks {
		t, ok := types[m.typeID]
		if !ok {
			if t, err = queryOne(ctx, tx, scanTrustMarkType, `SELECT `+tmtCols+` FROM trust_mark_types WHERE id = ?`, m.typeID); err != nil {
				return err
			}
			types[m.typeID] = t
			list, err := entitled(ctx, tx, t, "", scope.orgID, now)
			if err != nil {
				return err
			}
			entitledNow[m.typeID] = map[string]directory.Entitlement{}
			for _, e := range list {
				entitledNow[m.typeID][e.Subject] = e
			}
		}
		var why, orgID string
		if e, ok := entitledNow[m.typeID][m.sub]; ok {
			if e.Until.IsZero() || !m.exp.After(e.Until) {
				continue
			}
			// Entitled today, but no longer for as long as the mark says:
			// its certification now ends earlier, and nothing would revoke
			// the mark when the entitlement ends with that day.
			why, orgID = fmt.Sprintf("its %s certification now ends on %s, before the mark expires", t.CertificationType, e.Until.Add(-time.Nanosecond).UTC().Format(time.DateOnly)), e.OrganisationID
		} else if why, orgID, err = lapseReason(ctx, tx, t, m.sub, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE trust_marks SET revoked_at = ?, revoke_reason = ? WHERE jti = ?`, stamp, why, m.jti); err != nil {
			return err
		}
		if err := d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "trust_mark_revoke", SubjectType: "TrustMark", SubjectID: m.jti, OrganisationID: orgID,
			Summary: fmt.Sprintf("trust mark %s of %s revoked: %s", t.TrustMarkType, m.sub, why)}); err != nil {
			return err
		}
	}
	return nil
}

// lapseReason says, for people, why sub is not entitled to t now (the
// first rule of §17 it fails), and the organisation of the subject ("" when
// no subject has the entity ID any more).
func lapseReason(ctx context.Context, tx *sql.Tx, t TrustMarkType, sub string, now time.Time) (string, string, error) {
	if t.Status != "Active" {
		return "the trust mark type is " + t.Status, "", nil
	}
	type subject struct{ kind, id, name, status, roles, orgID, orgName, orgStatus string }
	found, err := queryList(ctx, tx, func(r rowScanner) (subject, error) {
		var s subject
		err := r.Scan(&s.kind, &s.id, &s.name, &s.status, &s.roles, &s.orgID, &s.orgName, &s.orgStatus)
		return s, err
	}, `SELECT 'application', s.software_statement_id, s.client_name, s.status, s.roles, o.organisation_id, o.name, o.status
		FROM software_statements s JOIN organisations o ON o.organisation_id = s.organisation_id WHERE s.federation_entity_id = ?
		UNION ALL
		SELECT 'authorisation server', s.authorisation_server_id, s.customer_friendly_name, s.status, '', o.organisation_id, o.name, o.status
		FROM authorisation_servers s JOIN organisations o ON o.organisation_id = s.organisation_id WHERE s.federation_entity_id = ?`, sub, sub)
	if err != nil {
		return "", "", err
	}
	if len(found) == 0 {
		return "no application or authorisation server has this entity ID any more", "", nil
	}
	s := found[0]
	switch {
	case s.orgStatus != "Active":
		return fmt.Sprintf("organisation %s is %s", s.orgName, s.orgStatus), s.orgID, nil
	case s.status != "Active":
		return fmt.Sprintf("%s %s is %s", s.kind, s.name, s.status), s.orgID, nil
	}
	switch t.Basis {
	case directory.TrustMarkBasisRole:
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisation_authority_claims WHERE organisation_id = ? AND domain = ? AND role = ? AND status = 'Active'`,
			s.orgID, t.AuthorisationDomain, t.Role).Scan(&n); err != nil {
			return "", "", err
		}
		if n == 0 {
			return fmt.Sprintf("organisation %s holds no Active claim on the role %s of %s", s.orgName, t.Role, t.AuthorisationDomain), s.orgID, nil
		}
		if s.kind == "application" && !slices.Contains(parseList(s.roles), t.Role) {
			return fmt.Sprintf("application %s does not have the role %s", s.name, t.Role), s.orgID, nil
		}
	case directory.TrustMarkBasisCertification:
		subjectType := "SoftwareStatement"
		if s.kind != "application" {
			subjectType = "AuthorisationServer"
		}
		ends, err := queryList(ctx, tx, scanString, `SELECT expiration_date FROM certifications
			WHERE subject_type = ? AND subject_id = ? AND certification_type = ? AND status = 'Active' AND expiration_date <> '' AND expiration_date < ?
			ORDER BY expiration_date DESC`, subjectType, s.id, t.CertificationType, now.UTC().Format(time.DateOnly))
		if err != nil {
			return "", "", err
		}
		if len(ends) > 0 {
			return fmt.Sprintf("%s %s's %s certification ended on %s", s.kind, s.name, t.CertificationType, ends[0]), s.orgID, nil
		}
		return fmt.Sprintf("%s %s holds no Active %s certification covering today", s.kind, s.name, t.CertificationType), s.orgID, nil
	}
	return "its entitlement lapsed", s.orgID, nil
}
