package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/trustframe/trustframe/directory"
)

// KeyMaterial is a public key an organisation registers (release 2.6.0).
type KeyMaterial = directory.KeyMaterial

// Attachment is a file attached to key material.
type Attachment = directory.Attachment

const kmCols = `key_material_id, organisation_id, kid, use, public_jwk, status, revoke_reason, description, created_on, updated_on, revoked_on, software_statement_id`

func scanKM(row rowScanner) (KeyMaterial, error) {
	var k KeyMaterial
	var jwk, c, u string
	var r sql.NullString
	err := row.Scan(&k.KeyMaterialID, &k.OrganisationID, &k.Kid, &k.Use, &jwk, &k.Status, &k.RevokeReason, &k.Description, &c, &u, &r, &k.SoftwareStatementID)
	k.PublicJwk, k.CreatedOn, k.UpdatedOn = json.RawMessage(jwk), parseStamp(c), parseStamp(u)
	if r.Valid {
		t := parseStamp(r.String)
		k.RevokedOn = &t
	}
	return k, err
}

// ListKeyMaterial returns an organisation's key material.
func (d *DB) ListKeyMaterial(ctx context.Context, orgID string) ([]KeyMaterial, error) {
	out, err := queryList(ctx, d.db, scanKM, `SELECT `+kmCols+` FROM key_material WHERE organisation_id = ? ORDER BY created_on DESC, key_material_id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: list key material: %w", err)
	}
	return out, nil
}

// GetKeyMaterial returns one item or ErrNotFound.
func (d *DB) GetKeyMaterial(ctx context.Context, orgID, id string) (KeyMaterial, error) {
	return queryOne(ctx, d.db, scanKM, `SELECT `+kmCols+` FROM key_material WHERE organisation_id = ? AND key_material_id = ?`, orgID, id)
}

// CreateKeyMaterial stores a public key; a Kid the organisation has is a
// conflict. problems are what is already known to be wrong with its
// fields: while any remains nothing is written.
func (d *DB) CreateKeyMaterial(ctx context.Context, a Audit, k KeyMaterial, problems directory.Fields) (KeyMaterial, error) {
	k.KeyMaterialID = NewID()
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if err := orgExists(ctx, tx, k.OrganisationID); err != nil {
			return err
		}
		if k.SoftwareStatementID != "" {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM software_statements WHERE organisation_id = ? AND software_statement_id = ?`, k.OrganisationID, k.SoftwareStatementID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				problems = problems.Merge(directory.Fields{"SoftwareStatementId": "The organisation has no application " + k.SoftwareStatementID + "."})
			}
		}
		if err := problems.Err(); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM key_material WHERE organisation_id = ? AND kid = ?`, k.OrganisationID, k.Kid).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: "the organisation already has key material with Kid " + k.Kid}
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO key_material(`+kmCols+`) VALUES (?,?,?,?,?,'Active','',?,?,?,NULL,?)`,
			k.KeyMaterialID, k.OrganisationID, k.Kid, k.Use, string(k.PublicJwk), k.Description, now, now, k.SoftwareStatementID); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "KeyMaterial", SubjectID: k.KeyMaterialID,
			OrganisationID: k.OrganisationID, KeyID: k.Kid, Summary: "Use: " + k.Use + "; Description: " + k.Description + boundTo(k.SoftwareStatementID)})
	})
	if err != nil {
		return KeyMaterial{}, err
	}
	return d.GetKeyMaterial(ctx, k.OrganisationID, k.KeyMaterialID)
}

