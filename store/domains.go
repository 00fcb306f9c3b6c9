package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/trustframe/trustframe/directory"
)

// The types of docs/design.md §12 are the application layer's.
type (
	AuthorisationDomain = directory.AuthorisationDomain
	DomainRole          = directory.DomainRole
	Authority           = directory.Authority
)

// ClaimRef names a claim in the way of a change: the application layer's.
type ClaimRef = directory.ClaimRef

// inUse is the conflict of something the named records still use
// (docs/design.md §4).
var inUse = directory.InUse

// claimsWhere lists up to 100 claims matching cond (a condition on the
// claims table c); activeOnly keeps Active claims.
func claimsWhere(ctx context.Context, q querier, cond string, activeOnly bool, args ...any) ([]ClaimRef, error) {
	query := `SELECT c.claim_id, c.organisation_id, COALESCE(o.name, ''), c.domain, c.role, c.authority_id, COALESCE(a.name, ''), c.status
		FROM organisation_authority_claims c LEFT JOIN organisations o ON o.organisation_id = c.organisation_id
		LEFT JOIN authorities a ON a.authority_id = c.authority_id WHERE ` + cond
	if activeOnly {
		query += ` AND c.status = 'Active'`
	}
	return queryList(ctx, q, func(row rowScanner) (ClaimRef, error) {
		var c ClaimRef
		err := row.Scan(&c.ClaimID, &c.OrganisationID, &c.OrganisationName, &c.AuthorisationDomain, &c.Role, &c.AuthorityID, &c.AuthorityName, &c.Status)
		return c, err
	}, query+` ORDER BY c.organisation_id, c.domain, c.role, c.claim_id LIMIT 100`, args...)
}

// ListAuthorisationDomains returns every domain by name.
func (d *DB) ListAuthorisationDomains(ctx context.Context) ([]AuthorisationDomain, error) {
	return queryList(ctx, d.db, scanDomain, `SELECT name, description, status FROM authorisation_domains ORDER BY name`)
}

func scanDomain(row rowScanner) (AuthorisationDomain, error) {
	var a AuthorisationDomain
	err := row.Scan(&a.Name, &a.Description, &a.Status)
	return a, err
}

func getDomain(ctx context.Context, q rowQuerier, name string) (AuthorisationDomain, error) {
	return queryOne(ctx, q, scanDomain, `SELECT name, description, status FROM authorisation_domains WHERE name = ?`, name)
}

// GetAuthorisationDomain returns one domain or ErrNotFound.
func (d *DB) GetAuthorisationDomain(ctx context.Context, name string) (AuthorisationDomain, error) {
	return getDomain(ctx, d.db, name)
}

// CreateAuthorisationDomain adds a domain; an existing name is a conflict.
func (d *DB) CreateAuthorisationDomain(ctx context.Context, a Audit, dom AuthorisationDomain) (AuthorisationDomain, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := getDomain(ctx, tx, dom.Name); err == nil {
			return &ConflictError{Message: fmt.Sprintf("authorisation domain %q already exists: choose another name, or edit that domain.", dom.Name)}
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO authorisation_domains(name, description, status, created_on, updated_on) VALUES (?,?,?,?,?)`,
			dom.Name, dom.Description, dom.Status, now, now); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "AuthorisationDomain", SubjectID: dom.Name, Summary: created(dom)})
	})
	if err != nil {
		return AuthorisationDomain{}, err
	}
	return d.GetAuthorisationDomain(ctx, dom.Name)
}

// UpdateAuthorisationDomain changes a domain's description and status.
// Disabling a domain that Active claims use is a conflict naming them.
func (d *DB) UpdateAuthorisationDomain(ctx context.Context, a Audit, dom AuthorisationDomain, check directory.Check[AuthorisationDomain]) (AuthorisationDomain, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := getDomain(ctx, tx, dom.Name)
		if err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if dom.Status == "" { // left out: unchanged
			dom.Status = cur.Status
		}
		if cur.Status == "Active" && dom.Status == "Inactive" {
			claims, err := claimsWhere(ctx, tx, `c.domain = ?`, true, dom.Name)
			if err != nil {
				return err
			}
			if len(claims) > 0 {
				return inUse(fmt.Sprintf("Authorisation domain %q is used by %s", dom.Name, countClaims(claims, true)), directory.InTheWay{Claims: claims})
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE authorisation_domains SET description = ?, status = ?, updated_on = ? WHERE name = ?`,
			dom.Description, dom.Status, d.stamp(), dom.Name); err != nil {
			return err
		}
		return d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "AuthorisationDomain", SubjectID: dom.Name, Summary: diff(cur, dom)})
	})
	if err != nil {
		return AuthorisationDomain{}, err
	}
	return d.GetAuthorisationDomain(ctx, dom.Name)
}

