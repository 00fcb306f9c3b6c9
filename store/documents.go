package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/trustframe/trustframe/directory"
)

// Document is a regulatory document of an organisation.
type Document = directory.Document

const docCols = `document_id, organisation_id, document_type, description, reference_number, start_date, expiry_date, status, created_on, updated_on`

func scanDoc(row rowScanner) (Document, error) {
	var d Document
	var c, u string
	err := row.Scan(&d.DocumentID, &d.OrganisationID, &d.DocumentType, &d.DocumentDescription, &d.DocumentReferenceNumber,
		&d.DocumentStartDate, &d.DocumentExpiryDate, &d.Status, &c, &u)
	d.CreatedOn, d.UpdatedOn = parseStamp(c), parseStamp(u)
	return d, err
}

// ListDocuments returns a page of an organisation's documents, newest first.
func (d *DB) ListDocuments(ctx context.Context, orgID string, page, size int) ([]Document, int, error) {
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM documents WHERE organisation_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := queryList(ctx, d.db, scanDoc, `SELECT `+docCols+` FROM documents WHERE organisation_id = ? ORDER BY created_on DESC, document_id LIMIT ? OFFSET ?`, orgID, size, page*size)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list documents: %w", err)
	}
	return out, total, nil
}

// GetDocument returns one document or ErrNotFound.
func (d *DB) GetDocument(ctx context.Context, orgID, id string) (Document, error) {
	return queryOne(ctx, d.db, scanDoc, `SELECT `+docCols+` FROM documents WHERE organisation_id = ? AND document_id = ?`, orgID, id)
}

func checkRefActive(ctx context.Context, tx *sql.Tx, k RefKind, field, name, old string) error {
	var status string
	err := tx.QueryRowContext(ctx, `SELECT status FROM `+k.Table+` WHERE name = ?`, name).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return &FieldError{Field: field, Message: fmt.Sprintf("there is no %s %q", k.Label, name)}
	}
	if err != nil {
		return err
	}
	if status != "Active" && name != old {
		return &FieldError{Field: field, Message: fmt.Sprintf("%s %q is Inactive", k.Label, name)}
	}
	return nil
}

// SaveDocument creates (empty DocumentID) or replaces a document.
func (d *DB) SaveDocument(ctx context.Context, a Audit, doc Document, problems directory.Fields, check directory.Check[Document]) (Document, error) {
	isNew := doc.DocumentID == ""
	if isNew {
		doc.DocumentID = NewID()
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		if err := orgExists(ctx, tx, doc.OrganisationID); err != nil {
			return err
		}
		now := d.stamp()
		if isNew {
			if err := problems.Take(checkRefActive(ctx, tx, DocumentTypes, "DocumentType", doc.DocumentType, "")); err != nil {
				return err
			}
			if err := problems.Err(); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO documents(`+docCols+`) VALUES (?,?,?,?,?,?,?,?,?,?)`, doc.DocumentID, doc.OrganisationID, doc.DocumentType,
				doc.DocumentDescription, doc.DocumentReferenceNumber, doc.DocumentStartDate, doc.DocumentExpiryDate, directory.DocumentActive, now, now); err != nil {
				return err
			}
			doc.Status = directory.DocumentActive
			return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Document", SubjectID: doc.DocumentID,
				OrganisationID: doc.OrganisationID, Summary: created(doc)})
		}
		cur, err := queryOne(ctx, tx, scanDoc, `SELECT `+docCols+` FROM documents WHERE organisation_id = ? AND document_id = ?`, doc.OrganisationID, doc.DocumentID)
		if err != nil {
			return err
		}
		doc.Status = cur.Status // a save keeps it: SetDocumentStatus changes it
		if err := problems.Take(checkRefActive(ctx, tx, DocumentTypes, "DocumentType", doc.DocumentType, cur.DocumentType)); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET document_type=?, description=?, reference_number=?, start_date=?, expiry_date=?, updated_on=? WHERE document_id=?`,
			doc.DocumentType, doc.DocumentDescription, doc.DocumentReferenceNumber, doc.DocumentStartDate, doc.DocumentExpiryDate, now, doc.DocumentID); err != nil {
			return err
		}
		return d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "Document", SubjectID: doc.DocumentID,
			OrganisationID: doc.OrganisationID, Summary: diff(cur, doc)})
	})
	if err != nil {
		return Document{}, err
	}
	return d.GetDocument(ctx, doc.OrganisationID, doc.DocumentID)
}

