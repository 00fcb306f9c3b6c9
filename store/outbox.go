package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Messages SMTP refused are tried again (docs/design.md §9). The sender
// that wrote a message tries it at once and records a refusal
// (MarkSendFailed); such a message is tried again after 1, 2, 4 …
// minutes, at most an hour apart, for OutboxRetryWindow after it was
// written. Past that it stays undelivered for an operator to see (the
// outbox page, trustframe_outbox_undelivered). A message no mail server
// refused (written without SMTP: the development outbox) is never sent
// later.
const (
	OutboxRetryWindow = 24 * time.Hour
	outboxLease       = 5 * time.Minute // a claimed message's next try, should its sender stop
	outboxMaxBackoff  = time.Hour
)

// OutboxBackoff is how long a message waits after its nth failed try.
func OutboxBackoff(n int) time.Duration {
	d := time.Minute
	for i := 1; i < n && d < outboxMaxBackoff; i++ {
		d *= 2
	}
	return min(d, outboxMaxBackoff)
}

// ClaimDueMessages takes up to limit undelivered messages whose next try
// is due, oldest first, and moves their next try outboxLease ahead so
// that another instance does not send them meanwhile; the caller sends
// each and records the outcome (MarkDelivered or MarkSendFailed).
func (d *DB) ClaimDueMessages(ctx context.Context, limit int) ([]OutboxMessage, error) {
	now := d.now().UTC()
	stamp := func(t time.Time) string { return t.Format(time.RFC3339Nano) }
	var out []OutboxMessage
	err := d.tx(ctx, func(tx *sql.Tx) error {
		// The outer conditions repeat the inner ones: on PostgreSQL a row
		// another instance claimed meanwhile is read again and skipped.
		const due = `delivered = 0 AND attempts > 0 AND next_attempt_at <= ? AND at >= ?`
		rows, err := tx.QueryContext(ctx, `UPDATE outbox SET next_attempt_at = ?
			WHERE `+due+` AND id IN (SELECT id FROM outbox WHERE `+due+` ORDER BY id LIMIT ?)
			RETURNING id, at, recipient, subject, body, attempts, last_error`,
			stamp(now.Add(outboxLease)), stamp(now), stamp(now.Add(-OutboxRetryWindow)),
			stamp(now), stamp(now.Add(-OutboxRetryWindow)), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		out = out[:0]
		for rows.Next() {
			var m OutboxMessage
			var at string
			if err := rows.Scan(&m.ID, &at, &m.To, &m.Subject, &m.Body, &m.Attempts, &m.LastError); err != nil {
				return err
			}
			m.At = parseStamp(at)
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: outbox: %w", err)
	}
	return out, nil
}

// MarkSendFailed records a failed try of message id: one more attempt,
// why, and when the next try is due (OutboxBackoff). It returns that
// time.
func (d *DB) MarkSendFailed(ctx context.Context, id int64, reason string) (time.Time, error) {
	if len(reason) > 500 {
		reason = reason[:500]
	}
	var next time.Time
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT attempts FROM outbox WHERE id = ?`, id).Scan(&n); err != nil {
			return err
		}
		next = d.now().UTC().Add(OutboxBackoff(n + 1))
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET attempts = ?, last_error = ?, next_attempt_at = ? WHERE id = ? AND delivered = 0`,
			n+1, reason, next.Format(time.RFC3339Nano), id)
		return err
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("store: outbox: %w", err)
	}
	return next, nil
}