func countClaims(c []ClaimRef, active bool) string {
	word := "claim"
	if active {
		word = "Active claim"
	}
	if len(c) == 1 {
		return "1 " + word
	}
	more := ""
	if len(c) == 100 {
		more = " or more"
	}
	return fmt.Sprintf("%d%s %ss", len(c), more, word)
}

// DeleteAuthorisationDomain removes a domain nothing refers to. Nothing
// cascades: its roles, the authorities that cover it, the claims and the
// policies that name it are in the way (409 naming them).
func (d *DB) DeleteAuthorisationDomain(ctx context.Context, a Audit, name string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := getDomain(ctx, tx, name); err != nil {
			return err
		}
		var parts directory.InTheWay
		var err error
		if parts.Claims, err = claimsWhere(ctx, tx, `c.domain = ?`, false, name); err != nil {
			return err
		}
		roles, err := d.listRoles(ctx, tx, name)
		if err != nil {
			return err
		}
		for _, r := range roles {
			parts.Roles = append(parts.Roles, directory.RoleRef{AuthorisationDomain: r.AuthorisationDomain, Name: r.Name})
		}
		parts.Authorities, err = queryList(ctx, tx, func(row rowScanner) (directory.AuthorityRef, error) {
			var a directory.AuthorityRef
			return a, row.Scan(&a.AuthorityID, &a.AuthorityName)
		}, `SELECT a.authority_id, a.name FROM authority_domains ad JOIN authorities a ON a.authority_id = ad.authority_id WHERE ad.domain = ? ORDER BY a.name LIMIT 100`, name)
		if err != nil {
			return err
		}
		if parts.RoleMetadataPolicies, err = policiesWhere(ctx, tx, `authorisation_domain = ? ORDER BY role, entity_type`, name); err != nil {
			return err
		}
		if !parts.Empty() {
			return inUse(fmt.Sprintf("Authorisation domain %q is in use: %s", name, parts.Summary()), parts)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM authorisation_domains WHERE name = ?`, name); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "delete", SubjectType: "AuthorisationDomain", SubjectID: name, Summary: "deleted"})
	})
}

// policiesWhere names the role metadata policies that match where (its
// ORDER BY included), at most 100.
func policiesWhere(ctx context.Context, tx *sql.Tx, where string, args ...any) ([]directory.PolicyRef, error) {
	return queryList(ctx, tx, func(row rowScanner) (directory.PolicyRef, error) {
		var p directory.PolicyRef
		return p, row.Scan(&p.PolicyID, &p.Policy)
	}, `SELECT policy_id, role || ' / ' || entity_type FROM role_metadata_policies WHERE `+where+` LIMIT 100`, args...)
}

const roleCols = `name, domain, type, exclusive, description, status`

func scanRole(row rowScanner) (DomainRole, error) {
	var r DomainRole
	err := row.Scan(&r.Name, &r.AuthorisationDomain, &r.Type, &r.Exclusive, &r.Description, &r.Status)
	return r, err
}

func (d *DB) listRoles(ctx context.Context, q querier, domain string) ([]DomainRole, error) {
	query, args := `SELECT `+roleCols+` FROM authorisation_domain_roles ORDER BY domain, name`, []any{}
	if domain != "" {
		query, args = `SELECT `+roleCols+` FROM authorisation_domain_roles WHERE domain = ? ORDER BY name`, []any{domain}
	}
	return queryList(ctx, q, scanRole, query, args...)
}

// ListDomainRoles returns the roles of one domain, or of every domain when
// domain is empty (by domain, then name).
func (d *DB) ListDomainRoles(ctx context.Context, domain string) ([]DomainRole, error) {
	return d.listRoles(ctx, d.db, domain)
}

func getRole(ctx context.Context, q rowQuerier, domain, name string) (DomainRole, error) {
	return queryOne(ctx, q, scanRole, `SELECT `+roleCols+` FROM authorisation_domain_roles WHERE domain = ? AND name = ?`, domain, name)
}

// GetDomainRole returns one role of a domain or ErrNotFound.
func (d *DB) GetDomainRole(ctx context.Context, domain, name string) (DomainRole, error) {
	return getRole(ctx, d.db, domain, name)
}

// CreateDomainRole adds a role to an existing domain (ErrNotFound when the
// domain does not exist); the name is unique within its domain.
func (d *DB) CreateDomainRole(ctx context.Context, a Audit, r DomainRole) (DomainRole, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := getDomain(ctx, tx, r.AuthorisationDomain); err != nil {
			return err
		}
		if _, err := getRole(ctx, tx, r.AuthorisationDomain, r.Name); err == nil {
			return &ConflictError{Message: fmt.Sprintf("domain %q already has a role %q: choose another name, or edit that role.", r.AuthorisationDomain, r.Name)}
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO authorisation_domain_roles(`+roleCols+`, created_on, updated_on) VALUES (?,?,?,?,?,?,?,?)`,
			r.Name, r.AuthorisationDomain, r.Type, r.Exclusive, r.Description, r.Status, now, now); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Role", SubjectID: r.AuthorisationDomain + "/" + r.Name, Summary: created(r)})
	})
	if err != nil {
		return DomainRole{}, err
	}
	return d.GetDomainRole(ctx, r.AuthorisationDomain, r.Name)
}

