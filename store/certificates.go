package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/trustframe/trustframe/directory"
)

// Certificate is an organisation certificate.
type Certificate = directory.Certificate

// fixedStamp has a fixed width, so that stored times compare as strings.
const fixedStamp = "2006-01-02T15:04:05.000000000Z"

// CertificateType is Reference Data: a kind of organisation certificate.
type CertificateType = directory.CertificateType

// ListCertificateTypes returns the certificate types.
func (d *DB) ListCertificateTypes(ctx context.Context) ([]CertificateType, error) {
	return queryList(ctx, d.db, scanCertType, `SELECT name, description, use, status FROM certificate_types ORDER BY name`)
}

func scanCertType(row rowScanner) (CertificateType, error) {
	var t CertificateType
	err := row.Scan(&t.Name, &t.Description, &t.Use, &t.Status)
	return t, err
}

// GetCertificateType returns one type or ErrNotFound.
func (d *DB) GetCertificateType(ctx context.Context, name string) (CertificateType, error) {
	return queryOne(ctx, d.db, scanCertType, `SELECT name, description, use, status FROM certificate_types WHERE name = ?`, name)
}

const certCols = `kid, organisation_id, certificate_type, subject_dn, issuer_dn, serial, not_before, not_after, pem, public_jwk, status, revoke_reason, revoked_on, created_on, created_by, software_statement_id, issued_by_ca`

func scanCert(row rowScanner) (Certificate, error) {
	var c Certificate
	var nb, na, co, jwk string
	var ro sql.NullString
	var byCA int64
	err := row.Scan(&c.Kid, &c.OrganisationID, &c.OrganisationCertificateType, &c.SubjectDN, &c.IssuerDN, &c.SerialNumber, &nb, &na,
		&c.PEM, &jwk, &c.Status, &c.RevokeReason, &ro, &co, &c.CreatedBy, &c.SoftwareStatementID, &byCA)
	c.IssuedByCA = byCA == 1
	c.NotBefore, c.NotAfter, c.CreatedOn = parseStamp(nb), parseStamp(na), parseStamp(co)
	c.PublicJwk = json.RawMessage(jwk)
	if ro.Valid {
		t := parseStamp(ro.String)
		c.RevokedOn = &t
	}
	return c, err
}

// ListCertificates returns an organisation's certificates, of one type when typ is set.
func (d *DB) ListCertificates(ctx context.Context, orgID, typ string) ([]Certificate, error) {
	q, args := `SELECT `+certCols+` FROM organisation_certificates WHERE organisation_id = ?`, []any{orgID}
	if typ != "" {
		q += ` AND certificate_type = ?`
		args = append(args, typ)
	}
	out, err := queryList(ctx, d.db, scanCert, q+` ORDER BY created_on DESC, kid`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list certificates: %w", err)
	}
	return out, nil
}

// GetCertificate returns one certificate of an organisation by kid.
func (d *DB) GetCertificate(ctx context.Context, orgID, kid string) (Certificate, error) {
	return queryOne(ctx, d.db, scanCert, `SELECT `+certCols+` FROM organisation_certificates WHERE organisation_id = ? AND kid = ?`, orgID, kid)
}

// CertificateKnown reports whether a certificate of kid is stored (to any
// organisation).
func (d *DB) CertificateKnown(ctx context.Context, kid string) (bool, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisation_certificates WHERE kid = ?`, kid).Scan(&n)
	return n > 0, err
}

// AddCertificate stores a checked certificate; a kid already known is a
// conflict. One the directory's CA issued (IssuedByCA) is audited as
// issued, for its application when it has one (which must exist).
func (d *DB) AddCertificate(ctx context.Context, a Audit, c Certificate) (Certificate, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		// Only Active organisations and applications are issued
		// certificates (docs/design.md §18): checked again here, so that
		// a withdrawal meanwhile is not overtaken.
		var err error
		if c.IssuedByCA {
			err = issuableHere(ctx, tx, c.OrganisationID, c.SoftwareStatementID)
		} else {
			err = orgExists(ctx, tx, c.OrganisationID)
		}
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisation_certificates WHERE kid = ?`, c.Kid).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: "This certificate (kid " + c.Kid + ") was already uploaded"}
		}
		byCA, action, summary := 0, "upload", ""
		if c.IssuedByCA {
			byCA, action, summary = 1, "issue", "issued by the directory's CA; "
			if c.SoftwareStatementID != "" {
				summary += "application " + c.SoftwareStatementID + "; "
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO organisation_certificates(`+certCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,'Active','',NULL,?,?,?,?)`,
			c.Kid, c.OrganisationID, c.OrganisationCertificateType, c.SubjectDN, c.IssuerDN, c.SerialNumber,
			c.NotBefore.UTC().Format(fixedStamp), c.NotAfter.UTC().Format(fixedStamp), c.PEM, string(c.PublicJwk), d.stamp(), a.Actor,
			c.SoftwareStatementID, byCA); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: action, SubjectType: "OrganisationCertificate", SubjectID: c.Kid,
			OrganisationID: c.OrganisationID, KeyID: c.Kid, CertificateType: c.OrganisationCertificateType,
			Summary: summary + "subject " + c.SubjectDN + "; serial " + c.SerialNumber + "; valid to " + c.NotAfter.UTC().Format("2006-01-02")})
	})
	if err != nil {
		return Certificate{}, err
	}
	return d.GetCertificate(ctx, c.OrganisationID, c.Kid)
}

