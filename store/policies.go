package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/trustframe/trustframe/directory"
)

// RoleMetadataPolicy is a metadata policy for one role and entity type
// (directory.RoleMetadataPolicy).
type RoleMetadataPolicy = directory.RoleMetadataPolicy

const rmpCols = `policy_id, authorisation_domain, role, entity_type, policy, description, status, created_on, updated_on`

func scanRMP(row rowScanner) (RoleMetadataPolicy, error) {
	var p RoleMetadataPolicy
	var pol, c, u string
	err := row.Scan(&p.PolicyID, &p.AuthorisationDomain, &p.Role, &p.EntityType, &pol, &p.Description, &p.Status, &c, &u)
	p.Policy, p.CreatedOn, p.UpdatedOn = json.RawMessage(pol), parseStamp(c), parseStamp(u)
	return p, err
}

// ListRoleMetadataPolicies returns every policy.
func (d *DB) ListRoleMetadataPolicies(ctx context.Context) ([]RoleMetadataPolicy, error) {
	return queryList(ctx, d.db, scanRMP, `SELECT `+rmpCols+` FROM role_metadata_policies ORDER BY authorisation_domain, role, entity_type`)
}

// GetRoleMetadataPolicy returns one policy or ErrNotFound.
func (d *DB) GetRoleMetadataPolicy(ctx context.Context, id string) (RoleMetadataPolicy, error) {
	return queryOne(ctx, d.db, scanRMP, `SELECT `+rmpCols+` FROM role_metadata_policies WHERE policy_id = ?`, id)
}

// SaveRoleMetadataPolicy creates (empty PolicyID) or replaces a policy; one
// policy per role and entity type.
func (d *DB) SaveRoleMetadataPolicy(ctx context.Context, a Audit, p RoleMetadataPolicy, check func(cur RoleMetadataPolicy) error) (RoleMetadataPolicy, error) {
	isNew := p.PolicyID == ""
	if isNew {
		p.PolicyID = NewID()
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if err := checkPolicyRole(ctx, tx, p.AuthorisationDomain, p.Role); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM role_metadata_policies WHERE authorisation_domain = ? AND role = ? AND entity_type = ? AND policy_id <> ?`,
			p.AuthorisationDomain, p.Role, p.EntityType, p.PolicyID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: fmt.Sprintf("role %s of %s already has a policy for %s", p.Role, p.AuthorisationDomain, p.EntityType)}
		}
		now := d.stamp()
		if isNew {
			if _, err := tx.ExecContext(ctx, `INSERT INTO role_metadata_policies(`+rmpCols+`) VALUES (?,?,?,?,?,?,?,?,?)`,
				p.PolicyID, p.AuthorisationDomain, p.Role, p.EntityType, string(p.Policy), p.Description, p.Status, now, now); err != nil {
				return err
			}
			return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "RoleMetadataPolicy", SubjectID: p.PolicyID,
				Summary: "AuthorisationDomain: " + p.AuthorisationDomain + "; Role: " + p.Role + "; EntityType: " + p.EntityType})
		}
		cur, err := current(ctx, tx, scanRMP, check, `SELECT `+rmpCols+` FROM role_metadata_policies WHERE policy_id = ?`, p.PolicyID)
		if err != nil {
			return err
		}
		if p.Status == "" {
			p.Status = cur.Status // left out: kept (docs/design.md §4)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE role_metadata_policies SET authorisation_domain=?, role=?, entity_type=?, policy=?, description=?, status=?, updated_on=? WHERE policy_id=?`,
			p.AuthorisationDomain, p.Role, p.EntityType, string(p.Policy), p.Description, p.Status, now, p.PolicyID); err != nil {
			return err
		}
		return d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "RoleMetadataPolicy", SubjectID: p.PolicyID, Summary: diff(cur, p)})
	})
	if err != nil {
		return RoleMetadataPolicy{}, err
	}
	return d.GetRoleMetadataPolicy(ctx, p.PolicyID)
}

// checkPolicyRole: a policy names an existing role of an existing domain
// (docs/design.md §7 and "Authorisation domains").
func checkPolicyRole(ctx context.Context, tx *sql.Tx, domain, role string) error {
	if _, err := getDomain(ctx, tx, domain); errors.Is(err, ErrNotFound) {
		return &FieldError{Field: "AuthorisationDomain", Message: fmt.Sprintf("there is no authorisation domain %q", domain)}
	} else if err != nil {
		return err
	}
	r, err := getRole(ctx, tx, domain, role)
	if errors.Is(err, ErrNotFound) {
		return &FieldError{Field: "Role", Message: fmt.Sprintf("%q is not a role of the domain %q", role, domain)}
	} else if err != nil {
		return err
	}
	if r.Type != "Federation" {
		return &FieldError{Field: "Role", Message: fmt.Sprintf("%q is a %s role: metadata policies apply to Federation roles", role, r.Type)}
	}
	return nil
}