// UpdateDomainRole changes a role's type, exclusivity, description and
// status. Disabling it while Active claims use it, or making it Exclusive
// while an organisation holds it beside other roles, is a conflict naming
// the claims.
func (d *DB) UpdateDomainRole(ctx context.Context, a Audit, r DomainRole, check directory.Check[DomainRole]) (DomainRole, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := getRole(ctx, tx, r.AuthorisationDomain, r.Name)
		if err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if r.Status == "" { // left out: unchanged
			r.Status = cur.Status
		}
		if cur.Status == "Active" && r.Status == "Inactive" {
			claims, err := claimsWhere(ctx, tx, `c.domain = ? AND c.role = ?`, true, r.AuthorisationDomain, r.Name)
			if err != nil {
				return err
			}
			if len(claims) > 0 {
				return inUse(fmt.Sprintf("Role %q of %q is held by %s", r.Name, r.AuthorisationDomain, countClaims(claims, true)), directory.InTheWay{Claims: claims})
			}
		}
		if !cur.Exclusive && r.Exclusive {
			// Claims of organisations that hold this role and another one.
			others, err := claimsWhere(ctx, tx, `c.organisation_id IN (SELECT organisation_id FROM organisation_authority_claims
				WHERE domain = ? AND role = ? AND status = 'Active') AND NOT (c.domain = ? AND c.role = ?)`, true,
				r.AuthorisationDomain, r.Name, r.AuthorisationDomain, r.Name)
			if err != nil {
				return err
			}
			if len(others) > 0 {
				return inUse(fmt.Sprintf("Role %q cannot become Exclusive: organisations that hold it hold other roles (%s)", r.Name, countClaims(others, true)),
					directory.InTheWay{Claims: others})
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE authorisation_domain_roles SET type = ?, exclusive = ?, description = ?, status = ?, updated_on = ? WHERE domain = ? AND name = ?`,
			r.Type, r.Exclusive, r.Description, r.Status, d.stamp(), r.AuthorisationDomain, r.Name); err != nil {
			return err
		}
		return d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "Role", SubjectID: r.AuthorisationDomain + "/" + r.Name, Summary: diff(cur, r)})
	})
	if err != nil {
		return DomainRole{}, err
	}
	return d.GetDomainRole(ctx, r.AuthorisationDomain, r.Name)
}

// DeleteDomainRole removes a role no claim (of any status) and no role
// metadata policy names.
func (d *DB) DeleteDomainRole(ctx context.Context, a Audit, domain, name string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := getRole(ctx, tx, domain, name); err != nil {
			return err
		}
		var parts directory.InTheWay
		var err error
		if parts.Claims, err = claimsWhere(ctx, tx, `c.domain = ? AND c.role = ?`, false, domain, name); err != nil {
			return err
		}
		if parts.RoleMetadataPolicies, err = policiesWhere(ctx, tx, `authorisation_domain = ? AND role = ? ORDER BY entity_type`, domain, name); err != nil {
			return err
		}
		if !parts.Empty() {
			return inUse(fmt.Sprintf("Role %q of %q is in use: %s", name, domain, parts.Summary()), parts)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM authorisation_domain_roles WHERE domain = ? AND name = ?`, domain, name); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "delete", SubjectType: "Role", SubjectID: domain + "/" + name, Summary: "deleted"})
	})
}

const authorityCols = `authority_id, name, code, country, status`

