package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/trustframe/trustframe/directory"
)

// ReferenceItem is a reference data item addressed by its Name.
type ReferenceItem = directory.ReferenceItem

// RefKind is one kind of name/description/status reference data.
type RefKind = directory.RefKind

// The kinds of name/description/status reference data.
var (
	ContactTypes       = RefKind{Table: "contact_types", Subject: "ContactType", Label: "Contact type"}
	DocumentTypes      = RefKind{Table: "document_types", Subject: "DocumentType", Label: "Document type"}
	CertificationTypes = RefKind{Table: "certification_types", Subject: "CertificationType", Label: "Certification type"}
)

func validKind(k RefKind) error {
	switch k.Table {
	case ContactTypes.Table, DocumentTypes.Table, CertificationTypes.Table:
		return nil
	}
	return fmt.Errorf("store: unknown reference kind %q", k.Table)
}

// ListRefs returns every item of a kind.
func (d *DB) ListRefs(ctx context.Context, k RefKind) ([]ReferenceItem, error) {
	if err := validKind(k); err != nil {
		return nil, err
	}
	return queryList(ctx, d.db, scanRef, `SELECT name, description, status FROM `+k.Table+` ORDER BY name`)
}

func scanRef(row rowScanner) (ReferenceItem, error) {
	var r ReferenceItem
	err := row.Scan(&r.Name, &r.Description, &r.Status)
	return r, err
}

// GetRef returns one item or ErrNotFound.
func (d *DB) GetRef(ctx context.Context, k RefKind, name string) (ReferenceItem, error) {
	if err := validKind(k); err != nil {
		return ReferenceItem{}, err
	}
	return queryOne(ctx, d.db, scanRef, `SELECT name, description, status FROM `+k.Table+` WHERE name = ?`, name)
}

// CreateRef adds an item; an existing name is a conflict.
func (d *DB) CreateRef(ctx context.Context, k RefKind, a Audit, r ReferenceItem) (ReferenceItem, error) {
	if err := validKind(k); err != nil {
		return r, err
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+k.Table+` WHERE name = ?`, r.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: fmt.Sprintf("%s %q exists", k.Label, r.Name)}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+k.Table+`(name, description, status) VALUES (?, ?, ?)`, r.Name, r.Description, r.Status); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: k.Subject, SubjectID: r.Name, Summary: created(r)})
	})
	if err != nil {
		return ReferenceItem{}, err
	}
	return d.GetRef(ctx, k, r.Name)
}

// UpdateRef changes an item's description and status. A certification
// type cannot be disabled while a certification of it is held by an
// active application or authorisation server (docs/design.md §5); certifications on
// inactive ones do not count.
func (d *DB) UpdateRef(ctx context.Context, k RefKind, a Audit, r ReferenceItem, check func(cur ReferenceItem) error) (ReferenceItem, error) {
	if err := validKind(k); err != nil {
		return r, err
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := current(ctx, tx, scanRef, check, `SELECT name, description, status FROM `+k.Table+` WHERE name = ?`, r.Name)
		if err != nil {
			return err
		}
		if r.Status == "" { // left out: unchanged
			r.Status = cur.Status
		}
		if k == CertificationTypes && cur.Status == "Active" && r.Status == "Inactive" {
			held, err := certificationsHeld(ctx, tx, r.Name, true)
			if err != nil {
				return err
			}
			if len(held) > 0 {
				return &ConflictError{Message: fmt.Sprintf("Certification type %q is held by %d active application(s) or authorisation server(s)", r.Name, len(held)),
					InTheWay: directory.InTheWay{Certifications: held}}
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+k.Table+` SET description = ?, status = ? WHERE name = ?`, r.Description, r.Status, r.Name); err != nil {
			return err
		}
		return d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: k.Subject, SubjectID: r.Name, Summary: diff(cur, r)})
	})
	if err != nil {
		return ReferenceItem{}, err
	}
	return d.GetRef(ctx, k, r.Name)
}

// HeldCertification names a certification in the way of a change.
type HeldCertification = directory.HeldCertification

// certificationsHeld lists certifications of a type with the names of
// their organisation and holder (joined, one query); with activeOnly, only
// those whose application or authorisation server is Active.
func certificationsHeld(ctx context.Context, tx *sql.Tx, typ string, activeOnly bool) ([]HeldCertification, error) {
	q := `SELECT c.certification_id, c.organisation_id, COALESCE(o.name, ''), c.certification_type, c.subject_type, c.subject_id,
			COALESCE(s.client_name, a.customer_friendly_name, '')
		FROM certifications c LEFT JOIN organisations o ON o.organisation_id = c.organisation_id
		LEFT JOIN software_statements s ON c.subject_type = 'SoftwareStatement' AND s.software_statement_id = c.subject_id
		LEFT JOIN authorisation_servers a ON c.subject_type = 'AuthorisationServer' AND a.authorisation_server_id = c.subject_id
		WHERE c.certification_type = ?`
	if activeOnly {
		q += ` AND (s.status = 'Active' OR a.status = 'Active')`
	}
	return queryList(ctx, tx, func(row rowScanner) (HeldCertification, error) {
		var h HeldCertification
		err := row.Scan(&h.CertificationID, &h.OrganisationID, &h.OrganisationName, &h.CertificationType, &h.SubjectType, &h.SubjectID, &h.SubjectName)
		return h, err
	}, q+` ORDER BY c.organisation_id, c.certification_id LIMIT 100`, typ)
}

