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

// SoftwareStatement is an application registered by an organisation.
type SoftwareStatement = directory.SoftwareStatement

const ssCols = `software_statement_id, organisation_id, client_id, client_name, description, version, redirect_uris, roles, jwks_uri, status, ciba_delivery_mode, ciba_notification_endpoint, origins, created_on, updated_on`

// ssSelect is what scanSS reads: ssCols and the federation entity ID.
const ssSelect = ssCols + `, federation_entity_id`

func scanSS(row rowScanner) (SoftwareStatement, error) {
	var s SoftwareStatement
	var redirects, roles, origins, c, u string
	err := row.Scan(&s.SoftwareStatementID, &s.OrganisationID, &s.ClientID, &s.ClientName, &s.Description, &s.Version,
		&redirects, &roles, &s.JwksURI, &s.Status, &s.BackchannelTokenDeliveryMode, &s.BackchannelClientNotificationEndpoint, &origins, &c, &u, &s.FederationEntityID)
	s.RedirectURI, s.Roles, s.SoftwareOriginsURI = parseList(redirects), parseList(roles), parseList(origins)
	s.CreatedOn, s.UpdatedOn = parseStamp(c), parseStamp(u)
	s.Flags = []string{}
	return s, err
}

// ListSoftwareStatements returns an organisation's applications.
func (d *DB) ListSoftwareStatements(ctx context.Context, orgID string) ([]SoftwareStatement, error) {
	out, err := queryList(ctx, d.db, scanSS, `SELECT `+ssSelect+` FROM software_statements WHERE organisation_id = ? ORDER BY client_name, software_statement_id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: list applications: %w", err)
	}
	return out, withFlags(ctx, d.db, "software_statement_flags", "software_statement_id", out, ssFlags)
}

func ssFlags(s *SoftwareStatement) (string, *[]string) { return s.SoftwareStatementID, &s.Flags }

// GetSoftwareStatement returns one application of an organisation or ErrNotFound.
func (d *DB) GetSoftwareStatement(ctx context.Context, orgID, id string) (SoftwareStatement, error) {
	s, err := queryOne(ctx, d.db, scanSS, `SELECT `+ssSelect+` FROM software_statements WHERE organisation_id = ? AND software_statement_id = ?`, orgID, id)
	if err != nil {
		return s, err
	}
	flags, err := flagsOf(ctx, d.db, "software_statement_flags", "software_statement_id", []string{id})
	s.Flags = nonNil(flags[id])
	return s, err
}

// CreateSoftwareStatement adds an application; its ClientId is its new id,
// whatever s says (ClientId is not writable).
func (d *DB) CreateSoftwareStatement(ctx context.Context, a Audit, s SoftwareStatement, problems directory.Fields) (SoftwareStatement, error) {
	s.SoftwareStatementID = NewID()
	s.ClientID = s.SoftwareStatementID // server-set, like the id (docs/decisions.md)
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		if err := orgExists(ctx, tx, s.OrganisationID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM software_statements WHERE client_id = ?`, s.ClientID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			problems.Add("ClientId", "another application has this ClientId")
		}
		if err := appChecks(ctx, tx, problems, s, nil); err != nil {
			return err
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO software_statements(`+ssCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			s.SoftwareStatementID, s.OrganisationID, s.ClientID, s.ClientName, s.Description, s.Version, jsonList(s.RedirectURI), jsonList(s.Roles),
			s.JwksURI, s.Status, s.BackchannelTokenDeliveryMode, s.BackchannelClientNotificationEndpoint, jsonList(s.SoftwareOriginsURI), now, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE software_statements SET federation_entity_id = ? WHERE software_statement_id = ?`, s.FederationEntityID, s.SoftwareStatementID); err != nil {
			return err
		}
		if err := setFlags(ctx, tx, "software_statement_flags", "software_statement_id", s.SoftwareStatementID, "Software_Statement", s.Flags); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Application",
			SubjectID: s.SoftwareStatementID, OrganisationID: s.OrganisationID, Summary: created(s)})
	})
	if err != nil {
		return SoftwareStatement{}, err
	}
	return d.GetSoftwareStatement(ctx, s.OrganisationID, s.SoftwareStatementID)
}

