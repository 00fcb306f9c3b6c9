package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"sync"
	"sync/atomic"

	"github.com/trustframe/trustframe/directory"
)

// The administrators are the application layer's (directory/administrators.go).
type (
	SuperUser         = directory.SuperUser
	DataAdministrator = directory.DataAdministrator
	Grant             = directory.Grant
	Invitation        = directory.Invitation
)

// Grants by which an administrator record was made.
const (
	GrantedByInvitation = directory.GrantedByInvitation
	GrantedBySuperUser  = directory.GrantedBySuperUser
	GrantedByGroup      = directory.GrantedByGroup
)

func grantOf(viaGroup, viaProvider, otherwise string) Grant {
	if viaProvider != "" {
		return Grant{GrantedBy: GrantedByGroup, Group: viaGroup, IdentityProvider: viaProvider}
	}
	return Grant{GrantedBy: otherwise}
}

// Role is what a signed-in e-mail may do: the application layer's.
type Role = directory.Role

// Roles. RoleNone is anyone who is not an administrator.
const (
	RoleNone      = directory.RoleNone
	RoleSuperUser = directory.RoleSuperUser
	RoleDataAdmin = directory.RoleDataAdmin
	RoleOrgAdmin  = directory.RoleOrgAdmin
)

// Access is a role with the organisations it is limited to.
type Access = directory.Access

// NormalizeEmail is the one case rule of e-mails (directory.NormalizeEmail).
func NormalizeEmail(s string) string { return directory.NormalizeEmail(s) }

// RoleOf answers the role an e-mail has now when the sign-in issuer
// vouches for it (RoleVia with no provider).
func (d *DB) RoleOf(ctx context.Context, email string) (Role, error) {
	return d.RoleVia(ctx, email, "")
}

// RoleVia answers the role an e-mail has now at a request authenticated by
// the identity provider named provider ("" for the sign-in issuer). A
// record a provider's group made counts only at that provider's requests
// (docs/design.md §16); any other record, at every request. An Invited
// Data Administrator counts as one: the first sign-in activates them
// (SignIn). The answer comes from a short-lived cache that every
// administrator change empties (rolecache.go).
func (d *DB) RoleVia(ctx context.Context, email, provider string) (Role, error) {
	acc, err := d.AccessVia(ctx, email, provider)
	return acc.Role, err
}

// AccessVia is RoleVia with, for an Organisation Administrator, the
// organisations they administer (docs/design.md §19): a Super User or Data
// Administrator record outranks them.
func (d *DB) AccessVia(ctx context.Context, email, provider string) (Access, error) {
	email = NormalizeEmail(email)
	d.Sync(ctx)
	now := d.now()
	key := email + "\x1f" + provider
	acc, ok, gen := d.roles.get(key, now)
	if ok {
		return acc, nil
	}
	acc, err := d.accessOf(ctx, email, provider)
	if err == nil {
		d.roles.put(key, gen, acc, now)
	}
	return acc, err
}

func (d *DB) accessOf(ctx context.Context, email, provider string) (Access, error) {
	var su, da sql.NullString
	err := d.queryRow(ctx, `SELECT (SELECT status FROM super_users WHERE email = ?1 AND via_provider IN ('', ?2)),
		(SELECT status FROM data_administrators WHERE email = ?1 AND via_provider IN ('', ?2))`, email, provider).Scan(&su, &da)
	if err != nil {
		return Access{}, fmt.Errorf("store: role: %w", err)
	}
	if su.String == "Active" {
		return Access{Role: RoleSuperUser}, nil
	}
	if da.String == "Active" || da.String == "Invited" {
		return Access{Role: RoleDataAdmin}, nil
	}
	orgs, err := d.administeredOrganisations(ctx, email, provider)
	if err != nil || len(orgs) == 0 {
		return Access{}, err
	}
	return Access{Role: RoleOrgAdmin, Orgs: orgs}, nil
}

