package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// DevIdPRefreshTokens keeps the development identity provider's refresh
// token sessions (devidp.RefreshTokenStore).
type DevIdPRefreshTokens struct{ d *DB }

// DevIdPRefreshTokens returns the store of the development identity
// provider's refresh tokens.
func (d *DB) DevIdPRefreshTokens() *DevIdPRefreshTokens { return &DevIdPRefreshTokens{d: d} }

// Save stores a refresh token session.
func (s *DevIdPRefreshTokens) Save(ctx context.Context, signature, requestID string, data []byte, expires time.Time) error {
	return s.d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO dev_idp_refresh_tokens(signature, request_id, data, active, expires) VALUES (?, ?, ?, 1, ?)
			ON CONFLICT(signature) DO UPDATE SET request_id = excluded.request_id, data = excluded.data, active = 1, expires = excluded.expires`,
			signature, requestID, data, expires.UTC().Format(time.RFC3339Nano))
		if err != nil {
			return fmt.Errorf("store: save refresh token: %w", err)
		}
		// Forget what has expired on the way.
		_, err = tx.ExecContext(ctx, `DELETE FROM dev_idp_refresh_tokens WHERE expires < ?`, s.d.stamp())
		return err
	})
}

// Find returns a refresh token session that has not expired, and whether
// it is still active (ErrNotFound when there is none).
func (s *DevIdPRefreshTokens) Find(ctx context.Context, signature string) ([]byte, bool, error) {
	var data []byte
	var active bool
	err := s.d.db.QueryRowContext(ctx, `SELECT data, active FROM dev_idp_refresh_tokens WHERE signature = ? AND expires >= ?`,
		signature, s.d.stamp()).Scan(&data, &active)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, ErrNotFound
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: find refresh token: %w", err)
	}
	return data, active, nil
}

// Deactivate makes every refresh token of an authorization request
// inactive (kept until it expires, so a reuse is recognised).
func (s *DevIdPRefreshTokens) Deactivate(ctx context.Context, requestID string) error {
	return s.d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE dev_idp_refresh_tokens SET active = 0 WHERE request_id = ?`, requestID)
		return err
	})
}

// Use makes a refresh token inactive, with every other token of its
// authorization request, when it is active and has not expired, and
// reports whether it was: of two instances using one token, one gets true
// (the first statement locks the row; the other then finds it inactive).
func (s *DevIdPRefreshTokens) Use(ctx context.Context, signature string) (bool, error) {
	var used bool
	err := s.d.tx(ctx, func(tx *sql.Tx) error {
		used = false
		res, err := tx.ExecContext(ctx, `UPDATE dev_idp_refresh_tokens SET active = 0 WHERE signature = ? AND active = 1 AND expires >= ?`, signature, s.d.stamp())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return err
		}
		used = true
		_, err = tx.ExecContext(ctx, `UPDATE dev_idp_refresh_tokens SET active = 0 WHERE request_id = (SELECT request_id FROM dev_idp_refresh_tokens WHERE signature = ?)`, signature)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: use refresh token: %w", err)
	}
	return used, nil
}

// DevIdPCodes keeps the development identity provider's authorization
// codes (devidp.CodeStore),
// for every instance on the database (docs/design.md §14). They are not
// changes of the directory: no instance drops its caches for them.
type DevIdPCodes struct{ d *DB }

// DevIdPCodes returns the store of the development identity provider's
// authorization codes.
func (d *DB) DevIdPCodes() *DevIdPCodes { return &DevIdPCodes{d: d} }

// Save stores a request of kind made with the code of signature, and
// forgets what has expired.
func (s *DevIdPCodes) Save(ctx context.Context, kind, signature string, data []byte, expires time.Time) error {
	return s.d.commit(ctx, false, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM dev_idp_codes WHERE expires < ?`, s.d.stamp()); err != nil {
			return fmt.Errorf("store: save authorization code: %w", err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO dev_idp_codes(signature, kind, data, active, expires) VALUES (?, ?, ?, 1, ?)`,
			signature, kind, data, expires.UTC().Format(time.RFC3339Nano))
		if err != nil {
			return fmt.Errorf("store: save authorization code: %w", err)
		}
		return nil
	})
}

// Find returns a request that has not expired and whether it is active
// (ErrNotFound when there is none).
func (s *DevIdPCodes) Find(ctx context.Context, kind, signature string) ([]byte, bool, error) {
	var data []byte
	var active bool
	err := s.d.db.QueryRowContext(ctx, `SELECT data, active FROM dev_idp_codes WHERE signature = ? AND kind = ? AND expires >= ?`,
		signature, kind, s.d.stamp()).Scan(&data, &active)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, ErrNotFound
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: find authorization code: %w", err)
	}
	return data, active, nil
}

// Invalidate makes a request inactive (kept until it expires, so that a
// reuse is recognised) and reports whether it was active: of two
// instances invalidating one code, one gets true.
func (s *DevIdPCodes) Invalidate(ctx context.Context, kind, signature string) (bool, error) {
	var n int64
	err := s.d.commit(ctx, false, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE dev_idp_codes SET active = 0 WHERE signature = ? AND kind = ? AND active = 1`, signature, kind)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: invalidate authorization code: %w", err)
	}
	return n == 1, nil
}

// Delete forgets a request and reports whether there was one: of two
// instances deleting one, one gets true.
func (s *DevIdPCodes) Delete(ctx context.Context, kind, signature string) (bool, error) {
	var n int64
	err := s.d.commit(ctx, false, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM dev_idp_codes WHERE signature = ? AND kind = ?`, signature, kind)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: delete authorization code: %w", err)
	}
	return n == 1, nil
}

// DevIdPKey returns the development identity provider's sealed signing key
// kept in the database, keeping sealed first when there is none: the first
// instance on a database stores its key, every other one gets that key
// back (docs/design.md §14). Insert-if-absent and the read are one
// transaction, so instances starting together agree.
func (d *DB) DevIdPKey(ctx context.Context, sealed []byte) ([]byte, error) {
	var kept []byte
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO dev_idp_key(id, sealed, created_at) VALUES (1, ?, ?)`, sealed, d.stamp()); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT sealed FROM dev_idp_key WHERE id = 1`).Scan(&kept)
	})
	if err != nil {
		return nil, fmt.Errorf("store: development identity provider key: %w", err)
	}
	return kept, nil
}
