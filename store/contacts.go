package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/trustframe/trustframe/directory"
)

// Contact is a person to reach at an organisation.
type Contact = directory.Contact

const contactCols = `contact_id, organisation_id, contact_type, first_name, last_name, department, email_address, phone_number, created_on, updated_on`

// ContactSortColumns are the sortable columns of the contacts table.
var ContactSortColumns = map[string]string{
	"ContactType":  "contact_type COLLATE NOCASE",
	"FirstName":    "first_name COLLATE NOCASE",
	"LastName":     "last_name COLLATE NOCASE",
	"Department":   "department COLLATE NOCASE",
	"EmailAddress": "email_address COLLATE NOCASE",
	"PhoneNumber":  "phone_number",
	"CreatedOn":    "created_on",
}

func scanContact(row rowScanner) (Contact, error) {
	var c Contact
	var cr, up string
	err := row.Scan(&c.ContactID, &c.OrganisationID, &c.ContactType, &c.FirstName, &c.LastName, &c.Department, &c.EmailAddress, &c.PhoneNumber, &cr, &up)
	c.CreatedOn, c.UpdatedOn = parseStamp(cr), parseStamp(up)
	return c, err
}

// ListContacts returns one page of an organisation's contacts, sorted.
func (d *DB) ListContacts(ctx context.Context, orgID, sortBy string, desc bool, page, size int) ([]Contact, int, error) {
	col, ok := ContactSortColumns[sortBy]
	if !ok {
		col = "last_name COLLATE NOCASE"
	}
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	if size <= 0 {
		size = 20
	}
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM contacts WHERE organisation_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := queryList(ctx, d.db, scanContact, `SELECT `+contactCols+` FROM contacts WHERE organisation_id = ? ORDER BY `+col+` `+dir+`, contact_id `+dir+` LIMIT ? OFFSET ?`,
		orgID, size, page*size)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list contacts: %w", err)
	}
	return out, total, nil
}

// GetContact returns one contact of an organisation or ErrNotFound.
func (d *DB) GetContact(ctx context.Context, orgID, id string) (Contact, error) {
	return queryOne(ctx, d.db, scanContact, `SELECT `+contactCols+` FROM contacts WHERE organisation_id = ? AND contact_id = ?`, orgID, id)
}

func checkContactType(ctx context.Context, tx *sql.Tx, name, old string) error {
	var status string
	err := tx.QueryRowContext(ctx, `SELECT status FROM contact_types WHERE name = ?`, name).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return &FieldError{Field: "ContactType", Message: fmt.Sprintf("there is no contact type %q", name)}
	}
	if err != nil {
		return err
	}
	if status != "Active" && name != old {
		return &FieldError{Field: "ContactType", Message: fmt.Sprintf("contact type %q is Inactive", name)}
	}
	return nil
}

// CreateContact adds a contact to an organisation. problems are what is
// already known to be wrong with its fields: the contact type's check is
// added to them, and when any remains nothing is written.
func (d *DB) CreateContact(ctx context.Context, a Audit, c Contact, problems directory.Fields) (Contact, error) {
	c.ContactID = NewID()
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		if err := orgExists(ctx, tx, c.OrganisationID); err != nil {
			return directory.Named(err, "Organisation")
		}
		if err := problems.Take(checkContactType(ctx, tx, c.ContactType, "")); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO contacts(`+contactCols+`) VALUES (?,?,?,?,?,?,?,?,?,?)`,
			c.ContactID, c.OrganisationID, c.ContactType, c.FirstName, c.LastName, c.Department, c.EmailAddress, c.PhoneNumber, now, now); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Contact", SubjectID: c.ContactID,
			OrganisationID: c.OrganisationID, Summary: created(c)})
	})
	if err != nil {
		return Contact{}, err
	}
	return d.GetContact(ctx, c.OrganisationID, c.ContactID)
}

// UpdateContact replaces a contact's fields. problems are as for
// CreateContact; check runs on the stored contact once the fields pass.
func (d *DB) UpdateContact(ctx context.Context, a Audit, c Contact, problems directory.Fields, check directory.Check[Contact]) (Contact, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		cur, err := queryOne(ctx, tx, scanContact, `SELECT `+contactCols+` FROM contacts WHERE organisation_id = ? AND contact_id = ?`, c.OrganisationID, c.ContactID)
		if err != nil {
			return err
		}
		if err := problems.Take(checkContactType(ctx, tx, c.ContactType, cur.ContactType)); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE contacts SET contact_type=?, first_name=?, last_name=?, department=?, email_address=?, phone_number=?, updated_on=? WHERE contact_id=?`,
			c.ContactType, c.FirstName, c.LastName, c.Department, c.EmailAddress, c.PhoneNumber, d.stamp(), c.ContactID); err != nil {
			return err
		}
		return d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "Contact", SubjectID: c.ContactID,
			OrganisationID: c.OrganisationID, Summary: diff(cur, c)})
	})
	if err != nil {
		return Contact{}, err
	}
	return d.GetContact(ctx, c.OrganisationID, c.ContactID)
}

// DeleteContact removes a contact.
func (d *DB) DeleteContact(ctx context.Context, a Audit, orgID, id string, check directory.Check[Contact]) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := current(ctx, tx, scanContact, check, `SELECT `+contactCols+` FROM contacts WHERE organisation_id = ? AND contact_id = ?`, orgID, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM contacts WHERE contact_id = ?`, id); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "delete", SubjectType: "Contact", SubjectID: id,
			OrganisationID: orgID, Summary: "deleted " + created(cur)})
	})
}
