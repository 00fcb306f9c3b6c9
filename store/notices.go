package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/trustframe/trustframe/directory"
)

// NoticeItem is one thing an expiry notice announces
// (directory.NoticeItem).
type NoticeItem = directory.NoticeItem

// UnnoticedItems keeps the items no notice has announced yet.
func (d *DB) UnnoticedItems(ctx context.Context, items []NoticeItem) ([]NoticeItem, error) {
	var out []NoticeItem
	for _, it := range items {
		var n int
		if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM expiry_notices WHERE kind = ? AND item_id = ? AND expiry = ?`,
			it.Kind, it.ID, it.Expiry).Scan(&n); err != nil {
			return nil, fmt.Errorf("store: expiry notices: %w", err)
		}
		if n == 0 {
			out = append(out, it)
		}
	}
	return out, nil
}

// ActiveAdministrators are the e-mails of every Active Super User and Data
// Administrator: who hears about what expires.
func (d *DB) ActiveAdministrators(ctx context.Context) ([]string, error) {
	return d.strings(ctx, `SELECT email FROM super_users WHERE status = 'Active'
		UNION SELECT email FROM data_administrators WHERE status = 'Active' ORDER BY 1`)
}

// strings runs a query of one text column.
func (d *DB) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	out, err := queryList(ctx, d.db, scanString, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// RecordExpiryNotice marks the items as announced and queues one message per
// recipient in the outbox, in one transaction, and returns the outbox ids.
// Items announced meanwhile (another run) are skipped; when none is left,
// nothing is queued.
func (d *DB) RecordExpiryNotice(ctx context.Context, items []NoticeItem, msgs []Invitation) ([]int64, error) {
	var ids []int64
	err := d.tx(ctx, func(tx *sql.Tx) error {
		now := d.stamp()
		fresh := 0
		for _, it := range items {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO expiry_notices(kind, item_id, expiry, sent_on) VALUES (?,?,?,?)`, it.Kind, it.ID, it.Expiry, now)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				fresh++
			}
		}
		if fresh == 0 {
			return nil
		}
		for _, m := range msgs {
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO outbox(at, recipient, subject, body) VALUES (?, ?, ?, ?) RETURNING id`,
				now, m.To, m.Subject, m.Body).Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: "system", Action: "expiry_notice", SubjectType: "ExpiryNotice", SubjectID: "*",
			Summary: fmt.Sprintf("%d items announced to %d recipients", fresh, len(msgs))})
	})
	return ids, err
}

// ContactEmails are the e-mail addresses of the organisation's contacts of
// these types, each once.
func (d *DB) ContactEmails(ctx context.Context, orgID string, types []string) ([]string, error) {
	if len(types) == 0 {
		return nil, nil
	}
	args := []any{orgID}
	ph := ""
	for i, t := range types {
		if i > 0 {
			ph += ","
		}
		ph += "?"
		args = append(args, t)
	}
	return d.strings(ctx, `SELECT DISTINCT lower(email_address) FROM contacts WHERE organisation_id = ? AND contact_type IN (`+ph+`) AND email_address <> '' ORDER BY 1`, args...)
}
