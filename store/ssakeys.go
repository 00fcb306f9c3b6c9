package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/trustframe/trustframe/directory"
)

// SigningKey is a stored signing key: the application layer's.
type SigningKey = directory.SigningKey

const sigKeyCols = `kid, alg, status, created_at, retired_at, public_jwk, private_enc`

func scanSigKey(row rowScanner) (SigningKey, error) { return scanKey(row) }

// scanKey reads the columns of sigKeyCols, then into more those that a
// table adds after them (federation keys: fedKeyCols).
func scanKey(row rowScanner, more ...any) (SigningKey, error) {
	var k SigningKey
	var c string
	var r sql.NullString
	err := row.Scan(append([]any{&k.Kid, &k.Alg, &k.Status, &c, &r, &k.PublicJWK, &k.PrivateEnc}, more...)...)
	k.CreatedAt = parseStamp(c)
	if r.Valid {
		t := parseStamp(r.String)
		k.RetiredAt = &t
	}
	return k, err
}

// ListSigningKeys returns every key, newest first.
func (d *DB) ListSigningKeys(ctx context.Context) ([]SigningKey, error) {
	return d.listKeys(ctx, "ssa_keys")
}

// listKeys returns every key of a key table (ssa_keys, federation_keys),
// newest first.
func (d *DB) listKeys(ctx context.Context, table string) ([]SigningKey, error) {
	out, err := queryList(ctx, d.db, scanSigKey, `SELECT `+sigKeyCols+` FROM `+table+` ORDER BY created_at DESC, kid`)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", table, err)
	}
	return out, nil
}

// CurrentSigningKey is the newest Active key of an algorithm: the one that signs.
func (d *DB) CurrentSigningKey(ctx context.Context, alg string) (SigningKey, error) {
	return queryOne(ctx, d.db, scanSigKey, `SELECT `+sigKeyCols+` FROM ssa_keys WHERE alg = ? AND status = 'Active' ORDER BY created_at DESC, kid LIMIT 1`, alg)
}

// CurrentSigningKid is the kid of the key that signs for alg (no blobs read).
// It is asked on every SSA: the answer is kept while the directory is
// unchanged (readcache.go), so a rotation on any instance is seen by the next
// assertion.
func (d *DB) CurrentSigningKid(ctx context.Context, alg string) (string, error) {
	return cached(ctx, d, &d.signingKids, alg, func() (string, error) {
		var kid string
		err := d.queryRow(ctx, `SELECT kid FROM ssa_keys WHERE alg = ? AND status = 'Active' ORDER BY created_at DESC, kid LIMIT 1`, alg).Scan(&kid)
		if errors.Is(err, sql.ErrNoRows) {
			return "", ErrNotFound
		}
		return kid, err
	})
}

// GetSigningKey returns one key by kid.
func (d *DB) GetSigningKey(ctx context.Context, kid string) (SigningKey, error) {
	return queryOne(ctx, d.db, scanSigKey, `SELECT `+sigKeyCols+` FROM ssa_keys WHERE kid = ?`, kid)
}

// AddSigningKey stores a new Active key; it signs from now on.
func (d *DB) AddSigningKey(ctx context.Context, a Audit, k SigningKey) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO ssa_keys(`+sigKeyCols+`) VALUES (?, ?, 'Active', ?, NULL, ?, ?)`,
			k.Kid, k.Alg, d.stamp(), k.PublicJWK, k.PrivateEnc); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "key_create", SubjectType: "SigningKey", SubjectID: k.Kid,
			KeyID: k.Kid, Summary: "alg " + k.Alg + "; signs from now on"})
	})
}

// RetireSigningKey stops publishing a key. The last Active key of an
// algorithm that must stay enabled cannot be retired (ConflictError).
func (d *DB) RetireSigningKey(ctx context.Context, a Audit, kid string, keep func(alg string) bool) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		var alg, status string
		err := tx.QueryRowContext(ctx, `SELECT alg, status FROM ssa_keys WHERE kid = ?`, kid).Scan(&alg, &status)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if status == "Retired" {
			return &ConflictError{Message: "key " + kid + " is already retired"}
		}
		var others int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM ssa_keys WHERE alg = ? AND status = 'Active' AND kid <> ?`, alg, kid).Scan(&others); err != nil {
			return err
		}
		if others == 0 && keep(alg) {
			return &ConflictError{Message: "key " + kid + " is the only active " + alg + " key and " + alg + " is enabled: rotate first"}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE ssa_keys SET status = 'Retired', retired_at = ? WHERE kid = ?`, d.stamp(), kid); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "key_retire", SubjectType: "SigningKey", SubjectID: kid,
			KeyID: kid, Summary: "alg " + alg + "; no longer published"})
	})
}

// KEKCheck returns the stored check value (nil when none yet).
func (d *DB) KEKCheck(ctx context.Context) ([]byte, error) {
	var b []byte
	err := d.db.QueryRowContext(ctx, `SELECT check_enc FROM kek_check WHERE id = 1`).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return b, err
}

// SetKEKCheck stores the check value once; it never overwrites.
func (d *DB) SetKEKCheck(ctx context.Context, b []byte) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO kek_check(id, check_enc) VALUES (1, ?) ON CONFLICT(id) DO NOTHING`, b)
		return err
	})
}

// ErrKeyRetired means an SSA's record was not written because the key
// that signed it is no longer Active (retired by another process or
// instance after this one read its current key): the SSA must not be
// handed out.
var ErrKeyRetired = directory.ErrKeyRetired

// RecordSSA writes the audit record of an issued SSA and returns once it
// is durable; records of concurrent SSAs share one transaction (group
// commit, groupcommit.go). The record is written only while the key kid is
// Active, checked in the transaction that writes it; otherwise nothing is
// written, the cached current kids are dropped and the answer is
// ErrKeyRetired.
func (d *DB) RecordSSA(ctx context.Context, a Audit, orgID, appID, alg, kid, jti string) error {
	err := d.recordGrouped(ctx, AuditRecord{Actor: a.Actor, Action: "ssa_issued", SubjectType: "Application", SubjectID: appID,
		OrganisationID: orgID, KeyID: kid, Summary: "alg " + alg + "; kid " + kid + "; jti " + jti}, true)
	if errors.Is(err, ErrKeyRetired) {
		d.signingKids.forget()
	}
	return err
}