// SetDocumentStatus withdraws a document or makes it Active again, audited
// as "status"; the same status again is errUnchanged (nothing written).
func (d *DB) SetDocumentStatus(ctx context.Context, a Audit, orgID, id, status string, check directory.Check[Document]) (Document, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := queryOne(ctx, tx, scanDoc, `SELECT `+docCols+` FROM documents WHERE organisation_id = ? AND document_id = ?`, orgID, id)
		if err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if cur.Status == status {
			return errUnchanged
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET status=?, updated_on=? WHERE document_id=?`, status, d.stamp(), id); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "status", SubjectType: "Document", SubjectID: id,
			OrganisationID: orgID, Summary: "Status: " + cur.Status + " → " + status})
	})
	if err != nil && !errors.Is(err, errUnchanged) {
		return Document{}, err
	}
	return d.GetDocument(ctx, orgID, id)
}

// Certification is held by an application or an authorisation server.
type Certification = directory.Certification

const certfCols = `certification_id, organisation_id, subject_type, subject_id, certification_type, start_date, expiration_date, uri, status, created_on, updated_on`

func scanCertf(row rowScanner) (Certification, error) {
	var c Certification
	var cr, up string
	err := row.Scan(&c.CertificationID, &c.OrganisationID, &c.SubjectType, &c.SubjectID, &c.CertificationType, &c.CertificationStartDate,
		&c.CertificationExpirationDate, &c.CertificationURI, &c.Status, &cr, &up)
	c.CreatedOn, c.UpdatedOn = parseStamp(cr), parseStamp(up)
	return c, err
}

// ListCertifications returns the certifications of a subject.
func (d *DB) ListCertifications(ctx context.Context, subjectType, subjectID string) ([]Certification, error) {
	return queryList(ctx, d.db, scanCertf, `SELECT `+certfCols+` FROM certifications WHERE subject_type = ? AND subject_id = ? ORDER BY start_date DESC, certification_id`, subjectType, subjectID)
}

// GetCertification returns one certification of a subject or ErrNotFound.
func (d *DB) GetCertification(ctx context.Context, subjectType, subjectID, id string) (Certification, error) {
	return queryOne(ctx, d.db, scanCertf, `SELECT `+certfCols+` FROM certifications WHERE subject_type = ? AND subject_id = ? AND certification_id = ?`, subjectType, subjectID, id)
}

// SaveCertification creates (empty CertificationID) or replaces a certification.
func (d *DB) SaveCertification(ctx context.Context, a Audit, c Certification, problems directory.Fields, check directory.Check[Certification]) (Certification, error) {
	isNew := c.CertificationID == ""
	if isNew {
		c.CertificationID = NewID()
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		now := d.stamp()
		if isNew {
			if err := problems.Take(checkRefActive(ctx, tx, CertificationTypes, "CertificationType", c.CertificationType, "")); err != nil {
				return err
			}
			if err := problems.Err(); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO certifications(`+certfCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?)`, c.CertificationID, c.OrganisationID, c.SubjectType, c.SubjectID,
				c.CertificationType, c.CertificationStartDate, c.CertificationExpirationDate, c.CertificationURI, c.Status, now, now); err != nil {
				return err
			}
			return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Certification", SubjectID: c.CertificationID,
				OrganisationID: c.OrganisationID, Summary: created(c)})
		}
		cur, err := queryOne(ctx, tx, scanCertf, `SELECT `+certfCols+` FROM certifications WHERE subject_type = ? AND subject_id = ? AND certification_id = ?`, c.SubjectType, c.SubjectID, c.CertificationID)
		if err != nil {
			return err
		}
		if c.Status == "" {
			c.Status = cur.Status // left out: kept (docs/design.md §4)
		}
		if err := problems.Take(checkRefActive(ctx, tx, CertificationTypes, "CertificationType", c.CertificationType, cur.CertificationType)); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE certifications SET certification_type=?, start_date=?, expiration_date=?, uri=?, status=?, updated_on=? WHERE certification_id=?`,
			c.CertificationType, c.CertificationStartDate, c.CertificationExpirationDate, c.CertificationURI, c.Status, now, c.CertificationID); err != nil {
			return err
		}
		if err := d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "Certification", SubjectID: c.CertificationID,
			OrganisationID: c.OrganisationID, Summary: diff(cur, c)}); err != nil {
			return err
		}
		return d.revokeLapsedMarks(ctx, tx, a, lapseScope{orgID: c.OrganisationID})
	})
	if err != nil {
		return Certification{}, err
	}
	return d.GetCertification(ctx, c.SubjectType, c.SubjectID, c.CertificationID)
}

// OrgCertification is a certification with the name of its holder.
type OrgCertification = directory.OrgCertification

// ListOrganisationCertifications returns the certifications of all the
// applications and authorisation servers of an organisation, by holder
// (through the holders, whose subject index the certifications table has).
func (d *DB) ListOrganisationCertifications(ctx context.Context, orgID string) ([]OrgCertification, error) {
	out, err := queryList(ctx, d.db, scanOrgCertf, `SELECT `+prefixed("c.", certfCols)+`, COALESCE(s.client_name, a.customer_friendly_name, '')
		FROM certifications c
		LEFT JOIN software_statements s ON c.subject_type = 'SoftwareStatement' AND s.software_statement_id = c.subject_id
		LEFT JOIN authorisation_servers a ON c.subject_type = 'AuthorisationServer' AND a.authorisation_server_id = c.subject_id
		WHERE (c.subject_type = 'SoftwareStatement' AND c.subject_id IN (SELECT software_statement_id FROM software_statements WHERE organisation_id = ?))
		   OR (c.subject_type = 'AuthorisationServer' AND c.subject_id IN (SELECT authorisation_server_id FROM authorisation_servers WHERE organisation_id = ?))
		ORDER BY COALESCE(s.client_name, a.customer_friendly_name, '') COLLATE NOCASE, c.subject_id, c.start_date DESC, c.certification_id`, orgID, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: organisation certifications: %w", err)
	}
	return out, nil
}

// scanOrgCertf reads certfCols (prefixed) and the holder's name.
func scanOrgCertf(row rowScanner) (OrgCertification, error) {
	var h OrgCertification
	var cr, up string
	c := &h.Certification
	err := row.Scan(&c.CertificationID, &c.OrganisationID, &c.SubjectType, &c.SubjectID, &c.CertificationType, &c.CertificationStartDate,
		&c.CertificationExpirationDate, &c.CertificationURI, &c.Status, &cr, &up, &h.HolderName)
	c.CreatedOn, c.UpdatedOn = parseStamp(cr), parseStamp(up)
	return h, err
}
