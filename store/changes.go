package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/trustframe/trustframe/directory"
)

// Change is one entry of the change feed (directory.Change).
type Change = directory.Change

// ChangeOf is the feed entry of an audit record of the log with epoch.
func ChangeOf(epoch string, r AuditRecord) Change {
	return Change{Cursor: EncodeCursor(epoch, r.ID), Time: r.At.UTC(), Action: r.Action, SubjectType: r.SubjectType,
		SubjectID: r.SubjectID, OrganisationID: r.OrganisationID, Actor: r.Actor}
}

// Cursor errors: a cursor that is not one of ours, and one that this log
// cannot continue (another database's, or ahead of this log).
var (
	ErrCursorMalformed = errors.New("store: malformed cursor")
	ErrCursorGone      = errors.New("store: cursor not from this log")
)

const cursorPrefix = "c1."

// EncodeCursor makes the opaque cursor that points after audit record id of
// the log with epoch.
func EncodeCursor(epoch string, id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + epoch + "." + strconv.FormatInt(id, 10)))
}

// DecodeCursor reads a cursor back (ErrCursorMalformed when it is not one).
func DecodeCursor(s string) (epoch string, id int64, err error) {
	if len(s) > 200 {
		return "", 0, ErrCursorMalformed
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) {
		return "", 0, ErrCursorMalformed
	}
	epoch, num, ok := strings.Cut(strings.TrimPrefix(string(b), cursorPrefix), ".")
	if !ok || len(epoch) != 32 {
		return "", 0, ErrCursorMalformed
	}
	if _, err := hex.DecodeString(epoch); err != nil {
		return "", 0, ErrCursorMalformed
	}
	id, err = strconv.ParseInt(num, 10, 64)
	if err != nil || id < 0 || strconv.FormatInt(id, 10) != num {
		return "", 0, ErrCursorMalformed
	}
	return epoch, id, nil
}

// FeedEpoch is the identity of this database's audit log, made on first
// use and kept. A copy made by Backup does not keep it (a restored
// database is a new log); after pg_restore the operator deletes it
// (README, Backups and restore).
func (d *DB) FeedEpoch(ctx context.Context) (string, error) {
	d.feedEpochMu.Lock()
	defer d.feedEpochMu.Unlock()
	if d.feedEpoch != "" {
		return d.feedEpoch, nil
	}
	var epoch string
	err := d.db.QueryRowContext(ctx, `SELECT value FROM change_feed WHERE name = 'epoch'`).Scan(&epoch)
	if errors.Is(err, sql.ErrNoRows) {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		err = d.tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO change_feed(name, value) VALUES ('epoch', ?) ON CONFLICT (name) DO NOTHING`, hex.EncodeToString(b))
			return err
		})
		if err == nil {
			err = d.db.QueryRowContext(ctx, `SELECT value FROM change_feed WHERE name = 'epoch'`).Scan(&epoch)
		}
	}
	if err != nil {
		return "", fmt.Errorf("store: change feed epoch: %w", err)
	}
	d.feedEpoch = epoch
	return epoch, nil
}

// ResolveCursor turns a cursor into the audit id it points after:
// ErrCursorMalformed when it is not a cursor, ErrCursorGone when it is
// from another log or ahead of this one (the client must start again).
func (d *DB) ResolveCursor(ctx context.Context, cursor string) (int64, error) {
	epoch, id, err := DecodeCursor(cursor)
	if err != nil {
		return 0, err
	}
	mine, err := d.FeedEpoch(ctx)
	if err != nil {
		return 0, err
	}
	if epoch != mine {
		return 0, ErrCursorGone
	}
	last, err := d.LastChangeID(ctx)
	if err != nil {
		return 0, err
	}
	if id > last {
		return 0, ErrCursorGone
	}
	return id, nil
}

// LastChangeID is the id of the newest audit record (0 when none).
func (d *DB) LastChangeID(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := d.queryRow(ctx, `SELECT MAX(id) FROM audit_log`).Scan(&id); err != nil {
		return 0, fmt.Errorf("store: change feed head: %w", err)
	}
	return id.Int64, nil
}

// ChangesAfter returns up to limit audit records with ids after after, in
// commit order.
//
// Commit order holds on SQLite because it has one writer: an id is taken
// inside the write transaction (AUTOINCREMENT), and no other transaction
// writes until that one has committed or rolled back, so once a reader
// sees id N every id below N that will ever exist is visible too. A
// reader therefore never skips a record that commits later with a smaller
// id. PostgreSQL needs its own rule (docs/decisions.md, change feed).
func (d *DB) ChangesAfter(ctx context.Context, after int64, limit int) ([]AuditRecord, error) {
	out, err := queryList(ctx, d.db, scanAudit, `SELECT `+auditCols+` FROM audit_log WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("store: changes: %w", err)
	}
	return out, nil
}
