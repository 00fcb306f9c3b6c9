package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/trustframe/trustframe/directory"
)

// AuthorisationServer is an organisation's OpenID Provider: the application
// layer's.
type AuthorisationServer = directory.AuthorisationServer

const asCols = `authorisation_server_id, organisation_id, customer_friendly_name, description, issuer, openid_discovery_document, status, created_on, updated_on`

// asSelect is what scanAS reads: asCols and the federation entity ID.
const asSelect = asCols + `, federation_entity_id`

func scanAS(row rowScanner) (AuthorisationServer, error) {
	var s AuthorisationServer
	var c, u string
	err := row.Scan(&s.AuthorisationServerID, &s.OrganisationID, &s.CustomerFriendlyName, &s.Description, &s.Issuer,
		&s.OpenIDDiscoveryDocument, &s.Status, &c, &u, &s.FederationEntityID)
	s.CreatedOn, s.UpdatedOn = parseStamp(c), parseStamp(u)
	s.Flags = []string{}
	return s, err
}

// ListAuthorisationServers returns an organisation's servers.
func (d *DB) ListAuthorisationServers(ctx context.Context, orgID string) ([]AuthorisationServer, error) {
	out, err := queryList(ctx, d.db, scanAS, `SELECT `+asSelect+` FROM authorisation_servers WHERE organisation_id = ? ORDER BY customer_friendly_name, authorisation_server_id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: list servers: %w", err)
	}
	return out, withFlags(ctx, d.db, "authorisation_server_flags", "authorisation_server_id", out, asFlags)
}

func asFlags(s *AuthorisationServer) (string, *[]string) { return s.AuthorisationServerID, &s.Flags }

// GetAuthorisationServer returns one server of an organisation or ErrNotFound.
func (d *DB) GetAuthorisationServer(ctx context.Context, orgID, id string) (AuthorisationServer, error) {
	s, err := queryOne(ctx, d.db, scanAS, `SELECT `+asSelect+` FROM authorisation_servers WHERE organisation_id = ? AND authorisation_server_id = ?`, orgID, id)
	if err != nil {
		return s, err
	}
	flags, err := flagsOf(ctx, d.db, "authorisation_server_flags", "authorisation_server_id", []string{id})
	s.Flags = nonNil(flags[id])
	return s, err
}

// IssuerTaken reports which other server (if any) has this issuer.
func (d *DB) IssuerTaken(ctx context.Context, issuer, exceptID string) (string, error) {
	var id string
	err := d.db.QueryRowContext(ctx, `SELECT authorisation_server_id FROM authorisation_servers WHERE issuer = ? AND authorisation_server_id <> ?`, issuer, exceptID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

func duplicateIssuer(ctx context.Context, tx *sql.Tx, issuer, id string) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM authorisation_servers WHERE issuer = ? AND authorisation_server_id <> ?`, issuer, id).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return &FieldError{Field: "Issuer", Message: "another authorisation server already has this issuer"}
	}
	return nil
}

// CreateAuthorisationServer adds a server to an organisation.
func (d *DB) CreateAuthorisationServer(ctx context.Context, a Audit, s AuthorisationServer, problems directory.Fields) (AuthorisationServer, error) {
	s.AuthorisationServerID = NewID()
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if err := orgExists(ctx, tx, s.OrganisationID); err != nil {
			return err
		}
		if err := serverChecks(ctx, tx, directory.Fields{}.Merge(problems), s); err != nil {
			return err
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO authorisation_servers(`+asCols+`) VALUES (?,?,?,?,?,?,?,?,?)`,
			s.AuthorisationServerID, s.OrganisationID, s.CustomerFriendlyName, s.Description, s.Issuer, s.OpenIDDiscoveryDocument, s.Status, now, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE authorisation_servers SET federation_entity_id = ? WHERE authorisation_server_id = ?`, s.FederationEntityID, s.AuthorisationServerID); err != nil {
			return err
		}
		if err := setFlags(ctx, tx, "authorisation_server_flags", "authorisation_server_id", s.AuthorisationServerID, "Authorisation_Server", s.Flags); err != nil {
			return err
		}
		s.Flags = nonNil(s.Flags)
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "AuthorisationServer",
			SubjectID: s.AuthorisationServerID, OrganisationID: s.OrganisationID, Summary: created(s)})
	})
	if err != nil {
		return AuthorisationServer{}, err
	}
	return d.GetAuthorisationServer(ctx, s.OrganisationID, s.AuthorisationServerID)
}

