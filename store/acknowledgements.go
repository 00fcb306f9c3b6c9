package store

import (
	"context"
	"database/sql"
)

// ackItems are the kinds of "Needs attention" an acknowledgement names:
// the query of an item's organisation and present expiry, and the subject
// type of its audit record.
var ackItems = map[string]struct{ query, auditType string }{
	"Certificate":   {`SELECT organisation_id, not_after FROM organisation_certificates WHERE kid = ?`, "OrganisationCertificate"},
	"Document":      {`SELECT organisation_id, expiry_date FROM documents WHERE document_id = ?`, "Document"},
	"Certification": {`SELECT organisation_id, expiration_date FROM certifications WHERE certification_id = ?`, "Certification"},
}

// Acknowledge records that a person has seen the item (kind Certificate,
// Document or Certification; id its kid or id) at the expiry it has now:
// it leaves "Needs attention" (Attention) until that expiry changes.
// Audited as "acknowledge"; ErrNotFound when there is no such item.
func (d *DB) Acknowledge(ctx context.Context, a Audit, kind, id string) error {
	item, ok := ackItems[kind]
	if !ok {
		return ErrNotFound
	}
	return d.tx(ctx, func(tx *sql.Tx) error {
		var orgID, expiry string
		if err := tx.QueryRowContext(ctx, item.query, id).Scan(&orgID, &expiry); err != nil {
			if err == sql.ErrNoRows {
				return ErrNotFound
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO acknowledgements(subject_type, subject_id, expiry, organisation_id, acknowledged_by, acknowledged_on)
			VALUES (?,?,?,?,?,?) ON CONFLICT (subject_type, subject_id) DO UPDATE SET expiry = excluded.expiry,
			acknowledged_by = excluded.acknowledged_by, acknowledged_on = excluded.acknowledged_on`,
			kind, id, expiry, orgID, a.Actor, d.stamp()); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "acknowledge", SubjectType: item.auditType, SubjectID: id,
			OrganisationID: orgID, Summary: "Acknowledged in Needs attention (expiry " + expiry + ")"})
	})
}
