package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// AuthorityClaim says that an authority authorised an organisation for a
// role of a domain: the application layer's.
type AuthorityClaim = directory.AuthorityClaim

const claimSelect = `SELECT c.claim_id, c.organisation_id, c.authority_id, a.name, c.domain, c.role, c.registration_id, c.status, c.created_on, c.updated_on
	FROM organisation_authority_claims c JOIN authorities a ON a.authority_id = c.authority_id`

func scanClaim(row rowScanner) (AuthorityClaim, error) {
	var c AuthorityClaim
	var cr, up string
	err := row.Scan(&c.ClaimID, &c.OrganisationID, &c.AuthorityID, &c.AuthorityName, &c.AuthorisationDomain, &c.Role, &c.RegistrationID, &c.Status, &cr, &up)
	c.CreatedOn, c.UpdatedOn = parseStamp(cr), parseStamp(up)
	return c, err
}

// ListAuthorityClaims returns an organisation's claims, Active first.
func (d *DB) ListAuthorityClaims(ctx context.Context, orgID string) ([]AuthorityClaim, error) {
	return queryList(ctx, d.db, scanClaim, claimSelect+` WHERE c.organisation_id = ? ORDER BY c.status, c.domain, c.role, c.created_on`, orgID)
}

func getClaim(ctx context.Context, q rowQuerier, orgID, id string) (AuthorityClaim, error) {
	return queryOne(ctx, q, scanClaim, claimSelect+` WHERE c.organisation_id = ? AND c.claim_id = ?`, orgID, id)
}

// GetAuthorityClaim returns one claim of an organisation or ErrNotFound.
func (d *DB) GetAuthorityClaim(ctx context.Context, orgID, id string) (AuthorityClaim, error) {
	return getClaim(ctx, d.db, orgID, id)
}

// ActiveClaimRoles returns the role names of an organisation's Active
// claims, sorted, each once.
func (d *DB) ActiveClaimRoles(ctx context.Context, orgID string) ([]string, error) {
	return activeRoles(ctx, d.db, orgID)
}

func activeRoles(ctx context.Context, q querier, orgID string) ([]string, error) {
	return queryList(ctx, q, scanString, `SELECT DISTINCT role FROM organisation_authority_claims WHERE organisation_id = ? AND status = 'Active' ORDER BY role`, orgID)
}

