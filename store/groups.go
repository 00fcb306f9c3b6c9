package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/trustframe/trustframe/directory"
)

// groupTables are the administrator records a group can make, by role.
var groupTables = []struct {
	role    Role
	table   string
	subject string
}{{RoleSuperUser, "super_users", "SuperUser"}, {RoleDataAdmin, "data_administrators", "DataAdministrator"}}

// GroupOutcome is what ApplyGroups did to one administrator record.
type GroupOutcome struct {
	Role   Role
	Action string // group_grant, group_revoke or group_revoke_refused
	Group  string
}

// ApplyGroups brings the administrator records of email that provider's
// groups made in line with the groups of the person's token, as
// docs/design.md §16 describes: granted maps each role to the group that
// grants it now (absent: no mapped group of the token grants it).
//
//   - No record of that role: a group grant creates an Active one (audit
//     group_grant naming provider and group).
//   - A record made by invitation, by a Super User, or by another
//     provider's group is never touched.
//   - A record this provider's group made: a grant whose group left the
//     token ends (Inactive, audit group_revoke) unless it is the last
//     Active Super User (audit group_revoke_refused, nothing changed); a
//     record a group revocation made Inactive comes back when a mapped
//     group does; one a Super User set Inactive stays Inactive.
//
// It is an administrator change: callers read the role after it.
func (d *DB) ApplyGroups(ctx context.Context, provider, email string, granted map[Role]string) ([]GroupOutcome, error) {
	email = NormalizeEmail(email)
	// Most requests change nothing: a read answers them without taking
	// SQLite's one writer.
	if idle, err := d.groupsIdle(ctx, provider, email, granted); err != nil || idle {
		return nil, err
	}
	defer d.roles.invalidate() // after the commit: a grant or revoke changes the role
	var out []GroupOutcome
	err := d.tx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		for _, t := range groupTables {
			o, err := d.applyGroup(ctx, tx, t.role, t.table, t.subject, provider, email, granted[t.role])
			if err != nil {
				return err
			}
			if o.Action != "" {
				out = append(out, o)
			}
		}
		orgs, err := d.applyOrgGroups(ctx, tx, provider, email, granted)
		out = append(out, orgs...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: apply groups: %w", err)
	}
	return out, nil
}