// administeredOrganisations are the organisations whose Active or Invited
// administrator email is, in id order.
func (d *DB) administeredOrganisations(ctx context.Context, email, provider string) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT org_id FROM organisation_administrators
		WHERE email = ?1 AND status IN ('Active','Invited') AND via_provider IN ('', ?2) ORDER BY org_id`, email, provider)
	if err != nil {
		return nil, fmt.Errorf("store: organisations administered: %w", err)
	}
	defer rows.Close()
	var orgs []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		orgs = append(orgs, id)
	}
	return orgs, rows.Err()
}

// SignIn records a sign-in and activates an Invited Data Administrator. It
// returns the role in force after it for a person the identity provider
// named provider vouched for ("" for the sign-in issuer, as in RoleVia);
// RoleNone is recorded as a refused sign-in.
func (d *DB) SignIn(ctx context.Context, email, via, provider string) (Role, error) {
	defer d.roles.invalidate() // after the commit: the role may have changed
	email = NormalizeEmail(email)
	var role Role
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM data_administrators WHERE email = ?`, email).Scan(&status)
		if err == nil && status == "Invited" {
			now := d.stamp()
			if _, err := tx.ExecContext(ctx, `UPDATE data_administrators SET status = 'Active', activated_at = ?, updated_at = ? WHERE email = ?`,
				now, now, email); err != nil {
				return err
			}
			if err := d.writeAudit(ctx, tx, AuditRecord{Actor: email, Action: "activate", SubjectType: "DataAdministrator",
				SubjectID: email, Summary: "Status: Invited -> Active (first sign-in)"}); err != nil {
				return err
			}
		} else if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return d.activateOrgAdmin(ctx, tx, email)
	})
	if err != nil {
		return RoleNone, fmt.Errorf("store: sign in: %w", err)
	}
	role, err = d.RoleVia(ctx, email, provider)
	if err != nil {
		return RoleNone, err
	}
	action, summary := "login", "signed in with "+via
	if role == RoleNone {
		action, summary = "login_refused", "not an active administrator ("+via+")"
	}
	if err := d.RecordEvent(ctx, AuditRecord{Actor: email, Action: action, SubjectType: "Session", SubjectID: email, Summary: summary}); err != nil {
		return RoleNone, err
	}
	return role, nil
}

// EnsureSuperUser creates email as an Active Super User unless it exists
// (the bootstrap Super User). It reports whether it created one.
func (d *DB) EnsureSuperUser(ctx context.Context, email string) (bool, error) {
	defer d.roles.invalidate() // after the commit: the role may have changed
	email = NormalizeEmail(email)
	created := false
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM super_users WHERE email = ?`, email).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO super_users(email, status, created_at, created_by, updated_at) VALUES (?, 'Active', ?, 'bootstrap', ?)`,
			email, now, now); err != nil {
			return err
		}
		created = true
		return d.writeAudit(ctx, tx, AuditRecord{Actor: "bootstrap", Action: "create", SubjectType: "SuperUser", SubjectID: email, Summary: "Status: Active (bootstrap)"})
	})
	if err != nil {
		return false, fmt.Errorf("store: bootstrap super user: %w", err)
	}
	return created, nil
}

const superUserCols = `email, status, created_at, created_by, updated_at, via_group, via_provider`

func scanSuperUser(row rowScanner) (SuperUser, error) {
	var u SuperUser
	var created, updated, group, provider string
	if err := row.Scan(&u.Email, &u.Status, &created, &u.CreatedBy, &updated, &group, &provider); err != nil {
		return u, err
	}
	u.Grant = grantOf(group, provider, GrantedBySuperUser)
	u.CreatedAt, u.UpdatedAt = parseStamp(created), parseStamp(updated)
	return u, nil
}

// ListSuperUsers returns every Super User, by e-mail.
func (d *DB) ListSuperUsers(ctx context.Context) ([]SuperUser, error) {
	out, err := queryList(ctx, d.db, scanSuperUser, `SELECT `+superUserCols+` FROM super_users ORDER BY email`)
	if err != nil {
		return nil, fmt.Errorf("store: list super users: %w", err)
	}
	return out, nil
}

// GetSuperUser returns one Super User or ErrNotFound.
func (d *DB) GetSuperUser(ctx context.Context, email string) (SuperUser, error) {
	u, err := queryOne(ctx, d.db, scanSuperUser, `SELECT `+superUserCols+` FROM super_users WHERE email = ?`, NormalizeEmail(email))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return u, fmt.Errorf("store: get super user: %w", err)
	}
	return u, err
}

// CreateSuperUser adds a Super User; an existing e-mail is a ConflictError.
func (d *DB) CreateSuperUser(ctx context.Context, a Audit, email, status string) (SuperUser, error) {
	defer d.roles.invalidate() // after the commit: the role may have changed
	email = NormalizeEmail(email)
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM super_users WHERE email = ?`, email).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: fmt.Sprintf("Super User %s already exists", email)}
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO super_users(email, status, created_at, created_by, updated_at) VALUES (?, ?, ?, ?, ?)`,
			email, status, now, a.Actor, now); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "SuperUser", SubjectID: email, Summary: "Status: " + status})
	})
	if err != nil {
		return SuperUser{}, err
	}
	return d.GetSuperUser(ctx, email)
}