func (d *DB) authorities(ctx context.Context, q querier, id string) ([]Authority, error) {
	query, args := `SELECT `+authorityCols+` FROM authorities ORDER BY name`, []any{}
	if id != "" {
		query, args = `SELECT `+authorityCols+` FROM authorities WHERE authority_id = ?`, []any{id}
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	out := []Authority{}
	index := map[string]int{}
	for rows.Next() {
		var au Authority
		if err := rows.Scan(&au.AuthorityID, &au.AuthorityName, &au.AuthorityCode, &au.Country, &au.Status); err != nil {
			rows.Close()
			return nil, err
		}
		au.AuthorisationDomains = []string{}
		index[au.AuthorityID] = len(out)
		out = append(out, au)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	dq, dargs := `SELECT authority_id, domain FROM authority_domains ORDER BY domain`, []any{}
	if id != "" {
		dq, dargs = `SELECT authority_id, domain FROM authority_domains WHERE authority_id = ? ORDER BY domain`, []any{id}
	}
	drows, err := q.QueryContext(ctx, dq, dargs...)
	if err != nil {
		return nil, err
	}
	defer drows.Close()
	for drows.Next() {
		var aid, dom string
		if err := drows.Scan(&aid, &dom); err != nil {
			return nil, err
		}
		if i, ok := index[aid]; ok {
			out[i].AuthorisationDomains = append(out[i].AuthorisationDomains, dom)
		}
	}
	return out, drows.Err()
}

// ListAuthorities returns every authority with the domains it covers.
func (d *DB) ListAuthorities(ctx context.Context) ([]Authority, error) {
	return d.authorities(ctx, d.db, "")
}

// GetAuthority returns one authority or ErrNotFound.
func (d *DB) GetAuthority(ctx context.Context, id string) (Authority, error) {
	l, err := d.authorities(ctx, d.db, id)
	if err != nil {
		return Authority{}, err
	}
	if len(l) == 0 {
		return Authority{}, ErrNotFound
	}
	return l[0], nil
}

func getAuthorityTx(ctx context.Context, d *DB, tx *sql.Tx, id string) (Authority, error) {
	l, err := d.authorities(ctx, tx, id)
	if err != nil {
		return Authority{}, err
	}
	if len(l) == 0 {
		return Authority{}, ErrNotFound
	}
	return l[0], nil
}

// authorityDomains adds to problems an authority's domain that does not
// exist (the first found).
func authorityDomains(ctx context.Context, tx *sql.Tx, problems directory.Fields, au Authority) error {
	for _, dom := range au.AuthorisationDomains {
		if _, err := getDomain(ctx, tx, dom); errors.Is(err, ErrNotFound) {
			return problems.Take(&FieldError{Field: "AuthorisationDomains", Message: fmt.Sprintf("there is no authorisation domain %q", dom)})
		} else if err != nil {
			return err
		}
	}
	return nil
}

// authorityTaken refuses a name or a code another authority has.
func authorityTaken(ctx context.Context, tx *sql.Tx, au Authority) error {
	var other string
	err := tx.QueryRowContext(ctx, `SELECT authority_id FROM authorities WHERE name = ? AND authority_id <> ?`, au.AuthorityName, au.AuthorityID).Scan(&other)
	if err == nil {
		return &ConflictError{Message: fmt.Sprintf("another authority (%s) is called %q: choose another name.", other, au.AuthorityName)}
	} else if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	err = tx.QueryRowContext(ctx, `SELECT authority_id FROM authorities WHERE code = ? AND authority_id <> ?`, au.AuthorityCode, au.AuthorityID).Scan(&other)
	if err == nil {
		return &ConflictError{Message: fmt.Sprintf("another authority (%s) has the code %q: choose another code.", other, au.AuthorityCode)}
	} else if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return nil
}

func setAuthorityDomains(ctx context.Context, tx *sql.Tx, id string, domains []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM authority_domains WHERE authority_id = ?`, id); err != nil {
		return err
	}
	for _, dom := range domains {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO authority_domains(authority_id, domain) VALUES (?, ?)`, id, dom); err != nil {
			return err
		}
	}
	return nil
}

