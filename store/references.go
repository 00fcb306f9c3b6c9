package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// ReferenceItem is a reference data item addressed by its Name.
type ReferenceItem struct {
	Name        string `json:"Name"`
	Description string `json:"Description"`
	Status      string `json:"Status"`
}

// ListContactTypes returns every contact type.
func (d *DB) ListContactTypes(ctx context.Context) ([]ReferenceItem, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT name, description, status FROM contact_types ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ReferenceItem{}
	for rows.Next() {
		var r ReferenceItem
		if err := rows.Scan(&r.Name, &r.Description, &r.Status); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// GetContactType returns one contact type or ErrNotFound.
func (d *DB) GetContactType(ctx context.Context, name string) (ReferenceItem, error) {
	var r ReferenceItem
	err := d.db.QueryRowContext(ctx, `SELECT name, description, status FROM contact_types WHERE name = ?`, name).Scan(&r.Name, &r.Description, &r.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	return r, err
}

// CreateContactType adds a contact type; an existing name is a conflict.
func (d *DB) CreateContactType(ctx context.Context, a Audit, r ReferenceItem) (ReferenceItem, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM contact_types WHERE name = ?`, r.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: fmt.Sprintf("Contact type %q exists", r.Name)}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO contact_types(name, description, status) VALUES (?, ?, ?)`, r.Name, r.Description, r.Status); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "ContactType", SubjectID: r.Name, Summary: created(r)})
	})
	if err != nil {
		return ReferenceItem{}, err
	}
	return d.GetContactType(ctx, r.Name)
}

// UpdateContactType changes a contact type's description and status.
func (d *DB) UpdateContactType(ctx context.Context, a Audit, r ReferenceItem, check func(cur ReferenceItem) error) (ReferenceItem, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var cur ReferenceItem
		err := tx.QueryRowContext(ctx, `SELECT name, description, status FROM contact_types WHERE name = ?`, r.Name).Scan(&cur.Name, &cur.Description, &cur.Status)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(cur); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE contact_types SET description = ?, status = ? WHERE name = ?`, r.Description, r.Status, r.Name); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "ContactType", SubjectID: r.Name, Summary: diff(cur, r)})
	})
	if err != nil {
		return ReferenceItem{}, err
	}
	return d.GetContactType(ctx, r.Name)
}

// InUse is what stands in the way of deleting a reference item.
type InUse struct {
	ContactID      string `json:"ContactId"`
	OrganisationID string `json:"OrganisationId"`
	Name           string `json:"Name"`
}

// DeleteContactType removes a contact type that no contact uses. When
// contacts use it, the ConflictError message is "summary|payload" with the
// contacts in the way (DESIGN §4).
func (d *DB) DeleteContactType(ctx context.Context, a Audit, name string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM contact_types WHERE name = ?`, name).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		rows, err := tx.QueryContext(ctx, `SELECT contact_id, organisation_id, trim(first_name || ' ' || last_name) FROM contacts WHERE contact_type = ? ORDER BY organisation_id, contact_id LIMIT 100`, name)
		if err != nil {
			return err
		}
		var used []InUse
		for rows.Next() {
			var u InUse
			if err := rows.Scan(&u.ContactID, &u.OrganisationID, &u.Name); err != nil {
				rows.Close()
				return err
			}
			used = append(used, u)
		}
		rows.Close()
		if len(used) > 0 {
			payload, _ := json.Marshal(map[string]any{"Contacts": used})
			return &ConflictError{Message: fmt.Sprintf("Contact type %q is in use by %d contact(s)|%s", name, len(used), payload)}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM contact_types WHERE name = ?`, name); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "delete", SubjectType: "ContactType", SubjectID: name, Summary: "deleted"})
	})
}

// Flag is a reference data flag that resources of one type carry.
type Flag struct {
	FlagID      string `json:"FlagId"`
	Name        string `json:"Name"`
	Description string `json:"Description"`
	Type        string `json:"Type"`
	Status      string `json:"Status"`
}

// ListFlags returns every flag, or those of one type.
func (d *DB) ListFlags(ctx context.Context, typ string) ([]Flag, error) {
	q, args := `SELECT flag_id, name, description, type, status FROM flags`, []any{}
	if typ != "" {
		q += ` WHERE type = ?`
		args = append(args, typ)
	}
	rows, err := d.db.QueryContext(ctx, q+` ORDER BY type, name`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Flag{}
	for rows.Next() {
		var f Flag
		if err := rows.Scan(&f.FlagID, &f.Name, &f.Description, &f.Type, &f.Status); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// GetFlag returns one flag or ErrNotFound.
func (d *DB) GetFlag(ctx context.Context, id string) (Flag, error) {
	var f Flag
	err := d.db.QueryRowContext(ctx, `SELECT flag_id, name, description, type, status FROM flags WHERE flag_id = ?`, id).Scan(&f.FlagID, &f.Name, &f.Description, &f.Type, &f.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return f, ErrNotFound
	}
	return f, err
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
		var cur Flag
		err := tx.QueryRowContext(ctx, `SELECT flag_id, name, description, type, status FROM flags WHERE flag_id = ?`, f.FlagID).Scan(&cur.FlagID, &cur.Name, &cur.Description, &cur.Type, &cur.Status)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(cur); err != nil {
				return err
			}
		}
		if f.Type != cur.Type {
			return &FieldError{Field: "Type", Message: "the type of a flag cannot change"}
		}
		if err := flagNameTaken(ctx, tx, f); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE flags SET name = ?, description = ?, status = ? WHERE flag_id = ?`, f.Name, f.Description, f.Status, f.FlagID); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "Flag", SubjectID: f.FlagID, Summary: diff(cur, f)})
	})
	if err != nil {
		return Flag{}, err
	}
	return d.GetFlag(ctx, f.FlagID)
}