// SetSuperUserStatus changes a Super User's status. Deactivating the last
// Active Super User is a ConflictError (directory.KeepOneSuperUser).
// check (nil: none) runs inside the transaction with the current version
// (If-Match); its error aborts the change, so two writers holding the same
// version cannot both win.
func (d *DB) SetSuperUserStatus(ctx context.Context, a Audit, email, status string, check func(cur SuperUser) error) (SuperUser, error) {
	defer d.roles.invalidate() // after the commit: the role may have changed
	email = NormalizeEmail(email)
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := current(ctx, tx, scanSuperUser, check, `SELECT `+superUserCols+` FROM super_users WHERE email = ?`, email)
		if err != nil {
			return err
		}
		if err := directory.KeepOneSuperUser(cur.Status, status, func() (active int, err error) {
			err = tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM super_users WHERE status = 'Active' AND email <> ?`, email).Scan(&active)
			return active, err
		}); err != nil {
			return err
		}
		return d.writeUserStatus(ctx, tx, a, "super_users", "SuperUser", email, cur.Status, status)
	})
	if err != nil {
		return SuperUser{}, err
	}
	return d.GetSuperUser(ctx, email)
}

const dataAdminCols = `email, status, invited_by, invited_at, activated_at, updated_at, via_group, via_provider`

func scanDataAdmin(row rowScanner) (DataAdministrator, error) {
	var u DataAdministrator
	var invited, updated, group, provider string
	var activated sql.NullString
	if err := row.Scan(&u.Email, &u.Status, &u.InvitedBy, &invited, &activated, &updated, &group, &provider); err != nil {
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

// ListDataAdministrators returns every Data Administrator, by e-mail.
func (d *DB) ListDataAdministrators(ctx context.Context) ([]DataAdministrator, error) {
	out, err := queryList(ctx, d.db, scanDataAdmin, `SELECT `+dataAdminCols+` FROM data_administrators ORDER BY email`)
	if err != nil {
		return nil, fmt.Errorf("store: list data administrators: %w", err)
	}
	return out, nil
}

// GetDataAdministrator returns one Data Administrator or ErrNotFound.
func (d *DB) GetDataAdministrator(ctx context.Context, email string) (DataAdministrator, error) {
	u, err := queryOne(ctx, d.db, scanDataAdmin, `SELECT `+dataAdminCols+` FROM data_administrators WHERE email = ?`, NormalizeEmail(email))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return u, fmt.Errorf("store: get data administrator: %w", err)
	}
	return u, err
}

// InviteDataAdministrator records an invitation and queues its message in
// the outbox, in one transaction. An existing e-mail is a ConflictError.
func (d *DB) InviteDataAdministrator(ctx context.Context, a Audit, email string, msg Invitation) (DataAdministrator, int64, error) {
	defer d.roles.invalidate() // after the commit: the role may have changed
	email = NormalizeEmail(email)
	var outboxID int64
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM data_administrators WHERE email = ?`, email).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: fmt.Sprintf("%s is already a Data Administrator", email)}
		}
		// An Active Super User does all a Data Administrator does; the
		// invitation would say otherwise. (An Inactive one may be invited.)
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM super_users WHERE email = ? AND status = 'Active'`, email).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: fmt.Sprintf("%s is already an Active Super User, who can do all a Data Administrator can", email)}
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO data_administrators(email, status, invited_by, invited_at, updated_at) VALUES (?, 'Invited', ?, ?, ?)`,
			email, a.Actor, now, now); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO outbox(at, recipient, subject, body) VALUES (?, ?, ?, ?) RETURNING id`,
			now, msg.To, msg.Subject, msg.Body).Scan(&outboxID); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "invite", SubjectType: "DataAdministrator", SubjectID: email, Summary: "Status: Invited"})
	})
	if err != nil {
		return DataAdministrator{}, 0, err
	}
	u, err := d.GetDataAdministrator(ctx, email)
	return u, outboxID, err
}

// SetDataAdministratorStatus deactivates (Inactive) or reactivates (Active)
// a Data Administrator; check (nil: none) runs inside the transaction with
// the current version (If-Match), as in SetSuperUserStatus.
func (d *DB) SetDataAdministratorStatus(ctx context.Context, a Audit, email, status string, check func(cur DataAdministrator) error) (DataAdministrator, error) {
	defer d.roles.invalidate() // after the commit: the role may have changed
	email = NormalizeEmail(email)
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := current(ctx, tx, scanDataAdmin, check, `SELECT `+dataAdminCols+` FROM data_administrators WHERE email = ?`, email)
		if err != nil {
			return err
		}
		return d.writeUserStatus(ctx, tx, a, "data_administrators", "DataAdministrator", email, cur.Status, status)
	})
	if err != nil {
		return DataAdministrator{}, err
	}
	return d.GetDataAdministrator(ctx, email)
}

// writeUserStatus changes the status of the administrator email in table
// (super_users or data_administrators) from old to status, and audits it.
// An empty status leaves the record as it is; its own status takes it over
// from the groups that manage it (takeOverFromGroups).
func (d *DB) writeUserStatus(ctx context.Context, tx *sql.Tx, a Audit, table, subjectType, email, old, status string) error {
	if status == "" {
		return errUnchanged // left out: kept, and nothing written (docs/design.md §4)
	}
	if old == status {
		return d.takeOverFromGroups(ctx, tx, a, table, subjectType, email, status)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET status = ?, updated_at = ?, group_revoked = 0 WHERE email = ?`, status, d.stamp(), email); err != nil {
		return err
	}
	return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "status", SubjectType: subjectType, SubjectID: email,
		Summary: "Status: " + old + " -> " + status})
}

