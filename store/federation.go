package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// FederationSubject is an application or authorisation server that the
// directory's federation lists as a leaf below its anchor (docs/design.md
// §13): Active, of an Active organisation, with a FederationEntityId.
type FederationSubject struct {
	EntityID         string
	Kind             string // Application or AuthorisationServer
	ID               string
	OrganisationID   string
	OrganisationName string
	Roles            []string // an application's roles; nil for a server
}

const fedSubjectsSQL = `SELECT s.federation_entity_id, 'Application', s.software_statement_id, o.organisation_id, o.name, s.roles
	FROM software_statements s JOIN organisations o ON o.organisation_id = s.organisation_id
	WHERE s.federation_entity_id <> '' AND s.status = 'Active' AND o.status = 'Active' %s
	UNION ALL
	SELECT a.federation_entity_id, 'AuthorisationServer', a.authorisation_server_id, o.organisation_id, o.name, ''
	FROM authorisation_servers a JOIN organisations o ON o.organisation_id = a.organisation_id
	WHERE a.federation_entity_id <> '' AND a.status = 'Active' AND o.status = 'Active' %s`

func scanFedSubject(row rowScanner) (FederationSubject, error) {
	var s FederationSubject
	var roles string
	err := row.Scan(&s.EntityID, &s.Kind, &s.ID, &s.OrganisationID, &s.OrganisationName, &roles)
	if s.Kind == "Application" {
		s.Roles = parseList(roles)
	}
	return s, err
}

// FederationSubjects lists every subordinate of the directory's federation,
// in no particular order.
func (d *DB) FederationSubjects(ctx context.Context) ([]FederationSubject, error) {
	return queryList(ctx, d.db, scanFedSubject, fmt.Sprintf(fedSubjectsSQL, "", ""))
}

// FederationSubjectByEntityID is one subordinate, or ErrNotFound.
func (d *DB) FederationSubjectByEntityID(ctx context.Context, entityID string) (FederationSubject, error) {
	out, err := queryList(ctx, d.db, scanFedSubject, fmt.Sprintf(fedSubjectsSQL, "AND s.federation_entity_id = ?1", "AND a.federation_entity_id = ?1"), entityID)
	if err != nil {
		return FederationSubject{}, err
	}
	if len(out) == 0 {
		return FederationSubject{}, ErrNotFound
	}
	return out[0], nil
}

// FederationSigningKeys is an organisation's Active key material with Use
// sig: the jwks of its subordinate statements.
func (d *DB) FederationSigningKeys(ctx context.Context, orgID string) ([]json.RawMessage, error) {
	return queryList(ctx, d.db, scanJSON, `SELECT public_jwk FROM key_material WHERE organisation_id = ? AND status = 'Active' AND use = 'sig' ORDER BY created_on, key_material_id`, orgID)
}

// OrganisationsWithSigningKeys is the set of organisations that have Active
// key material with Use sig (for /federation/list).
func (d *DB) OrganisationsWithSigningKeys(ctx context.Context) (map[string]bool, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT DISTINCT organisation_id FROM key_material WHERE status = 'Active' AND use = 'sig'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// HeldPolicy is an Active role metadata policy of a Federation role an
// organisation holds through an Active claim.
type HeldPolicy struct {
	OrganisationID      string
	AuthorisationDomain string
	Role                string
	EntityType          string
	Policy              json.RawMessage
}

const heldPoliciesSQL = `SELECT c.organisation_id, p.authorisation_domain, p.role, p.entity_type, p.policy
	FROM organisation_authority_claims c
	JOIN authorisation_domain_roles r ON r.domain = c.domain AND r.name = c.role AND r.type = 'Federation' AND r.status = 'Active'
	JOIN authorisation_domains dm ON dm.name = c.domain AND dm.status = 'Active'
	JOIN role_metadata_policies p ON p.authorisation_domain = c.domain AND p.role = c.role AND p.status = 'Active'
	WHERE c.status = 'Active' %s
	ORDER BY c.organisation_id, p.authorisation_domain, p.role, p.entity_type`

// FederationPolicies lists the held policies of one organisation, or of
// every organisation when orgID is "".
func (d *DB) FederationPolicies(ctx context.Context, orgID string) ([]HeldPolicy, error) {
	scan := func(row rowScanner) (HeldPolicy, error) {
		var p HeldPolicy
		var pol string
		err := row.Scan(&p.OrganisationID, &p.AuthorisationDomain, &p.Role, &p.EntityType, &pol)
		p.Policy = json.RawMessage(pol)
		return p, err
	}
	if orgID == "" {
		return queryList(ctx, d.db, scan, fmt.Sprintf(heldPoliciesSQL, ""))
	}
	return queryList(ctx, d.db, scan, fmt.Sprintf(heldPoliciesSQL, "AND c.organisation_id = ?"), orgID)
}

// ActiveRolePolicies returns the Active policies of the named roles (for
// the policy simulator); a role that does not exist is ErrNotFound.
func (d *DB) ActiveRolePolicies(ctx context.Context, domain, role string) ([]HeldPolicy, error) {
	var n int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM authorisation_domain_roles WHERE domain = ? AND name = ?`, domain, role).Scan(&n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, ErrNotFound
	}
	return queryList(ctx, d.db, func(row rowScanner) (HeldPolicy, error) {
		var p HeldPolicy
		var pol string
		err := row.Scan(&p.AuthorisationDomain, &p.Role, &p.EntityType, &pol)
		p.Policy = json.RawMessage(pol)
		return p, err
	}, `SELECT authorisation_domain, role, entity_type, policy FROM role_metadata_policies
		WHERE authorisation_domain = ? AND role = ? AND status = 'Active' ORDER BY entity_type`, domain, role)
}