// DeleteRef removes an item nothing uses. When something uses it, the
// ConflictError names what is in the way (InTheWay).
// check (nil: none) sees the current item first, inside the transaction
// (If-Match).
func (d *DB) DeleteRef(ctx context.Context, k RefKind, a Audit, name string, check func(cur ReferenceItem) error) error {
	if err := validKind(k); err != nil {
		return err
	}
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := current(ctx, tx, scanRef, check, `SELECT name, description, status FROM `+k.Table+` WHERE name = ?`, name); err != nil {
			return err
		}
		var inTheWay directory.InTheWay
		var err error
		switch k {
		case ContactTypes:
			inTheWay.Contacts, err = queryList(ctx, tx, func(row rowScanner) (directory.ContactInUse, error) {
				var u directory.ContactInUse
				err := row.Scan(&u.ContactID, &u.OrganisationID, &u.OrganisationName, &u.Name, &u.EmailAddress)
				return u, err
			}, `SELECT c.contact_id, c.organisation_id, COALESCE(o.name, ''), trim(c.first_name || ' ' || c.last_name), c.email_address
				FROM contacts c LEFT JOIN organisations o ON o.organisation_id = c.organisation_id
				WHERE c.contact_type = ? ORDER BY c.organisation_id, c.contact_id LIMIT 100`, name)
		case DocumentTypes:
			inTheWay.Documents, err = queryList(ctx, tx, func(row rowScanner) (directory.DocumentInUse, error) {
				var u directory.DocumentInUse
				err := row.Scan(&u.DocumentID, &u.OrganisationID, &u.OrganisationName, &u.DocumentType, &u.DocumentReferenceNumber, &u.DocumentDescription)
				return u, err
			}, `SELECT d.document_id, d.organisation_id, COALESCE(o.name, ''), d.document_type, d.reference_number, d.description
				FROM documents d LEFT JOIN organisations o ON o.organisation_id = d.organisation_id
				WHERE d.document_type = ? ORDER BY d.organisation_id, d.document_id LIMIT 100`, name)
		case CertificationTypes:
			inTheWay.Certifications, err = certificationsHeld(ctx, tx, name, false)
		}
		if err != nil {
			return err
		}
		if count := len(inTheWay.Contacts) + len(inTheWay.Documents) + len(inTheWay.Certifications); count > 0 {
			return &ConflictError{Message: fmt.Sprintf("%s %q is in use by %d item(s)", k.Label, name, count), InTheWay: inTheWay}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+k.Table+` WHERE name = ?`, name); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "delete", SubjectType: k.Subject, SubjectID: name, Summary: "deleted"})
	})
}

// Flag is a reference data flag (the layer's type).
type Flag = directory.Flag

// ListFlags returns every flag, or those of one type.
func (d *DB) ListFlags(ctx context.Context, typ string) ([]Flag, error) {
	q, args := `SELECT flag_id, name, description, type, status FROM flags`, []any{}
	if typ != "" {
		q += ` WHERE type = ?`
		args = append(args, typ)
	}
	return queryList(ctx, d.db, scanFlag, q+` ORDER BY type, name`, args...)
}

func scanFlag(row rowScanner) (Flag, error) {
	var f Flag
	err := row.Scan(&f.FlagID, &f.Name, &f.Description, &f.Type, &f.Status)
	return f, err
}

// GetFlag returns one flag or ErrNotFound.
func (d *DB) GetFlag(ctx context.Context, id string) (Flag, error) {
	return queryOne(ctx, d.db, scanFlag, `SELECT flag_id, name, description, type, status FROM flags WHERE flag_id = ?`, id)
}

func flagNameTaken(ctx context.Context, tx *sql.Tx, f Flag) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM flags WHERE type = ? AND name = ? AND flag_id <> ?`, f.Type, f.Name, f.FlagID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return &FieldError{Field: "Name", Message: fmt.Sprintf("a %s flag named %q exists", f.Type, f.Name)}
	}
	return nil
}

// CreateFlag adds a flag.
func (d *DB) CreateFlag(ctx context.Context, a Audit, f Flag) (Flag, error) {
	if f.FlagID == "" {
		f.FlagID = NewID()
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		// A FlagId the client chose may be taken: a conflict, as for an
		// authority, not the table's constraint (a 500).
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM flags WHERE flag_id = ?`, f.FlagID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: "a flag with FlagId " + f.FlagID + " exists"}
		}
		if err := flagNameTaken(ctx, tx, f); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO flags(flag_id, name, description, type, status) VALUES (?, ?, ?, ?, ?)`, f.FlagID, f.Name, f.Description, f.Type, f.Status); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Flag", SubjectID: f.FlagID, Summary: created(f)})
	})
	if err != nil {
		return Flag{}, err
	}
	return d.GetFlag(ctx, f.FlagID)
}

// UpdateFlag changes a flag's name, description and status (not its type).
func (d *DB) UpdateFlag(ctx context.Context, a Audit, f Flag, check func(cur Flag) error) (Flag, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := current(ctx, tx, scanFlag, check, `SELECT flag_id, name, description, type, status FROM flags WHERE flag_id = ?`, f.FlagID)
		if err != nil {
			return err
		}
		if f.Type != cur.Type {
			return &FieldError{Field: "Type", Message: "the type of a flag cannot change"}
		}
		if f.Status == "" {
			f.Status = cur.Status // left out: kept (docs/design.md §4)
		}
		if err := flagNameTaken(ctx, tx, f); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE flags SET name = ?, description = ?, status = ? WHERE flag_id = ?`, f.Name, f.Description, f.Status, f.FlagID); err != nil {
			return err
		}
		return d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "Flag", SubjectID: f.FlagID, Summary: diff(cur, f)})
	})
	if err != nil {
		return Flag{}, err
	}
	return d.GetFlag(ctx, f.FlagID)
}