// takeOverFromGroups is a Super User setting the status a record already
// has: nothing changes, unless its group had revoked it; then the record is
// the Super User's from now on and groups no longer undo it (docs/design.md
// §16), a change that is audited like any other.
func (d *DB) takeOverFromGroups(ctx context.Context, tx *sql.Tx, a Audit, table, subjectType, email, status string) error {
	res, err := tx.ExecContext(ctx, `UPDATE `+table+` SET group_revoked = 0, updated_at = ? WHERE email = ? AND group_revoked = 1`, d.stamp(), email)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errUnchanged // rolled back: no version moves, no instance is told
	}
	return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "status", SubjectType: subjectType, SubjectID: email,
		Summary: "Status: " + status + " (kept; set by a Super User now, so groups no longer change it)"})
}

// OutboxMessage is a message the service wrote for someone
// (directory.OutboxMessage).
type OutboxMessage = directory.OutboxMessage

// MarkDelivered records that the outbox message went out by SMTP.
func (d *DB) MarkDelivered(ctx context.Context, id int64) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET delivered = 1 WHERE id = ?`, id)
		return err
	})
}

// ListOutbox returns the newest messages first.
func (d *DB) ListOutbox(ctx context.Context, limit int) ([]OutboxMessage, error) {
	out, err := queryList(ctx, d.db, func(row rowScanner) (OutboxMessage, error) {
		var m OutboxMessage
		var at string
		err := row.Scan(&m.ID, &at, &m.To, &m.Subject, &m.Body, &m.Delivered, &m.Attempts, &m.LastError)
		m.At = parseStamp(at)
		return m, err
	}, `SELECT id, at, recipient, subject, body, delivered, attempts, last_error FROM outbox ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: outbox: %w", err)
	}
	return out, nil
}

// RoleCacheAge is how long a role read from the database is used without
// reading it again. Changes made through this process's store are seen at
// once (every administrator change empties the cache); the age only bounds
// how late a change made by another process on the same file is seen.
const RoleCacheAge = 5 * time.Second

const maxCachedRoles = 10_000

// roleCache keeps the role of each e-mail that made a request recently:
// every request needs its role, and most come from the same few people.
type roleCache struct {
	gen     atomic.Int64 // bumped by every administrator change
	mu      sync.Mutex
	seenGen int64
	m       map[string]cachedRole
}

type cachedRole struct {
	acc Access
	at  time.Time
}

// invalidate forgets every cached role; call it after an administrator
// change commits.
func (c *roleCache) invalidate() { c.gen.Add(1) }

// get returns a cached role younger than RoleCacheAge, and the generation
// to put a freshly read one with.
func (c *roleCache) get(email string, now time.Time) (Access, bool, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.gen.Load()
	if g != c.seenGen {
		c.seenGen, c.m = g, nil
	}
	e, ok := c.m[email]
	if !ok || now.Sub(e.at) >= RoleCacheAge || now.Before(e.at) {
		return Access{}, false, g
	}
	return e.acc, true, g
}

// put caches a role read at generation gen; a change that committed since
// (a newer generation) makes it void.
func (c *roleCache) put(email string, gen int64, acc Access, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	if c.seenGen != gen {
		c.seenGen, c.m = gen, nil
	}
	if c.m == nil || len(c.m) >= maxCachedRoles {
		c.m = map[string]cachedRole{}
	}
	c.m[email] = cachedRole{acc: acc, at: now}
}