// RevokeCertificate revokes a certificate; revoking twice is a conflict.
// A certificate the directory's CA issued is listed at once in a new CRL,
// written in the same transaction (pki.go).
// While problems has any nothing is written; check (nil: none) then sees
// the current certificate, inside the transaction (If-Match).
func (d *DB) RevokeCertificate(ctx context.Context, a Audit, orgID, kid, reason string, problems directory.Fields, check directory.Check[Certificate]) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := queryOne(ctx, tx, scanCert, `SELECT `+certCols+` FROM organisation_certificates WHERE organisation_id = ? AND kid = ?`, orgID, kid)
		if err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		status, typ := cur.Status, cur.OrganisationCertificateType
		if status == "Revoked" {
			return &ConflictError{Message: "certificate " + kid + " is already revoked"}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE organisation_certificates SET status = 'Revoked', revoke_reason = ?, revoked_on = ? WHERE kid = ?`, reason, d.stamp(), kid); err != nil {
			return err
		}
		if err := d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "revoke", SubjectType: "OrganisationCertificate", SubjectID: kid,
			OrganisationID: orgID, KeyID: kid, CertificateType: typ, Summary: "Status: Active -> Revoked; reason " + reason}); err != nil {
			return err
		}
		if cur.IssuedByCA {
			// The CRL in force says so in the same write (docs/design.md §18).
			return d.regenerateCRL(ctx, tx)
		}
		return nil
	})
}

// RecordRefusedUpload writes the audit record of a refused upload of a
// certificate of type typ to orgID, saying why (summary).
func (d *DB) RecordRefusedUpload(ctx context.Context, a Audit, orgID, typ, summary string) error {
	return d.RecordEvent(ctx, AuditRecord{Actor: a.Actor, Action: "upload_refused", SubjectType: "OrganisationCertificate", SubjectID: "-",
		OrganisationID: orgID, CertificateType: typ, Summary: summary})
}

// ListApplicationCertificates returns the certificates the directory's CA
// issued for an application, newest first; an application orgID does not
// have is ErrNotFound.
func (d *DB) ListApplicationCertificates(ctx context.Context, orgID, appID string) ([]Certificate, error) {
	if _, err := queryOne(ctx, d.db, scanString, `SELECT software_statement_id FROM software_statements WHERE organisation_id = ? AND software_statement_id = ?`, orgID, appID); err != nil {
		return nil, err
	}
	out, err := queryList(ctx, d.db, scanCert, `SELECT `+certCols+` FROM organisation_certificates WHERE organisation_id = ? AND software_statement_id = ? ORDER BY created_on DESC, kid`, orgID, appID)
	if err != nil {
		return nil, fmt.Errorf("store: list application certificates: %w", err)
	}
	return out, nil
}

// ApplicationKeys are the public JWKs of an application's certificates of
// the types typs: Active and in date (active), or revoked and expired
// (not active). An application orgID does not have is ErrNotFound.
func (d *DB) ApplicationKeys(ctx context.Context, orgID, appID string, typs []string, active bool) ([]json.RawMessage, error) {
	if _, err := queryOne(ctx, d.db, scanString, `SELECT software_statement_id FROM software_statements WHERE organisation_id = ? AND software_statement_id = ?`, orgID, appID); err != nil {
		return nil, err
	}
	q := `SELECT public_jwk FROM organisation_certificates WHERE organisation_id = ? AND software_statement_id = ? AND certificate_type IN (` +
		strings.TrimSuffix(strings.Repeat("?,", len(typs)), ",") + `)`
	if active {
		q += ` AND status = 'Active' AND not_after > ?`
	} else {
		q += ` AND (status <> 'Active' OR not_after <= ?)`
	}
	args := []any{orgID, appID}
	for _, t := range typs {
		args = append(args, t)
	}
	args = append(args, d.now().UTC().Format(fixedStamp))
	return queryList(ctx, d.db, scanJSON, q+` ORDER BY created_on, kid`, args...)
}

// issuableHere refuses (a conflict) a certificate of the CA for an
// organisation or application (appID, when set) that is not Active; an
// application orgID does not have is ErrNotFound.
func issuableHere(ctx context.Context, tx *sql.Tx, orgID, appID string) error {
	st, err := queryOne(ctx, tx, scanString, `SELECT status FROM organisations WHERE organisation_id = ?`, orgID)
	if err != nil {
		return err
	}
	if st != "Active" {
		return &ConflictError{Message: "The organisation is no longer Active: no certificate was issued."}
	}
	if appID == "" {
		return nil
	}
	st, err = queryOne(ctx, tx, scanString, `SELECT status FROM software_statements WHERE organisation_id = ? AND software_statement_id = ?`, orgID, appID)
	if err != nil {
		return err
	}
	if st != "Active" {
		return &ConflictError{Message: "The application is no longer Active: no certificate was issued."}
	}
	return nil
}
