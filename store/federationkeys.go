package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Federation signing keys (docs/design.md §13): the directory signs its
// entity configuration and subordinate statements with the newest Active
// key. Rotating retires the previous key from signing; a retired key stays
// published until what it signed has expired (the federation package
// decides how long that is). A staged rollover first publishes a Next key
// that does not sign (PrepareFederationKey), then lets it sign
// (ActivateFederationKey): relying parties that hold the anchor's keys
// configured add the Next key before anything is signed with it.

// fedKeyCols are the columns of a federation key: a signing key's, the
// instant a Next key may sign from (migration 0031) and whether an
// emergency rotation retired it (migration 0034).
const fedKeyCols = sigKeyCols + `, may_sign_from, compromised`

func scanFedKey(row rowScanner) (SigningKey, error) {
	var m sql.NullString
	var compromised int
	k, err := scanKey(row, &m, &compromised)
	k.Compromised = compromised != 0
	if m.Valid {
		t := parseStamp(m.String)
		k.MaySignFrom = &t
	}
	return k, err
}

// ListFederationKeys returns every federation key, newest first.
func (d *DB) ListFederationKeys(ctx context.Context) ([]SigningKey, error) {
	out, err := queryList(ctx, d.db, scanFedKey, `SELECT `+fedKeyCols+` FROM federation_keys ORDER BY created_at DESC, kid`)
	if err != nil {
		return nil, fmt.Errorf("store: federation_keys: %w", err)
	}
	return out, nil
}

// CurrentFederationKey is the key that signs: the newest Active one. It
// is asked on every federation signature (each trust mark): the answer is
// kept while the directory is unchanged (readcache.go; every key change
// bumps the directory version, on any instance through Sync) and for at
// most ReadCacheAge.
func (d *DB) CurrentFederationKey(ctx context.Context) (SigningKey, error) {
	return cached(ctx, d, &d.fedKey, struct{}{}, func() (SigningKey, error) {
		return queryOne(ctx, d.hot(), scanFedKey, `SELECT `+fedKeyCols+` FROM federation_keys WHERE status = 'Active' ORDER BY created_at DESC, kid LIMIT 1`)
	})
}

// AddFederationKey stores a new key that signs from now on; every other
// Active key is retired from signing in the same transaction and marked
// compromised: the immediate rotation is the emergency path, and the
// historical keys say those keys are revoked (docs/design.md §17). A Next
// key is left as it is: the emergency does not decide about the prepared
// key.
func (d *DB) AddFederationKey(ctx context.Context, a Audit, k SigningKey) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `UPDATE federation_keys SET status = 'Retired', retired_at = ?, compromised = 1 WHERE status = 'Active'`, now); err != nil {
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

// NextFederationKey is the key published as the next one, not signing
// yet; ErrNotFound when there is none.
func (d *DB) NextFederationKey(ctx context.Context) (SigningKey, error) {
	return queryOne(ctx, d.db, scanFedKey, `SELECT `+fedKeyCols+` FROM federation_keys WHERE status = 'Next'`)
}

// PrepareFederationKey stores k as the Next key: published from now on,
// not signing. It may sign from now plus prepublish: that instant is
// stored with the key (migration 0031), so that activation follows the
// time in force when the key was prepared, whichever process activates it
// (docs/design.md §13). There is at most one Next key: while one is
// stored this is a ConflictError and nothing changes (replacing it would
// withdraw a key relying parties may already have configured).
func (d *DB) PrepareFederationKey(ctx context.Context, a Audit, k SigningKey, prepublish time.Duration) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		var kid, created string
		err := tx.QueryRowContext(ctx, `SELECT kid, created_at FROM federation_keys WHERE status = 'Next'`).Scan(&kid, &created)
		if err == nil {
			return &ConflictError{Message: "federation key " + kid + " is already published as the next key (since " +
				parseStamp(created).UTC().Format(time.RFC3339) + "); start signing with it first, or make a new key at once"}
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		now := d.now().UTC()
		from := now.Add(prepublish)
		if _, err := tx.ExecContext(ctx, `INSERT INTO federation_keys(`+fedKeyCols+`) VALUES (?, ?, 'Next', ?, NULL, ?, ?, ?, 0)`,
			k.Kid, k.Alg, now.Format(time.RFC3339Nano), k.PublicJWK, k.PrivateEnc, from.Format(time.RFC3339Nano)); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "key_create", SubjectType: "FederationKey", SubjectID: k.Kid,
			KeyID: k.Kid, Summary: "alg " + k.Alg + "; published as the next key, does not sign yet; may sign from " + from.Format(time.RFC3339)})
	})
}

// ActivateFederationKey makes the Next key the one that signs; the Active
// key is retired from signing in the same transaction (and stays
// published for a lifetime, as after AddFederationKey). ready, when not
// nil, is asked with the Next key inside the transaction and may refuse
// (a ConflictError: published too short a time). Without a Next key this
// is a ConflictError. It returns the key that now signs.
func (d *DB) ActivateFederationKey(ctx context.Context, a Audit, ready func(SigningKey) error) (SigningKey, error) {
	var next SigningKey
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		next, err = queryOne(ctx, tx, scanFedKey, `SELECT `+fedKeyCols+` FROM federation_keys WHERE status = 'Next'`)
		if errors.Is(err, ErrNotFound) {
			return &ConflictError{Message: "no federation key is published as the next key: prepare one first"}
		} else if err != nil {
			return err
		}
		if ready != nil {
			if err := ready(next); err != nil {
				return err
			}
		}
		now := d.stamp()
		var retired []string
		rows, err := tx.QueryContext(ctx, `SELECT kid FROM federation_keys WHERE status = 'Active' ORDER BY created_at DESC, kid`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var kid string
			if err := rows.Scan(&kid); err != nil {
				rows.Close()
				return err
			}
			retired = append(retired, kid)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE federation_keys SET status = 'Retired', retired_at = ? WHERE status = 'Active'`, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE federation_keys SET status = 'Active' WHERE kid = ?`, next.Kid); err != nil {
			return err
		}
		next.Status = "Active"
		summary := "signs federation statements from now on"
		if len(retired) > 0 {
			summary += "; replaces " + retired[0]
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "activate", SubjectType: "FederationKey", SubjectID: next.Kid,
			KeyID: next.Kid, Summary: summary})
	})
	return next, err
}
