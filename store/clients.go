package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/trustframe/trustframe/clienttoken"
	"github.com/trustframe/trustframe/directory"
)

// ClientOf is the application whose ClientId is clientID, with its
// organisation's status (docs/design.md §20), or ErrNotFound. Read at
// every token request and every API request made with an application's
// token: kept while the directory is unchanged (readCache).
func (d *DB) ClientOf(ctx context.Context, clientID string) (directory.Client, error) {
	return cached(ctx, d, &d.clients, clientID, func() (directory.Client, error) {
		st, err := d.prepared(ctx, `SELECT s.software_statement_id, s.organisation_id, s.status, o.status
			FROM software_statements s JOIN organisations o ON o.organisation_id = s.organisation_id WHERE s.client_id = ?`)
		if err != nil {
			return directory.Client{}, fmt.Errorf("store: client: %w", err)
		}
		c := directory.Client{ClientID: clientID}
		err = st.QueryRowContext(ctx, clientID).Scan(&c.SoftwareStatementID, &c.OrganisationID, &c.Status, &c.OrganisationStatus)
		if errors.Is(err, sql.ErrNoRows) {
			return c, ErrNotFound
		}
		if err != nil {
			return c, fmt.Errorf("store: client: %w", err)
		}
		return c, nil
	})
}

// clientKey is a key that may sign an application's client assertions,
// with the end of its certificate's validity (zero for key material).
type clientKey struct {
	key      clienttoken.Key
	notAfter time.Time
}

// ClientKeys are the public keys that sign the client assertions of
// application appID of orgID at now: its Active key material with Use sig
// bound to it, and the Active signing certificates the directory's CA
// issued it, within their validity.
func (d *DB) ClientKeys(ctx context.Context, orgID, appID string, now time.Time) ([]clienttoken.Key, error) {
	all, err := cached(ctx, d, &d.clientKeys, [2]string{orgID, appID}, func() ([]clientKey, error) {
		st, err := d.prepared(ctx, `SELECT kid, public_jwk, '' FROM key_material
				WHERE organisation_id = ? AND software_statement_id = ? AND use = 'sig' AND status = 'Active'
			UNION ALL SELECT kid, public_jwk, not_after FROM organisation_certificates
				WHERE organisation_id = ? AND software_statement_id = ? AND certificate_type = 'signing' AND status = 'Active'`)
		if err != nil {
			return nil, fmt.Errorf("store: client keys: %w", err)
		}
		rows, err := st.QueryContext(ctx, orgID, appID, orgID, appID)
		if err != nil {
			return nil, fmt.Errorf("store: client keys: %w", err)
		}
		defer rows.Close()
		var out []clientKey
		for rows.Next() {
			var k clientKey
			var jwk, notAfter string
			if err := rows.Scan(&k.key.Kid, &jwk, &notAfter); err != nil {
				return nil, fmt.Errorf("store: client keys: %w", err)
			}
			k.key.JWK = json.RawMessage(jwk)
			if notAfter != "" {
				k.notAfter = parseStamp(notAfter)
			}
			out = append(out, k)
		}
		return out, rows.Err()
	})
	if err != nil {
		return nil, err
	}
	keys := make([]clienttoken.Key, 0, len(all))
	for _, k := range all {
		if k.notAfter.IsZero() || now.Before(k.notAfter) {
			keys = append(keys, k.key)
		}
	}
	return keys, nil
}

// assertionPurgeEvery is how many client assertions pass between two
// purges of the expired ones.
const assertionPurgeEvery = 1000

// UseClientAssertion records the key of a client assertion (its ClientId
// and jti) until exp, in the database every instance shares, and reports
// whether it was not already recorded and live: false is a replay. One
// statement, as UseProof.
func (d *DB) UseClientAssertion(ctx context.Context, key string, exp time.Time) (bool, error) {
	now := d.now().UnixMilli()
	if d.assertions.Add(1)%assertionPurgeEvery == 0 {
		_, _ = d.db.ExecContext(ctx, `DELETE FROM client_assertions WHERE expires_at <= ?`, now)
	}
	st, err := d.prepared(ctx, `INSERT INTO client_assertions(assertion_key, expires_at) VALUES (?, ?)
		ON CONFLICT (assertion_key) DO UPDATE SET expires_at = excluded.expires_at WHERE client_assertions.expires_at <= ?`)
	if err != nil {
		return false, fmt.Errorf("store: client assertion: %w", err)
	}
	res, err := st.ExecContext(ctx, key, exp.UnixMilli(), now)
	if err != nil {
		return false, fmt.Errorf("store: client assertion: %w", busy(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: client assertion: %w", err)
	}
	return n == 1, nil
}