// checkActiveClaim checks, inside the write transaction, what must hold
// for c to be an Active claim: the authority, domain and role exist and
// are Active, the authority covers the domain, the organisation does not
// hold the role already, and the Exclusive rule both ways. Because SQLite
// runs one write transaction at a time (immediate transactions), two
// writers racing to add conflicting claims cannot both pass it.
func checkActiveClaim(ctx context.Context, tx *sql.Tx, c AuthorityClaim) error {
	var authStatus string
	err := tx.QueryRowContext(ctx, `SELECT status FROM authorities WHERE authority_id = ?`, c.AuthorityID).Scan(&authStatus)
	if errors.Is(err, sql.ErrNoRows) {
		return &FieldError{Field: "AuthorityId", Message: fmt.Sprintf("there is no authority %q", c.AuthorityID)}
	} else if err != nil {
		return err
	}
	if authStatus != "Active" {
		return &FieldError{Field: "AuthorityId", Message: "the authority is Inactive"}
	}
	dom, err := getDomain(ctx, tx, c.AuthorisationDomain)
	if errors.Is(err, ErrNotFound) {
		return &FieldError{Field: "AuthorisationDomain", Message: fmt.Sprintf("there is no authorisation domain %q", c.AuthorisationDomain)}
	} else if err != nil {
		return err
	}
	if dom.Status != "Active" {
		return &FieldError{Field: "AuthorisationDomain", Message: fmt.Sprintf("the authorisation domain %q is Inactive", c.AuthorisationDomain)}
	}
	role, err := getRole(ctx, tx, c.AuthorisationDomain, c.Role)
	if errors.Is(err, ErrNotFound) {
		var elsewhere string
		_ = tx.QueryRowContext(ctx, `SELECT domain FROM authorisation_domain_roles WHERE name = ? ORDER BY domain LIMIT 1`, c.Role).Scan(&elsewhere)
		msg := fmt.Sprintf("%q is not a role of the domain %q", c.Role, c.AuthorisationDomain)
		if elsewhere != "" {
			msg += fmt.Sprintf(" (it is a role of %q)", elsewhere)
		}
		return &FieldError{Field: "Role", Message: msg}
	} else if err != nil {
		return err
	}
	if role.Status != "Active" {
		return &FieldError{Field: "Role", Message: fmt.Sprintf("the role %q is Inactive", c.Role)}
	}
	var covers int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM authority_domains WHERE authority_id = ? AND domain = ?`, c.AuthorityID, c.AuthorisationDomain).Scan(&covers); err != nil {
		return err
	}
	if covers == 0 {
		return &FieldError{Field: "AuthorityId", Message: fmt.Sprintf("the authority does not cover the domain %q", c.AuthorisationDomain)}
	}
	same, err := claimsWhere(ctx, tx, `c.organisation_id = ? AND c.domain = ? AND c.role = ? AND c.claim_id <> ?`, true, c.OrganisationID, c.AuthorisationDomain, c.Role, c.ClaimID)
	if err != nil {
		return err
	}
	if len(same) > 0 {
		return inUse(fmt.Sprintf("The organisation already holds the role %q of %q", c.Role, c.AuthorisationDomain), directory.InTheWay{Claims: same})
	}
	others, err := claimsWhere(ctx, tx, `c.organisation_id = ? AND c.claim_id <> ?`, true, c.OrganisationID, c.ClaimID)
	if err != nil {
		return err
	}
	if role.Exclusive && len(others) > 0 {
		return inUse(fmt.Sprintf("The role %q is Exclusive, and the organisation holds other roles (%s)", c.Role, countClaims(others, true)), directory.InTheWay{Claims: others})
	}
	exclusive, err := claimsWhere(ctx, tx, `c.organisation_id = ? AND c.claim_id <> ? AND EXISTS (SELECT 1 FROM authorisation_domain_roles r
		WHERE r.domain = c.domain AND r.name = c.role AND r.exclusive = 1)`, true, c.OrganisationID, c.ClaimID)
	if err != nil {
		return err
	}
	if len(exclusive) > 0 {
		return inUse(fmt.Sprintf("The organisation holds the Exclusive role %q and can hold no other", exclusive[0].Role), directory.InTheWay{Claims: exclusive})
	}
	return nil
}

// CreateAuthorityClaim adds a claim to an organisation (ErrNotFound when
// the organisation does not exist). The rules of checkActiveClaim apply
// to an Active claim; an Inactive one (history) needs only existing
// references.
func (d *DB) CreateAuthorityClaim(ctx context.Context, a Audit, c AuthorityClaim, problems directory.Fields) (AuthorityClaim, error) {
	c.ClaimID = NewID()
	d.lists.beginWrite()
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		if err := orgExists(ctx, tx, c.OrganisationID); err != nil {
			return err
		}
		refs := checkClaimRefs(ctx, tx, c)
		if err := problems.Take(refs); err != nil {
			return err
		}
		if refs == nil && c.Status == "Active" {
			// With other problems, only a field the rule names is added:
			// the conflict of the Exclusive rule waits for a claim that is
			// otherwise whole.
			var ce *ConflictError
			if err := problems.Take(checkActiveClaim(ctx, tx, c)); err != nil && (len(problems) == 0 || !errors.As(err, &ce)) {
				return err
			}
		}
		if err := problems.Err(); err != nil {
			return err
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO organisation_authority_claims(claim_id, organisation_id, authority_id, domain, role, registration_id, status, created_on, updated_on)
			VALUES (?,?,?,?,?,?,?,?,?)`, c.ClaimID, c.OrganisationID, c.AuthorityID, c.AuthorisationDomain, c.Role, c.RegistrationID, c.Status, now, now); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "AuthorityClaim", SubjectID: c.ClaimID, OrganisationID: c.OrganisationID,
			Summary: fmt.Sprintf("AuthorityId: %s; AuthorisationDomain: %s; Role: %s; RegistrationId: %s; Status: %s", c.AuthorityID, c.AuthorisationDomain, c.Role, c.RegistrationID, c.Status)})
	})
	d.lists.endClaimsWrite(err)
	if err != nil {
		return AuthorityClaim{}, err
	}
	return d.GetAuthorityClaim(ctx, c.OrganisationID, c.ClaimID)
}