// UpdateAuthorisationServer replaces a server's writable fields.
func (d *DB) UpdateAuthorisationServer(ctx context.Context, a Audit, s AuthorisationServer, problems directory.Fields, check directory.Check[AuthorisationServer]) (AuthorisationServer, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := queryOne(ctx, tx, scanAS, `SELECT `+asSelect+` FROM authorisation_servers WHERE organisation_id = ? AND authorisation_server_id = ?`, s.OrganisationID, s.AuthorisationServerID)
		if err != nil {
			return err
		}
		fl, err := flagsOf(ctx, tx, "authorisation_server_flags", "authorisation_server_id", []string{s.AuthorisationServerID})
		if err != nil {
			return err
		}
		cur.Flags = nonNil(fl[s.AuthorisationServerID])
		if err := serverChecks(ctx, tx, directory.Fields{}.Merge(problems), s); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE authorisation_servers SET customer_friendly_name=?, description=?, issuer=?,
			openid_discovery_document=?, status=?, federation_entity_id=?, updated_on=? WHERE authorisation_server_id=?`,
			s.CustomerFriendlyName, s.Description, s.Issuer, s.OpenIDDiscoveryDocument, s.Status, s.FederationEntityID, d.stamp(), s.AuthorisationServerID); err != nil {
			return err
		}
		if err := setFlags(ctx, tx, "authorisation_server_flags", "authorisation_server_id", s.AuthorisationServerID, "Authorisation_Server", s.Flags); err != nil {
			return err
		}
		next := s
		next.Flags = nonNil(s.Flags)
		next.StatusReason = ""
		if err := d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: updateAction(cur.Status, s.Status), SubjectType: "AuthorisationServer",
			SubjectID: s.AuthorisationServerID, OrganisationID: s.OrganisationID, Summary: withReason(diff(cur, next), a.Reason)}); err != nil {
			return err
		}
		return d.revokeLapsedMarks(ctx, tx, a, lapseScope{orgID: s.OrganisationID, formerSub: cur.FederationEntityID})
	})
	if err != nil {
		return AuthorisationServer{}, err
	}
	return d.GetAuthorisationServer(ctx, s.OrganisationID, s.AuthorisationServerID)
}

// serverChecks adds to problems what only the database can judge of a
// server (its issuer or federation entity ID taken, its flags) and refuses
// every problem at once.
func serverChecks(ctx context.Context, tx *sql.Tx, problems directory.Fields, s AuthorisationServer) error {
	for _, err := range []error{
		duplicateIssuer(ctx, tx, s.Issuer, s.AuthorisationServerID),
		duplicateFederationEntity(ctx, tx, s.FederationEntityID, s.AuthorisationServerID),
		checkFlags(ctx, tx, "authorisation_server_flags", "authorisation_server_id", s.AuthorisationServerID, "Authorisation_Server", s.Flags),
	} {
		if err := problems.Take(err); err != nil {
			return err
		}
	}
	return problems.Err()
}

// duplicateFederationEntity: a federation entity ID names one application or
// server in the whole directory (docs/design.md §13); self is the id of the
// one being saved.
func duplicateFederationEntity(ctx context.Context, tx *sql.Tx, entityID, self string) error {
	if entityID == "" {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM software_statements WHERE federation_entity_id = ? AND software_statement_id <> ?)
		+ (SELECT COUNT(*) FROM authorisation_servers WHERE federation_entity_id = ? AND authorisation_server_id <> ?)`, entityID, self, entityID, self).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return &FieldError{Field: "FederationEntityId", Message: "another application or authorisation server already has this federation entity ID"}
	}
	return nil
}
