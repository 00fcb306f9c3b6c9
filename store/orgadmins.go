package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/trustframe/trustframe/directory"
)

// OrganisationAdministrator is one person's administration of one
// organisation (directory.OrganisationAdministrator).
type OrganisationAdministrator = directory.OrganisationAdministrator

const orgAdminCols = `org_id, email, status, invited_by, invited_at, activated_at, updated_at, via_group, via_provider`

func scanOrgAdmin(row rowScanner) (OrganisationAdministrator, error) {
	var u OrganisationAdministrator
	var invited, updated, group, provider string
	var activated sql.NullString
	if err := row.Scan(&u.OrganisationID, &u.Email, &u.Status, &u.InvitedBy, &invited, &activated, &updated, &group, &provider); err != nil {
		return u, err
	}
	u.Grant = grantOf(group, provider, GrantedByInvitation)
	u.InvitedAt, u.UpdatedAt = parseStamp(invited), parseStamp(updated)
	if activated.Valid {
		t := parseStamp(activated.String)
		u.ActivatedAt = &t
	}
	return u, nil
}

// ListOrganisationAdministrators are the administrators of organisation
// orgID, by e-mail (an unknown organisation has none).
func (d *DB) ListOrganisationAdministrators(ctx context.Context, orgID string) ([]OrganisationAdministrator, error) {
	out, err := queryList(ctx, d.db, scanOrgAdmin, `SELECT `+orgAdminCols+` FROM organisation_administrators WHERE org_id = ? ORDER BY email`, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: list organisation administrators: %w", err)
	}
	return out, nil
}

// GetOrganisationAdministrator returns one record or ErrNotFound.
func (d *DB) GetOrganisationAdministrator(ctx context.Context, orgID, email string) (OrganisationAdministrator, error) {
	u, err := queryOne(ctx, d.db, scanOrgAdmin, `SELECT `+orgAdminCols+` FROM organisation_administrators WHERE org_id = ? AND email = ?`, orgID, NormalizeEmail(email))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return u, fmt.Errorf("store: get organisation administrator: %w", err)
	}
	return u, err
}

// InviteOrganisationAdministrator records email as an Invited administrator
// of organisation orgID and queues msg in the outbox, in one transaction.
// An unknown organisation is ErrNotFound; a record of the same person for
// it (any status) is a ConflictError.
func (d *DB) InviteOrganisationAdministrator(ctx context.Context, a Audit, orgID, email string, msg Invitation) (OrganisationAdministrator, int64, error) {
	defer d.roles.invalidate() // after the commit: the access may have changed
	email = NormalizeEmail(email)
	var outboxID int64
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisations WHERE organisation_id = ?`, orgID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisation_administrators WHERE org_id = ? AND email = ?`, orgID, email).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: fmt.Sprintf("%s is already an administrator of this organisation", email)}
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO organisation_administrators(org_id, email, status, invited_by, invited_at, updated_at) VALUES (?, ?, 'Invited', ?, ?, ?)`,
			orgID, email, a.Actor, now, now); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO outbox(at, recipient, subject, body) VALUES (?, ?, ?, ?) RETURNING id`,
			now, msg.To, msg.Subject, msg.Body).Scan(&outboxID); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "invite", SubjectType: "OrganisationAdministrator", SubjectID: email,
			OrganisationID: orgID, Summary: "Status: Invited"})
	})
	if err != nil {
		return OrganisationAdministrator{}, 0, err
	}
	u, err := d.GetOrganisationAdministrator(ctx, orgID, email)
	return u, outboxID, err
}

// SetOrganisationAdministratorStatus deactivates (Inactive) or reactivates
// (Active) an administrator of organisation orgID; check (nil: none) runs
// inside the transaction with the current version (If-Match).
func (d *DB) SetOrganisationAdministratorStatus(ctx context.Context, a Audit, orgID, email, status string, check func(cur OrganisationAdministrator) error) (OrganisationAdministrator, error) {
	defer d.roles.invalidate() // after the commit: the access may have changed
	email = NormalizeEmail(email)
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := current(ctx, tx, scanOrgAdmin, check, `SELECT `+orgAdminCols+` FROM organisation_administrators WHERE org_id = ? AND email = ?`, orgID, email)
		if err != nil {
			return err
		}
		if status == "" {
			return errUnchanged
		}
		if cur.Status == status {
			res, err := tx.ExecContext(ctx, `UPDATE organisation_administrators SET group_revoked = 0, updated_at = ? WHERE org_id = ? AND email = ? AND group_revoked = 1`, d.stamp(), orgID, email)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return errUnchanged
			}
			return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "status", SubjectType: "OrganisationAdministrator", SubjectID: email,
				OrganisationID: orgID, Summary: "Status: " + status + " (kept; set by an administrator now, so groups no longer change it)"})
		}
		if _, err := tx.ExecContext(ctx, `UPDATE organisation_administrators SET status = ?, updated_at = ?, group_revoked = 0 WHERE org_id = ? AND email = ?`,
			status, d.stamp(), orgID, email); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "status", SubjectType: "OrganisationAdministrator", SubjectID: email,
			OrganisationID: orgID, Summary: "Status: " + cur.Status + " -> " + status})
	})
	if err != nil {
		return OrganisationAdministrator{}, err
	}
	return d.GetOrganisationAdministrator(ctx, orgID, email)
}

// activateOrgAdmin makes every Invited organisation administrator record of
// email Active at their first sign-in, audited per organisation.
func (d *DB) activateOrgAdmin(ctx context.Context, tx *sql.Tx, email string) error {
	rows, err := tx.QueryContext(ctx, `SELECT org_id FROM organisation_administrators WHERE email = ? AND status = 'Invited' ORDER BY org_id`, email)
	if err != nil {
		return err
	}
	var orgs []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		orgs = append(orgs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	now := d.stamp()
	for _, org := range orgs {
		if _, err := tx.ExecContext(ctx, `UPDATE organisation_administrators SET status = 'Active', activated_at = ?, updated_at = ? WHERE org_id = ? AND email = ?`,
			now, now, org, email); err != nil {
			return err
		}
		if err := d.writeAudit(ctx, tx, AuditRecord{Actor: email, Action: "activate", SubjectType: "OrganisationAdministrator",
			SubjectID: email, OrganisationID: org, Summary: "Status: Invited -> Active (first sign-in)"}); err != nil {
			return err
		}
	}
	return nil
}
