package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// IdempotencyTTL is how long the first result of a keyed POST is kept.
const IdempotencyTTL = 24 * time.Hour

// ErrIdempotencyMismatch is a key reused for another request.
var ErrIdempotencyMismatch = errors.New("store: the Idempotency-Key was used for another request")

// IdempotentResult is the first answer to a keyed POST, replayed to retries.
type IdempotentResult struct {
	Status  int
	Headers map[string]string
	Body    []byte
}

// BeginIdempotent claims (actor, key) for a request with fingerprint. It
// returns started when this request is the first and must run; the stored
// result when the first has finished; neither while the first is still
// running (the caller waits and asks again). Keys older than the TTL are
// forgotten first.
func (d *DB) BeginIdempotent(ctx context.Context, actor, key, fingerprint string) (res *IdempotentResult, started bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		cutoff := d.now().Add(-IdempotencyTTL).UTC().Format(time.RFC3339Nano)
		if _, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at < ?`, cutoff); err != nil {
			return err
		}
		var fp, headers string
		var status int
		var body []byte
		err := tx.QueryRowContext(ctx, `SELECT fingerprint, status, headers, body FROM idempotency_keys WHERE actor = ? AND key = ?`, actor, key).Scan(&fp, &status, &headers, &body)
		if errors.Is(err, sql.ErrNoRows) {
			_, err = tx.ExecContext(ctx, `INSERT INTO idempotency_keys (actor, key, fingerprint, created_at) VALUES (?, ?, ?, ?)`, actor, key, fingerprint, d.stamp())
			started = err == nil
			return err
		}
		if err != nil {
			return err
		}
		if fp != fingerprint {
			return ErrIdempotencyMismatch
		}
		if status == 0 {
			return nil
		}
		res = &IdempotentResult{Status: status, Body: body}
		return json.Unmarshal([]byte(headers), &res.Headers)
	})
	return res, started, err
}

// FinishIdempotent keeps the result of the request that claimed the key.
func (d *DB) FinishIdempotent(ctx context.Context, actor, key string, res IdempotentResult) error {
	h, _ := json.Marshal(res.Headers)
	if res.Body == nil {
		res.Body = []byte{} // a redirect has no body
	}
	return d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE idempotency_keys SET status = ?, headers = ?, body = ? WHERE actor = ? AND key = ?`, res.Status, string(h), res.Body, actor, key)
		return err
	})
}

// AbandonIdempotent forgets a claim whose request changed nothing (it
// failed), so a retry runs again.
func (d *DB) AbandonIdempotent(ctx context.Context, actor, key string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE actor = ? AND key = ? AND status = 0`, actor, key)
		return err
	})
}
