package store

import (
	"context"
	"database/sql"
)

// Federation signing keys (docs/design.md §13): the directory signs its
// entity configuration and subordinate statements with the newest Active
// key. Rotating retires the previous key from signing; a retired key stays
// published until what it signed has expired (the federation package
// decides how long that is).

// ListFederationKeys returns every federation key, newest first.
func (d *DB) ListFederationKeys(ctx context.Context) ([]SigningKey, error) {
	return d.listKeys(ctx, "federation_keys")
}

// CurrentFederationKey is the key that signs: the newest Active one.
func (d *DB) CurrentFederationKey(ctx context.Context) (SigningKey, error) {
	return queryOne(ctx, d.db, scanSigKey, `SELECT `+sigKeyCols+` FROM federation_keys WHERE status = 'Active' ORDER BY created_at DESC, kid LIMIT 1`)
}

// AddFederationKey stores a new key that signs from now on; every other
// Active key is retired from signing in the same transaction.
func (d *DB) AddFederationKey(ctx context.Context, a Audit, k SigningKey) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `UPDATE federation_keys SET status = 'Retired', retired_at = ? WHERE status = 'Active'`, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO federation_keys(`+sigKeyCols+`) VALUES (?, ?, 'Active', ?, NULL, ?, ?)`,
			k.Kid, k.Alg, now, k.PublicJWK, k.PrivateEnc); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "key_create", SubjectType: "FederationKey", SubjectID: k.Kid,
			KeyID: k.Kid, Summary: "alg " + k.Alg + "; signs federation statements from now on"})
	})
}