// groupsIdle reports whether ApplyGroups would change nothing.
func (d *DB) groupsIdle(ctx context.Context, provider, email string, granted map[Role]string) (bool, error) {
	var su, da groupRow
	err := d.db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM super_users WHERE email = ?1), COALESCE((SELECT status || char(31) || via_group || char(31) || via_provider || char(31) || group_revoked FROM super_users WHERE email = ?1), ''),
		(SELECT COUNT(*) FROM data_administrators WHERE email = ?1), COALESCE((SELECT status || char(31) || via_group || char(31) || via_provider || char(31) || group_revoked FROM data_administrators WHERE email = ?1), '')`,
		email).Scan(&su.n, &su.packed, &da.n, &da.packed)
	if err != nil {
		return false, err
	}
	if !su.idle(provider, granted[RoleSuperUser]) || !da.idle(provider, granted[RoleDataAdmin]) {
		return false, nil
	}
	return d.orgGroupsIdle(ctx, provider, email, granted)
}

type groupRow struct {
	n      int
	packed string
}

// idle: nothing to grant, nothing of this provider's to revoke or move.
func (r groupRow) idle(provider, group string) bool {
	if r.n == 0 {
		return group == ""
	}
	f := strings.Split(r.packed, "\x1f")
	if len(f) != 4 {
		return true
	}
	return grantIdle(f[0], f[1], f[2], f[3] == "1", provider, group)
}

// grantIdle: a record (status, made by viaGroup of viaProvider, revoked by
// a group or not) that provider's token granting group ("" none) leaves
// as it is.
func grantIdle(status, viaGroup, viaProvider string, revoked bool, provider, group string) bool {
	if viaProvider != provider {
		return true
	}
	switch {
	case group != "" && status == "Active":
		return viaGroup == group
	case group != "":
		return !revoked // a Super User's Inactive stays
	default:
		return status != "Active"
	}
}

func (d *DB) applyGroup(ctx context.Context, tx *sql.Tx, role Role, table, subject, provider, email, group string) (GroupOutcome, error) {
	var status, viaGroup, viaProvider string
	var revoked bool
	err := tx.QueryRowContext(ctx, `SELECT status, via_group, via_provider, group_revoked FROM `+table+` WHERE email = ?`, email).
		Scan(&status, &viaGroup, &viaProvider, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		if group == "" {
			return GroupOutcome{}, nil
		}
		now, by := d.stamp(), "group "+group+" of identity provider "+provider
		if table == "super_users" {
			_, err = tx.ExecContext(ctx, `INSERT INTO super_users(email, status, created_at, created_by, updated_at, via_group, via_provider) VALUES (?, 'Active', ?, ?, ?, ?, ?)`,
				email, now, by, now, group, provider)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO data_administrators(email, status, invited_by, invited_at, activated_at, updated_at, via_group, via_provider) VALUES (?, 'Active', ?, ?, ?, ?, ?, ?)`,
				email, by, now, now, now, group, provider)
		}
		if err != nil {
			return GroupOutcome{}, err
		}
		return d.groupAudit(ctx, tx, role, subject, provider, email, "group_grant", group, "Status: Active (via "+by+")")
	}
	if err != nil {
		return GroupOutcome{}, err
	}
	if viaProvider != provider {
		return GroupOutcome{}, nil // invitation, Super User, or another provider's group
	}
	switch {
	case group != "" && status == "Active" && viaGroup != group:
		// Still granted, now by another mapped group of the token.
		if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET via_group = ?, updated_at = ? WHERE email = ?`, group, d.stamp(), email); err != nil {
			return GroupOutcome{}, err
		}
		return d.groupAudit(ctx, tx, role, subject, provider, email, "group_grant", group,
			"now via group "+group+" of identity provider "+provider+" (was "+viaGroup+")")
	case group != "" && status == "Inactive" && revoked:
		if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET status = 'Active', group_revoked = 0, via_group = ?, updated_at = ? WHERE email = ?`,
			group, d.stamp(), email); err != nil {
			return GroupOutcome{}, err
		}
		return d.groupAudit(ctx, tx, role, subject, provider, email, "group_grant", group,
			"Status: Inactive -> Active (via group "+group+" of identity provider "+provider+")")
	case group == "" && status == "Active":
		if table == "super_users" {
			var active int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM super_users WHERE status = 'Active' AND email <> ?`, email).Scan(&active); err != nil {
				return GroupOutcome{}, err
			}
			if active == 0 {
				// Audited once, not on every request of the same token.
				var last string
				err := tx.QueryRowContext(ctx, `SELECT action FROM audit_log WHERE subject_type = 'SuperUser' AND subject_id = ? ORDER BY id DESC LIMIT 1`, email).Scan(&last)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return GroupOutcome{}, err
				}
				if last == "group_revoke_refused" {
					return GroupOutcome{Role: role, Action: "group_revoke_refused", Group: viaGroup}, nil
				}
				return d.groupAudit(ctx, tx, role, subject, provider, email, "group_revoke_refused", viaGroup,
					"group "+viaGroup+" of identity provider "+provider+" is gone from the token, but this is the last Active Super User: kept Active")
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET status = 'Inactive', group_revoked = 1, updated_at = ? WHERE email = ?`, d.stamp(), email); err != nil {
			return GroupOutcome{}, err
		}
		return d.groupAudit(ctx, tx, role, subject, provider, email, "group_revoke", viaGroup,
			"Status: Active -> Inactive (group "+viaGroup+" of identity provider "+provider+" is gone from the token)")
	}
	return GroupOutcome{}, nil
}

func (d *DB) groupAudit(ctx context.Context, tx *sql.Tx, role Role, subject, provider, email, action, group, summary string) (GroupOutcome, error) {
	err := d.writeAudit(ctx, tx, AuditRecord{Actor: "identity provider " + provider, Action: action, SubjectType: subject, SubjectID: email, Summary: summary})
	return GroupOutcome{Role: role, Action: action, Group: group}, err
}