// UpdateKeyMaterial changes description and use, or revokes (irreversible).
// Revoked key material cannot change any more (ConflictError). problems
// are as for CreateKeyMaterial; check runs on the stored version once the
// fields pass.
func (d *DB) UpdateKeyMaterial(ctx context.Context, a Audit, k KeyMaterial, problems directory.Fields, check directory.Check[KeyMaterial]) (KeyMaterial, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := queryOne(ctx, tx, scanKM, `SELECT `+kmCols+` FROM key_material WHERE organisation_id = ? AND key_material_id = ?`, k.OrganisationID, k.KeyMaterialID)
		if err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if k.Status == "" {
			k.Status = cur.Status
		}
		k.SoftwareStatementID = cur.SoftwareStatementID // set when made, never changed
		if k.Use == cur.Use && k.Description == cur.Description && k.Status == cur.Status && k.RevokeReason == cur.RevokeReason {
			return errUnchanged // revoked key material sent back as it is too (docs/design.md §4)
		}
		if cur.Status == "Revoked" {
			return &ConflictError{Message: "key material " + cur.Kid + " is revoked and cannot change"}
		}
		now := d.stamp()
		action, summary := "update", diff(cur, k)
		var revokedOn any
		if k.Status == "Revoked" {
			action, summary, revokedOn = "revoke", "Status: Active -> Revoked; reason "+k.RevokeReason, now
		}
		if _, err := tx.ExecContext(ctx, `UPDATE key_material SET use = ?, description = ?, status = ?, revoke_reason = ?, updated_on = ?, revoked_on = ? WHERE key_material_id = ?`,
			k.Use, k.Description, k.Status, k.RevokeReason, now, revokedOn, k.KeyMaterialID); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: action, SubjectType: "KeyMaterial", SubjectID: k.KeyMaterialID,
			OrganisationID: k.OrganisationID, KeyID: cur.Kid, Summary: summary})
	})
	if err != nil {
		return KeyMaterial{}, err
	}
	return d.GetKeyMaterial(ctx, k.OrganisationID, k.KeyMaterialID)
}

const attCols = `attachment_id, key_material_id, file_name, content_type, size, sha256, description, created_on, updated_on`

func scanAtt(row rowScanner) (Attachment, error) {
	var t Attachment
	var c, u string
	err := row.Scan(&t.KeyMaterialAttachmentID, &t.KeyMaterialID, &t.FileName, &t.ContentType, &t.Size, &t.SHA256, &t.Description, &c, &u)
	t.CreatedOn, t.UpdatedOn = parseStamp(c), parseStamp(u)
	return t, err
}

// ListAttachments returns the attachments of key material.
func (d *DB) ListAttachments(ctx context.Context, kmID string) ([]Attachment, error) {
	return queryList(ctx, d.db, scanAtt, `SELECT `+attCols+` FROM key_material_attachments WHERE key_material_id = ? ORDER BY created_on, attachment_id`, kmID)
}