// checkClaimRefs checks that what a claim names exists (a 422 on the
// field otherwise), whatever its status.
func checkClaimRefs(ctx context.Context, tx *sql.Tx, c AuthorityClaim) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM authorities WHERE authority_id = ?`, c.AuthorityID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return &FieldError{Field: "AuthorityId", Message: fmt.Sprintf("there is no authority %q", c.AuthorityID)}
	}
	if _, err := getDomain(ctx, tx, c.AuthorisationDomain); errors.Is(err, ErrNotFound) {
		return &FieldError{Field: "AuthorisationDomain", Message: fmt.Sprintf("there is no authorisation domain %q", c.AuthorisationDomain)}
	} else if err != nil {
		return err
	}
	if _, err := getRole(ctx, tx, c.AuthorisationDomain, c.Role); errors.Is(err, ErrNotFound) {
		return &FieldError{Field: "Role", Message: fmt.Sprintf("%q is not a role of the domain %q", c.Role, c.AuthorisationDomain)}
	} else if err != nil {
		return err
	}
	return nil
}

// UpdateAuthorityClaim changes a claim's RegistrationId and Status
// (directory.AuthorityClaim.Applied); what it names does not change.
// problems are what the caller found already: the rule of Applied is added
// to them and when any remains nothing is written; check runs on the
// stored claim once the fields pass. Making a claim Active again checks
// every rule of a new one.
func (d *DB) UpdateAuthorityClaim(ctx context.Context, a Audit, c AuthorityClaim, problems directory.Fields, check directory.Check[AuthorityClaim]) (AuthorityClaim, error) {
	d.lists.beginWrite()
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		cur, err := getClaim(ctx, tx, c.OrganisationID, c.ClaimID)
		if err != nil {
			return err
		}
		next, reactivated := c.Applied(cur, problems)
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if reactivated {
			if err := checkActiveClaim(ctx, tx, next); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE organisation_authority_claims SET registration_id = ?, status = ?, updated_on = ? WHERE claim_id = ?`,
			next.RegistrationID, next.Status, d.stamp(), c.ClaimID); err != nil {
			return err
		}
		action := "update"
		if cur.Status != next.Status {
			action = "status"
		}
		cur.UpdatedOn, next.UpdatedOn = time.Time{}, time.Time{}
		if err := d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: action, SubjectType: "AuthorityClaim", SubjectID: c.ClaimID, OrganisationID: c.OrganisationID, Summary: diff(cur, next)}); err != nil {
			return err
		}
		return d.revokeLapsedMarks(ctx, tx, a, lapseScope{orgID: c.OrganisationID})
	})
	d.lists.endClaimsWrite(err)
	if err != nil {
		return AuthorityClaim{}, err
	}
	return d.GetAuthorityClaim(ctx, c.OrganisationID, c.ClaimID)
}

// checkAppRoles checks, inside an application's write transaction, that
// every role in roles is held by an Active claim of the organisation;
// roles in kept (the application's current roles) are let through, so an
// application whose claim went Inactive can still be edited otherwise.
func checkAppRoles(ctx context.Context, tx *sql.Tx, orgID string, roles, kept []string) error {
	if len(roles) == 0 {
		return nil
	}
	held, err := activeRoles(ctx, tx, orgID)
	if err != nil {
		return err
	}
	ok := map[string]bool{}
	for _, r := range held {
		ok[r] = true
	}
	for _, r := range kept {
		ok[r] = true
	}
	for _, r := range roles {
		if !ok[r] {
			msg := fmt.Sprintf("the organisation holds no Active claim on the role %q", r)
			if len(held) > 0 {
				msg += fmt.Sprintf(" (it holds %s)", joinQuoted(held))
			}
			return &FieldError{Field: "Roles", Message: msg}
		}
	}
	return nil
}

func joinQuoted(l []string) string {
	s := ""
	for i, v := range l {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", v)
	}
	return s
}

// OrgDomainRoleClaim is an Active claim as the participants list shows it
// (OrganisationAuthorityClaim of the open-finance participants schema):
// the members docs/design.md §12 names. The organisation and authority
// are kept for building the list and not published: the organisation is
// the participant the claim sits in, and the authority is named by the
// OrgDomainClaims entry of the same domain and registration.
type OrgDomainRoleClaim struct {
	OrganisationID      string          `json:"-"`
	AuthorityID         string          `json:"-"`
	Status              string          `json:"Status"`
	AuthorisationDomain string          `json:"AuthorisationDomain"`
	Role                string          `json:"Role"`
	Authorisations      []Authorisation `json:"Authorisations"`
	RegistrationID      string          `json:"RegistrationId"`
}

// Authorisation is a member-state authorisation of a role claim; none are
// recorded yet, so the list is always empty.
type Authorisation struct {
	Status      string `json:"Status"`
	MemberState string `json:"MemberState"`
}