// revokeUnbacked ends, inside the transaction that changes provider p,
// what p's groups made and p no longer backs (docs/design.md §16): every
// Active record of p when p is not Active; else each whose group is no
// longer mapped to the record's role, or whose e-mail domain p no longer
// vouches for. Each is set Inactive as a token without the group would
// (audit group_revoke by the actor of the change). A change that would so
// leave no Active Super User is refused with a ConflictError: the Super
// User making it is there to make another one first.
func (d *DB) revokeUnbacked(ctx context.Context, tx *sql.Tx, a Audit, p IdentityProvider) error {
	if err := d.revokeUnbackedOrgAdmins(ctx, tx, a, p); err != nil {
		return err
	}
	for _, t := range groupTables {
		type grant struct{ email, group string }
		grants, err := queryList(ctx, tx, func(row rowScanner) (grant, error) {
			var g grant
			err := row.Scan(&g.email, &g.group)
			return g, err
		}, `SELECT email, via_group FROM `+t.table+` WHERE via_provider = ? AND status = 'Active' ORDER BY email`, p.Name)
		if err != nil {
			return err
		}
		var revoked []string
		for _, g := range grants {
			why := unbacked(p, t.role, g.email, g.group)
			if why == "" {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE `+t.table+` SET status = 'Inactive', group_revoked = 1, updated_at = ? WHERE email = ?`, d.stamp(), g.email); err != nil {
				return err
			}
			if err := d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "group_revoke", SubjectType: t.subject, SubjectID: g.email,
				Summary: "Status: Active -> Inactive (" + why + ")"}); err != nil {
				return err
			}
			revoked = append(revoked, g.email)
		}
		if t.role != RoleSuperUser || len(revoked) == 0 {
			continue
		}
		var active int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM super_users WHERE status = 'Active'`).Scan(&active); err != nil {
			return err
		}
		if active == 0 {
			return &ConflictError{Message: "this change would end the Super User " + strings.Join(revoked, ", ") +
				", made by a group of identity provider " + p.Name + ", and leave no Active Super User; make another Super User first"}
		}
	}
	return nil
}

// unbacked says why p no longer backs a record its group made for role,
// "" when it still does.
func unbacked(p IdentityProvider, role Role, email, group string) string {
	if p.Status != "Active" {
		return "identity provider " + p.Name + " is " + p.Status
	}
	if !DomainAllowed(p.EmailDomains, email) {
		return "identity provider " + p.Name + " no longer vouches for e-mails of " + email[strings.LastIndexByte(email, '@')+1:]
	}
	for _, m := range p.GroupRoles {
		if m.Group == group && m.Role == role {
			return ""
		}
	}
	return "group " + group + " of identity provider " + p.Name + " is no longer mapped to " + string(role)
}

// orgGrants are the organisations whose administrators granted makes
// email, each with the group that grants it.
func orgGrants(granted map[Role]string) map[string]string {
	out := map[string]string{}
	for role, group := range granted {
		if org, ok := role.Organisation(); ok && org != "" && group != "" {
			out[org] = group
		}
	}
	return out
}

// orgAdminGroupRow is what ApplyGroups reads of one organisation
// administrator record of the person.
type orgAdminGroupRow struct {
	org, status, group, provider string
	revoked                      bool
}

func (d *DB) orgAdminGroupRows(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, email string) (map[string]orgAdminGroupRow, error) {
	rows, err := queryList(ctx, q, func(row rowScanner) (orgAdminGroupRow, error) {
		var r orgAdminGroupRow
		err := row.Scan(&r.org, &r.status, &r.group, &r.provider, &r.revoked)
		return r, err
	}, `SELECT org_id, status, via_group, via_provider, group_revoked FROM organisation_administrators WHERE email = ? ORDER BY org_id`, email)
	if err != nil {
		return nil, err
	}
	out := make(map[string]orgAdminGroupRow, len(rows))
	for _, r := range rows {
		out[r.org] = r
	}
	return out, nil
}

// orgGroupsIdle reports whether ApplyGroups would change no organisation
// administrator record of email.
func (d *DB) orgGroupsIdle(ctx context.Context, provider, email string, granted map[Role]string) (bool, error) {
	grants := orgGrants(granted)
	rows, err := d.orgAdminGroupRows(ctx, d.db, email)
	if err != nil {
		return false, err
	}
	for org := range grants {
		if _, ok := rows[org]; !ok {
			return false, nil
		}
	}
	for org, r := range rows {
		if !grantIdle(r.status, r.group, r.provider, r.revoked, provider, grants[org]) {
			return false, nil
		}
	}
	return true, nil
}

// applyOrgGroups is ApplyGroups for the administrators of organisations
// (docs/design.md §19): per organisation, a mapped group of the token
// makes email an Active administrator of it (audit group_grant), and a
// record this provider's group made ends when no mapped group grants it
// any more (group_revoke); records made otherwise are never touched. A
// mapping naming an organisation that is gone grants nothing.
func (d *DB) applyOrgGroups(ctx context.Context, tx *sql.Tx, provider, email string, granted map[Role]string) ([]GroupOutcome, error) {
	grants := orgGrants(granted)
	rows, err := d.orgAdminGroupRows(ctx, tx, email)
	if err != nil {
		return nil, err
	}
	orgs := make([]string, 0, len(grants)+len(rows))
	for org := range grants {
		orgs = append(orgs, org)
	}
	for org := range rows {
		if _, ok := grants[org]; !ok {
			orgs = append(orgs, org)
		}
	}
	slices.Sort(orgs)
	var out []GroupOutcome
	for _, org := range orgs {
		group := grants[org]
		r, exists := rows[org]
		role := directory.OrgAdminRole(org)
		audit := func(action, g, summary string) error {
			out = append(out, GroupOutcome{Role: role, Action: action, Group: g})
			return d.writeAudit(ctx, tx, AuditRecord{Actor: "identity provider " + provider, Action: action, SubjectType: "OrganisationAdministrator",
				SubjectID: email, OrganisationID: org, Summary: summary})
		}
		now := d.stamp()
		switch {
		case !exists && group != "":
			by := "group " + group + " of identity provider " + provider
			res, ierr := tx.ExecContext(ctx, `INSERT INTO organisation_administrators(org_id, email, status, invited_by, invited_at, activated_at, updated_at, via_group, via_provider)
				SELECT ?, ?, 'Active', ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM organisations WHERE organisation_id = ?)`,
				org, email, by, now, now, now, group, provider, org)
			if ierr != nil {
				return nil, ierr
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				continue // the organisation is gone
			}
			err = audit("group_grant", group, "Status: Active (via "+by+")")
		case !exists || r.provider != provider:
			continue // invitation, or another provider's group
		case group != "" && r.status == "Active" && r.group != group:
			if _, err = tx.ExecContext(ctx, `UPDATE organisation_administrators SET via_group = ?, updated_at = ? WHERE org_id = ? AND email = ?`, group, now, org, email); err == nil {
				err = audit("group_grant", group, "now via group "+group+" of identity provider "+provider+" (was "+r.group+")")
			}
		case group != "" && r.status == "Inactive" && r.revoked:
			if _, err = tx.ExecContext(ctx, `UPDATE organisation_administrators SET status = 'Active', group_revoked = 0, via_group = ?, updated_at = ? WHERE org_id = ? AND email = ?`,
				group, now, org, email); err == nil {
				err = audit("group_grant", group, "Status: Inactive -> Active (via group "+group+" of identity provider "+provider+")")
			}
		case group == "" && r.status == "Active":
			if _, err = tx.ExecContext(ctx, `UPDATE organisation_administrators SET status = 'Inactive', group_revoked = 1, updated_at = ? WHERE org_id = ? AND email = ?`, now, org, email); err == nil {
				err = audit("group_revoke", r.group, "Status: Active -> Inactive (group "+r.group+" of identity provider "+provider+" is gone from the token)")
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// revokeUnbackedOrgAdmins is revokeUnbacked for the administrators of
// organisations that p's groups made.
func (d *DB) revokeUnbackedOrgAdmins(ctx context.Context, tx *sql.Tx, a Audit, p IdentityProvider) error {
	type grant struct{ org, email, group string }
	grants, err := queryList(ctx, tx, func(row rowScanner) (grant, error) {
		var g grant
		err := row.Scan(&g.org, &g.email, &g.group)
		return g, err
	}, `SELECT org_id, email, via_group FROM organisation_administrators WHERE via_provider = ? AND status = 'Active' ORDER BY org_id, email`, p.Name)
	if err != nil {
		return err
	}
	for _, g := range grants {
		why := unbacked(p, directory.OrgAdminRole(g.org), g.email, g.group)
		if why == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE organisation_administrators SET status = 'Inactive', group_revoked = 1, updated_at = ? WHERE org_id = ? AND email = ?`,
			d.stamp(), g.org, g.email); err != nil {
			return err
		}
		if err := d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "group_revoke", SubjectType: "OrganisationAdministrator", SubjectID: g.email,
			OrganisationID: g.org, Summary: "Status: Active -> Inactive (" + why + ")"}); err != nil {
			return err
		}
	}
	return nil
}
