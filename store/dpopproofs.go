package store

import (
	"context"
	"fmt"
	"time"
)

// proofPurgeEvery is how many recorded proofs pass between two purges of
// the expired ones.
const proofPurgeEvery = 1000

// UseProof records the key of a DPoP proof (its key thumbprint and jti)
// until exp, in the database shared by every instance, and reports whether
// it was not already recorded and live: false is a replay; an error, a
// database that cannot record it now (the proof then cannot be accepted
// safely, and the client may try again). One statement outside the write
// lock: a proof is not a change of the directory and tells no other
// instance to drop its caches.
func (d *DB) UseProof(ctx context.Context, key string, exp time.Time) (bool, error) {
	now := d.now().UnixMilli()
	if d.proofs.Add(1)%proofPurgeEvery == 0 {
		_, _ = d.db.ExecContext(ctx, `DELETE FROM dpop_proofs WHERE expires_at <= ?`, now)
	}
	res, err := d.db.ExecContext(ctx, `INSERT INTO dpop_proofs(proof_key, expires_at) VALUES (?, ?)
		ON CONFLICT (proof_key) DO UPDATE SET expires_at = excluded.expires_at WHERE dpop_proofs.expires_at <= ?`,
		key, exp.UnixMilli(), now)
	if err != nil {
		return false, fmt.Errorf("store: dpop proof: %w", busy(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: dpop proof: %w", err)
	}
	return n == 1, nil
}