// GetAttachment returns one attachment and, when withContent, its bytes.
func (d *DB) GetAttachment(ctx context.Context, kmID, id string, withContent bool) (Attachment, []byte, error) {
	t, err := scanAtt(d.db.QueryRowContext(ctx, `SELECT `+attCols+` FROM key_material_attachments WHERE key_material_id = ? AND attachment_id = ?`, kmID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return t, nil, ErrNotFound
	}
	if err != nil || !withContent {
		return t, nil, err
	}
	var b []byte
	err = d.db.QueryRowContext(ctx, `SELECT content FROM key_material_attachments WHERE attachment_id = ?`, id).Scan(&b)
	return t, b, err
}

// AddAttachment stores a file on key material; while problems has any,
// nothing is written.
func (d *DB) AddAttachment(ctx context.Context, a Audit, orgID string, t Attachment, content []byte, problems directory.Fields) (Attachment, error) {
	t.KeyMaterialAttachmentID = NewID()
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var kid string
		err := tx.QueryRowContext(ctx, `SELECT kid FROM key_material WHERE organisation_id = ? AND key_material_id = ?`, orgID, t.KeyMaterialID).Scan(&kid)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO key_material_attachments(`+attCols+`, content) VALUES (?,?,?,?,?,?,?,?,?,?)`,
			t.KeyMaterialAttachmentID, t.KeyMaterialID, t.FileName, t.ContentType, t.Size, t.SHA256, t.Description, now, now, content); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "attach", SubjectType: "KeyMaterial", SubjectID: t.KeyMaterialID,
			OrganisationID: orgID, KeyID: kid, Summary: fmt.Sprintf("file %s (%d bytes, sha256 %s)", t.FileName, t.Size, t.SHA256)})
	})
	if err != nil {
		return Attachment{}, err
	}
	t2, _, err := d.GetAttachment(ctx, t.KeyMaterialID, t.KeyMaterialAttachmentID, false)
	return t2, err
}

// UpdateAttachment changes an attachment's description, and its file when
// content is not nil. While problems has any nothing is written; check
// (nil: none) then runs inside the transaction with the current version
// (If-Match); its error aborts the change.
func (d *DB) UpdateAttachment(ctx context.Context, a Audit, orgID string, t Attachment, content []byte, problems directory.Fields, check directory.Check[Attachment]) (Attachment, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var kid string
		err := tx.QueryRowContext(ctx, `SELECT k.kid FROM key_material k JOIN key_material_attachments t ON t.key_material_id = k.key_material_id
			WHERE k.organisation_id = ? AND k.key_material_id = ? AND t.attachment_id = ?`, orgID, t.KeyMaterialID, t.KeyMaterialAttachmentID).Scan(&kid)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		cur, err := scanAtt(tx.QueryRowContext(ctx, `SELECT `+attCols+` FROM key_material_attachments WHERE attachment_id = ?`, t.KeyMaterialAttachmentID))
		if err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if t.Description == cur.Description && (content == nil || t.FileName == cur.FileName && t.ContentType == cur.ContentType && t.SHA256 == cur.SHA256) {
			return errUnchanged // the same description, and the same file or none (docs/design.md §4)
		}
		now := d.stamp()
		summary := "Description: " + t.Description
		if content != nil {
			_, err = tx.ExecContext(ctx, `UPDATE key_material_attachments SET file_name = ?, content_type = ?, size = ?, sha256 = ?, description = ?, content = ?, updated_on = ? WHERE attachment_id = ?`,
				t.FileName, t.ContentType, t.Size, t.SHA256, t.Description, content, now, t.KeyMaterialAttachmentID)
			summary += fmt.Sprintf("; file %s (%d bytes, sha256 %s)", t.FileName, t.Size, t.SHA256)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE key_material_attachments SET description = ?, updated_on = ? WHERE attachment_id = ?`, t.Description, now, t.KeyMaterialAttachmentID)
		}
		if err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "attachment_update", SubjectType: "KeyMaterial", SubjectID: t.KeyMaterialID,
			OrganisationID: orgID, KeyID: kid, Summary: summary})
	})
	if err != nil {
		return Attachment{}, err
	}
	t2, _, err := d.GetAttachment(ctx, t.KeyMaterialID, t.KeyMaterialAttachmentID, false)
	return t2, err
}

// OrganisationKeys returns the public JWKs of an organisation's keystore:
// active (certificates Active and unexpired, key material Active) or
// inactive (revoked or expired). ErrNotFound for an unknown organisation.
func (d *DB) OrganisationKeys(ctx context.Context, orgID string, active bool) ([]json.RawMessage, error) {
	var n int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisations WHERE organisation_id = ?`, orgID).Scan(&n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, ErrNotFound
	}
	now := d.now().UTC().Format(fixedStamp)
	var q string
	if active {
		q = `SELECT public_jwk FROM organisation_certificates WHERE organisation_id = ?1 AND status = 'Active' AND not_after > ?2
			UNION ALL SELECT public_jwk FROM key_material WHERE organisation_id = ?1 AND status = 'Active'`
	} else {
		q = `SELECT public_jwk FROM organisation_certificates WHERE organisation_id = ?1 AND (status <> 'Active' OR not_after <= ?2)
			UNION ALL SELECT public_jwk FROM key_material WHERE organisation_id = ?1 AND status <> 'Active'`
	}
	return queryList(ctx, d.db, scanJSON, q, orgID, now)
}

// boundTo is the audit summary's words for the application key material
// is bound to.
func boundTo(appID string) string {
	if appID == "" {
		return ""
	}
	return "; SoftwareStatementId: " + appID
}
