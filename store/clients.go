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

// UsedAssertion is a client assertion used at the token endpoint: its key
// (ClientId and jti) and until when it must be remembered.
type UsedAssertion struct {
	Key     string
	Expires time.Time
}

// KeepClientAssertions writes used client assertions down for a single
// instance, which answers for them from memory (docs/design.md §20), so
// that a restart still knows them (LiveClientAssertions): one
// transaction, the expired ones purged.
func (d *DB) KeepClientAssertions(ctx context.Context, used []UsedAssertion) error {
	now := d.now().UnixMilli()
	err := d.commit(ctx, false, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM client_assertions WHERE expires_at <= ?`, now); err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO client_assertions(assertion_key, expires_at) VALUES (?, ?)
			ON CONFLICT (assertion_key) DO UPDATE SET expires_at = excluded.expires_at`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, u := range used {
			if _, err := st.ExecContext(ctx, u.Key, u.Expires.UnixMilli()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: client assertions: %w", err)
	}
	return nil
}

// LiveClientAssertions are the client assertions written down that have
// not expired yet.
func (d *DB) LiveClientAssertions(ctx context.Context) ([]UsedAssertion, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT assertion_key, expires_at FROM client_assertions WHERE expires_at > ?`, d.now().UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("store: client assertions: %w", busy(err))
	}
	defer rows.Close()
	var live []UsedAssertion
	for rows.Next() {
		var u UsedAssertion
		var ms int64
		if err := rows.Scan(&u.Key, &ms); err != nil {
			return nil, fmt.Errorf("store: client assertions: %w", err)
		}
		u.Expires = time.UnixMilli(ms)
		live = append(live, u)
	}
	return live, rows.Err()
}
