package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"
)

// SessionStore keeps scs sessions in the same database (scs.CtxStore).
// A session is stored under the SHA-256 of its token, never the token
// itself: whoever reads the database (a backup, a copy) cannot use the
// sessions in it. Rows stored raw by an earlier version no longer match;
// their holders simply sign in again.
type SessionStore struct{ d *DB }

// tokenKey is what the database keeps of a session token.
func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Sessions returns the scs store backed by this database.
func (d *DB) Sessions() *SessionStore { return &SessionStore{d: d} }

func unixf(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// FindCtx returns the session data of a live token.
func (s *SessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var b []byte
	err := s.d.db.QueryRowContext(ctx, `SELECT data FROM sessions WHERE token = ? AND expiry > ?`, tokenKey(token), unixf(s.d.now())).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// CommitCtx writes a session.
func (s *SessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	return s.d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions(token, data, expiry) VALUES (?, ?, ?)
			ON CONFLICT(token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`, tokenKey(token), b, unixf(expiry))
		return err
	})
}

// DeleteCtx removes a session.
func (s *SessionStore) DeleteCtx(ctx context.Context, token string) error {
	return s.d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE token = ?`, tokenKey(token))
		return err
	})
}

// Find satisfies scs.Store for callers without a context, as Commit and
// Delete do.
func (s *SessionStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}
func (s *SessionStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}
func (s *SessionStore) Delete(token string) error { return s.DeleteCtx(context.Background(), token) }

// PurgeExpiredSessions removes expired sessions; serve runs it periodically.
func (s *SessionStore) PurgeExpiredSessions(ctx context.Context) error {
	return s.d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expiry <= ?`, unixf(s.d.now()))
		return err
	})
}