// OrgDomainClaim is one authority and domain in which an organisation
// holds at least one Active role claim (OrganisationAuthorityDomainClaim
// of the participants schema), with the members docs/design.md §12 names.
type OrgDomainClaim struct {
	AuthorityID             string `json:"-"`
	AuthorisationDomainName string `json:"AuthorisationDomainName"`
	AuthorityName           string `json:"AuthorityName"`
	RegistrationID          string `json:"RegistrationId"`
	Status                  string `json:"Status"`
}

// participantClaims adds the Active claims of the listed organisations
// (index: organisation id -> position in out) in one pass over the Active
// claims; authorities' names come from a map (there are few).
func participantClaims(ctx context.Context, q querier, out []Participant, index map[string]int) error {
	names := map[string]string{}
	arows, err := q.QueryContext(ctx, `SELECT authority_id, name FROM authorities`)
	if err != nil {
		return fmt.Errorf("store: participants' authorities: %w", err)
	}
	for arows.Next() {
		var id, name string
		if err := arows.Scan(&id, &name); err != nil {
			arows.Close()
			return err
		}
		names[id] = name
	}
	arows.Close()
	if err := arows.Err(); err != nil {
		return err
	}
	// One pass over the covering index claims_participants; claims of
	// organisations that are not listed are skipped here.
	rows, err := q.QueryContext(ctx, `SELECT organisation_id, authority_id, domain, role, registration_id FROM organisation_authority_claims
		INDEXED BY claims_participants WHERE status = 'Active'`)
	if err != nil {
		return fmt.Errorf("store: participants' claims: %w", err)
	}
	defer rows.Close()
	var touched []int
	for rows.Next() {
		var c OrgDomainRoleClaim
		if err := rows.Scan(&c.OrganisationID, &c.AuthorityID, &c.AuthorisationDomain, &c.Role, &c.RegistrationID); err != nil {
			return err
		}
		i, ok := index[c.OrganisationID]
		if !ok {
			continue
		}
		c.Status, c.Authorisations = "Active", []Authorisation{}
		if len(out[i].OrgDomainRoleClaims) == 0 {
			touched = append(touched, i)
		}
		out[i].OrgDomainRoleClaims = append(out[i].OrgDomainRoleClaims, c)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, i := range touched {
		p := &out[i]
		sort.Slice(p.OrgDomainRoleClaims, func(a, b int) bool {
			x, y := p.OrgDomainRoleClaims[a], p.OrgDomainRoleClaims[b]
			if x.AuthorisationDomain != y.AuthorisationDomain {
				return x.AuthorisationDomain < y.AuthorisationDomain
			}
			return x.Role < y.Role
		})
		for _, c := range p.OrgDomainRoleClaims {
			seen := false
			for _, dc := range p.OrgDomainClaims {
				if dc.AuthorityID == c.AuthorityID && dc.AuthorisationDomainName == c.AuthorisationDomain {
					seen = true
					break
				}
			}
			if !seen {
				p.OrgDomainClaims = append(p.OrgDomainClaims, OrgDomainClaim{
					AuthorityID: c.AuthorityID, AuthorisationDomainName: c.AuthorisationDomain, AuthorityName: names[c.AuthorityID],
					RegistrationID: c.RegistrationID, Status: "Active",
				})
			}
		}
	}
	return nil
}

// HeldRole is a role an organisation holds (directory.HeldRole).
type HeldRole = directory.HeldRole

// ActiveRolesOf returns the roles of the Active claims of each of the
// organisations ids (a page of the organisation list), by domain and role,
// in one query over the claims_organisation index; an organisation
// without Active claims has no entry.
func (d *DB) ActiveRolesOf(ctx context.Context, ids []string) (map[string][]HeldRole, error) {
	out := map[string][]HeldRole{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	type held struct {
		org string
		HeldRole
	}
	rows, err := queryList(ctx, d.db, func(row rowScanner) (held, error) {
		var h held
		err := row.Scan(&h.org, &h.AuthorisationDomain, &h.Role)
		return h, err
	}, `SELECT organisation_id, domain, role FROM organisation_authority_claims
		WHERE organisation_id IN (`+strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")+`) AND status = 'Active'
		ORDER BY organisation_id, domain, role`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: roles of organisations: %w", err)
	}
	for _, h := range rows {
		out[h.org] = append(out[h.org], h.HeldRole)
	}
	return out, nil
}