// UpdateSoftwareStatement replaces an application's writable fields.
func (d *DB) UpdateSoftwareStatement(ctx context.Context, a Audit, s SoftwareStatement, problems directory.Fields, check directory.Check[SoftwareStatement]) (SoftwareStatement, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		cur, err := queryOne(ctx, tx, scanSS, `SELECT `+ssSelect+` FROM software_statements WHERE organisation_id = ? AND software_statement_id = ?`, s.OrganisationID, s.SoftwareStatementID)
		if err != nil {
			return err
		}
		fl, err := flagsOf(ctx, tx, "software_statement_flags", "software_statement_id", []string{s.SoftwareStatementID})
		if err != nil {
			return err
		}
		cur.Flags = nonNil(fl[s.SoftwareStatementID])
		if err := appChecks(ctx, tx, problems, s, cur.Roles); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		s.ClientID = cur.ClientID // not writable
		if _, err := tx.ExecContext(ctx, `UPDATE software_statements SET client_name=?, description=?, version=?, redirect_uris=?, roles=?,
			jwks_uri=?, status=?, ciba_delivery_mode=?, ciba_notification_endpoint=?, origins=?, federation_entity_id=?, updated_on=? WHERE software_statement_id=?`,
			s.ClientName, s.Description, s.Version, jsonList(s.RedirectURI), jsonList(s.Roles), s.JwksURI, s.Status,
			s.BackchannelTokenDeliveryMode, s.BackchannelClientNotificationEndpoint, jsonList(s.SoftwareOriginsURI), s.FederationEntityID, d.stamp(), s.SoftwareStatementID); err != nil {
			return err
		}
		if err := setFlags(ctx, tx, "software_statement_flags", "software_statement_id", s.SoftwareStatementID, "Software_Statement", s.Flags); err != nil {
			return err
		}
		next := s
		next.Flags, next.RedirectURI, next.Roles, next.SoftwareOriginsURI = nonNil(s.Flags), nonNil(s.RedirectURI), nonNil(s.Roles), nonNil(s.SoftwareOriginsURI)
		next.StatusReason = ""
		if err := d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: updateAction(cur.Status, s.Status), SubjectType: "Application",
			SubjectID: s.SoftwareStatementID, OrganisationID: s.OrganisationID, Summary: withReason(diff(cur, next), a.Reason)}); err != nil {
			return err
		}
		if s.Status == "Withdrawn" && cur.Status != "Withdrawn" {
			// What the directory's CA issued for it ends with it (pki.go).
			if err := d.revokeIssuedFor(ctx, tx, a, s.OrganisationID, s.SoftwareStatementID); err != nil {
				return err
			}
		}
		return d.revokeLapsedMarks(ctx, tx, a, lapseScope{orgID: s.OrganisationID, formerSub: cur.FederationEntityID})
	})
	if err != nil {
		return SoftwareStatement{}, err
	}
	return d.GetSoftwareStatement(ctx, s.OrganisationID, s.SoftwareStatementID)
}

// appChecks adds to problems what only the database can judge of an
// application: roles its organisation does not hold (kept, the roles it
// has now), a federation entity ID another subject has, flags; and
// refuses every problem at once.
func appChecks(ctx context.Context, tx *sql.Tx, problems directory.Fields, s SoftwareStatement, kept []string) error {
	if err := problems.Take(checkAppRoles(ctx, tx, s.OrganisationID, s.Roles, kept)); err != nil {
		return err
	}
	if err := problems.Take(duplicateFederationEntity(ctx, tx, s.FederationEntityID, s.SoftwareStatementID)); err != nil {
		return err
	}
	if err := problems.Take(checkFlags(ctx, tx, "software_statement_flags", "software_statement_id", s.SoftwareStatementID, "Software_Statement", s.Flags)); err != nil {
		return err
	}
	return problems.Err()
}

// SSASubject reads an application and its organisation in one query,
// without flags: what an SSA needs.
func (d *DB) SSASubject(ctx context.Context, orgID, appID string) (Organisation, SoftwareStatement, error) {
	// Asked on every SSA: kept while the directory is unchanged
	// (readcache.go). The lists are copied out, so no caller can change
	// the kept answer.
	sub, err := cached(ctx, d, &d.ssaSubjects, [2]string{orgID, appID}, func() (ssaSubject, error) {
		return d.readSSASubject(ctx, orgID, appID)
	})
	s := sub.s
	s.RedirectURI, s.Roles, s.SoftwareOriginsURI = slices.Clone(s.RedirectURI), slices.Clone(s.Roles), slices.Clone(s.SoftwareOriginsURI)
	return sub.o, s, err
}

type ssaSubject struct {
	o Organisation
	s SoftwareStatement
}

var ssaSubjectQuery = `SELECT o.organisation_id, o.name, o.status, ` + prefixed("s.", ssCols) + `
		FROM software_statements s JOIN organisations o ON o.organisation_id = s.organisation_id
		WHERE s.organisation_id = ? AND s.software_statement_id = ?`

func (d *DB) readSSASubject(ctx context.Context, orgID, appID string) (ssaSubject, error) {
	row := d.queryRow(ctx, ssaSubjectQuery, orgID, appID)
	var o Organisation
	var s SoftwareStatement
	var redirects, roles, origins, c, u string
	err := row.Scan(&o.OrganisationID, &o.OrganisationName, &o.Status,
		&s.SoftwareStatementID, &s.OrganisationID, &s.ClientID, &s.ClientName, &s.Description, &s.Version,
		&redirects, &roles, &s.JwksURI, &s.Status, &s.BackchannelTokenDeliveryMode, &s.BackchannelClientNotificationEndpoint, &origins, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return ssaSubject{o, s}, ErrNotFound
	}
	s.RedirectURI, s.Roles, s.SoftwareOriginsURI = parseList(redirects), parseList(roles), parseList(origins)
	s.CreatedOn, s.UpdatedOn = parseStamp(c), parseStamp(u)
	return ssaSubject{o, s}, err
}

func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}