// CreateAuthority adds an authority (its id given or generated). problems
// are what is already known to be wrong with its fields: that its domains
// exist is added to them, and when any remains nothing is written. Then an
// id, a name or a code another authority has is a conflict.
func (d *DB) CreateAuthority(ctx context.Context, a Audit, au Authority, problems directory.Fields) (Authority, error) {
	if au.AuthorityID == "" {
		au.AuthorityID = NewID()
	}
	au.AuthorisationDomains = nonNil(au.AuthorisationDomains)
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		if err := authorityDomains(ctx, tx, problems, au); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if _, err := getAuthorityTx(ctx, d, tx, au.AuthorityID); err == nil {
			return &ConflictError{Message: "an authority with AuthorityId " + au.AuthorityID + " already exists."}
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := authorityTaken(ctx, tx, au); err != nil {
			return err
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO authorities(`+authorityCols+`, created_on, updated_on) VALUES (?,?,?,?,?,?,?)`,
			au.AuthorityID, au.AuthorityName, au.AuthorityCode, au.Country, au.Status, now, now); err != nil {
			return err
		}
		if err := setAuthorityDomains(ctx, tx, au.AuthorityID, au.AuthorisationDomains); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Authority", SubjectID: au.AuthorityID, Summary: created(au)})
	})
	if err != nil {
		return Authority{}, err
	}
	return d.GetAuthority(ctx, au.AuthorityID)
}

// UpdateAuthority replaces an authority's writable fields. problems are as
// for CreateAuthority; check runs on the stored authority once the fields
// pass. Disabling it while Active claims use it, or dropping a domain its
// Active claims are in, is a conflict naming the claims.
func (d *DB) UpdateAuthority(ctx context.Context, a Audit, au Authority, problems directory.Fields, check directory.Check[Authority]) (Authority, error) {
	au.AuthorisationDomains = nonNil(au.AuthorisationDomains)
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		cur, err := getAuthorityTx(ctx, d, tx, au.AuthorityID)
		if err != nil {
			return err
		}
		if err := authorityDomains(ctx, tx, problems, au); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if au.Status == "" { // left out: unchanged
			au.Status = cur.Status
		}
		if err := authorityTaken(ctx, tx, au); err != nil {
			return err
		}
		if cur.Status == "Active" && au.Status == "Inactive" {
			claims, err := claimsWhere(ctx, tx, `c.authority_id = ?`, true, au.AuthorityID)
			if err != nil {
				return err
			}
			if len(claims) > 0 {
				return inUse(fmt.Sprintf("Authority %q is named by %s", cur.AuthorityName, countClaims(claims, true)), directory.InTheWay{Claims: claims})
			}
		}
		keep := map[string]bool{}
		for _, dom := range au.AuthorisationDomains {
			keep[dom] = true
		}
		var dropped []ClaimRef
		for _, dom := range cur.AuthorisationDomains {
			if keep[dom] {
				continue
			}
			claims, err := claimsWhere(ctx, tx, `c.authority_id = ? AND c.domain = ?`, true, au.AuthorityID, dom)
			if err != nil {
				return err
			}
			dropped = append(dropped, claims...)
		}
		if len(dropped) > 0 {
			return inUse(fmt.Sprintf("Authority %q must keep covering the domains of its %s", cur.AuthorityName, countClaims(dropped, true)), directory.InTheWay{Claims: dropped})
		}
		if _, err := tx.ExecContext(ctx, `UPDATE authorities SET name = ?, code = ?, country = ?, status = ?, updated_on = ? WHERE authority_id = ?`,
			au.AuthorityName, au.AuthorityCode, au.Country, au.Status, d.stamp(), au.AuthorityID); err != nil {
			return err
		}
		if err := setAuthorityDomains(ctx, tx, au.AuthorityID, au.AuthorisationDomains); err != nil {
			return err
		}
		next, err := getAuthorityTx(ctx, d, tx, au.AuthorityID)
		if err != nil {
			return err
		}
		return d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "Authority", SubjectID: au.AuthorityID, Summary: diff(cur, next)})
	})
	if err != nil {
		return Authority{}, err
	}
	return d.GetAuthority(ctx, au.AuthorityID)
}

// DeleteAuthority removes an authority no claim names (of any status);
// the domains it covered stay.
func (d *DB) DeleteAuthority(ctx context.Context, a Audit, id string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := getAuthorityTx(ctx, d, tx, id)
		if err != nil {
			return err
		}
		claims, err := claimsWhere(ctx, tx, `c.authority_id = ?`, false, id)
		if err != nil {
			return err
		}
		if len(claims) > 0 {
			return inUse(fmt.Sprintf("Authority %q is named by %s", cur.AuthorityName, countClaims(claims, false)), directory.InTheWay{Claims: claims})
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM authority_domains WHERE authority_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM authorities WHERE authority_id = ?`, id); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "delete", SubjectType: "Authority", SubjectID: id, Summary: "deleted " + cur.AuthorityName})
	})
}
