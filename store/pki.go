package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// The directory's certificate authority (docs/design.md §18): one row of
// pki_ca holds its certificate, its sealed key and the CRL in force with
// its number. Every write of it runs under the write lock every write
// transaction takes (store.go), so the CRL numbers of all instances on one
// PostgreSQL database are one sequence.

// CAState is the stored CA.
type CAState = directory.CAState

// SetCRLSigner gives the store the CA's CRL signer (nil: the CA is off).
// A revocation of a certificate the CA issued then writes the new CRL in
// its own transaction.
func (d *DB) SetCRLSigner(sign directory.CRLSigner) {
	if sign == nil {
		d.crlSigner.Store(nil)
		return
	}
	d.crlSigner.Store(&sign)
}

const caCols = `cert_der, sealed_key, alg, created_at, crl_number, crl_der, crl_at`

func scanCA(row rowScanner) (CAState, error) {
	var st CAState
	var created string
	var at sql.NullString
	err := row.Scan(&st.CertDER, &st.SealedKey, &st.Alg, &created, &st.CRLNumber, &st.CRLDER, &at)
	st.CreatedAt = parseStamp(created)
	if at.Valid {
		st.CRLAt = parseStamp(at.String)
	}
	if len(st.CRLDER) == 0 {
		st.CRLDER = nil
	}
	return st, err
}

// CAState is the stored CA; ErrNotFound before it is made.
func (d *DB) CAState(ctx context.Context) (CAState, error) {
	return queryOne(ctx, d.db, scanCA, `SELECT `+caCols+` FROM pki_ca WHERE id = 1`)
}

// KeepCA stores a new CA unless one is stored, and returns the one stored:
// the first instance to start with --pki makes the CA, every other gets
// it back. Insert-if-absent and the read are one transaction.
func (d *DB) KeepCA(ctx context.Context, certDER, sealedKey []byte, alg string) (CAState, error) {
	var st CAState
	err := d.commit(ctx, false, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO pki_ca(id, cert_der, sealed_key, alg, created_at) VALUES (1, ?, ?, ?, ?)`,
			certDER, sealedKey, alg, d.stamp()); err != nil {
			return err
		}
		var err error
		st, err = queryOne(ctx, tx, scanCA, `SELECT `+caCols+` FROM pki_ca WHERE id = 1`)
		return err
	})
	if err != nil {
		return CAState{}, fmt.Errorf("store: the certificate authority: %w", err)
	}
	return st, nil
}

// RegenerateCRL makes a new CRL when none is stored, when the one in force
// was made before staleBefore (always with a zero staleBefore), or when a
// certificate was revoked after it (a revocation made while the CA was
// off); it returns the CA with the CRL in force. Of instances asking at
// once one makes it, the others find it made.
func (d *DB) RegenerateCRL(ctx context.Context, staleBefore time.Time) (CAState, error) {
	if d.crlSigner.Load() == nil {
		return CAState{}, errors.New("store: the certificate authority's CRL signer is not set")
	}
	var st CAState
	err := d.commit(ctx, false, func(tx *sql.Tx) error {
		cur, err := queryOne(ctx, tx, scanCA, `SELECT `+caCols+` FROM pki_ca WHERE id = 1`)
		if err != nil {
			return err
		}
		fresh := cur.CRLDER != nil && (staleBefore.IsZero() || !cur.CRLAt.Before(staleBefore))
		if fresh && !staleBefore.IsZero() {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisation_certificates WHERE issued_by_ca = 1 AND status = 'Revoked' AND revoked_on > ?`,
				cur.CRLAt.UTC().Format(time.RFC3339Nano)).Scan(&n); err != nil {
				return err
			}
			fresh = n == 0
		}
		if fresh && !staleBefore.IsZero() {
			st = cur
			return errUnchanged
		}
		if err := d.regenerateCRL(ctx, tx); err != nil {
			return err
		}
		st, err = queryOne(ctx, tx, scanCA, `SELECT `+caCols+` FROM pki_ca WHERE id = 1`)
		return err
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	if err != nil {
		return CAState{}, fmt.Errorf("store: the CRL: %w", err)
	}
	return st, nil
}

// regenerateCRL writes the next CRL, listing every certificate the CA
// issued that is revoked and not yet expired (RFC 5280 §3.3 lets an entry
// go once the certificate has expired; OCSP still answers revoked), in tx;
// nothing without a CA or a signer.
func (d *DB) regenerateCRL(ctx context.Context, tx *sql.Tx) error {
	p := d.crlSigner.Load()
	if p == nil {
		return nil // the CA is off: the next start with --pki makes the CRL (RegenerateCRL)
	}
	var number int64
	err := tx.QueryRowContext(ctx, `UPDATE pki_ca SET crl_number = crl_number + 1 WHERE id = 1 RETURNING crl_number`).Scan(&number)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // no CA yet
	}
	if err != nil {
		return err
	}
	revoked, err := queryList(ctx, tx, func(r rowScanner) (directory.RevokedSerial, error) {
		var s directory.RevokedSerial
		var on sql.NullString
		err := r.Scan(&s.Serial, &on, &s.Reason)
		if on.Valid {
			s.At = parseStamp(on.String)
		}
		return s, err
	}, `SELECT serial, revoked_on, revoke_reason FROM organisation_certificates WHERE issued_by_ca = 1 AND status = 'Revoked' AND not_after > ? ORDER BY revoked_on, serial`,
		d.now().UTC().Format(fixedStamp))
	if err != nil {
		return err
	}
	now := d.now()
	der, err := (*p)(number, revoked, now)
	if err != nil {
		return fmt.Errorf("store: signing CRL %d: %w", number, err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE pki_ca SET crl_der = ?, crl_at = ? WHERE id = 1`, der, now.UTC().Format(time.RFC3339Nano))
	return err
}

// CACertStatus reads the certificate the CA issued with serial (upper-case
// hex) in one indexed read; ErrNotFound when it issued none.
func (d *DB) CACertStatus(ctx context.Context, serial string) (directory.CACertStatus, error) {
	return queryOne(ctx, d.db, func(r rowScanner) (directory.CACertStatus, error) {
		var s directory.CACertStatus
		var on sql.NullString
		err := r.Scan(&s.Status, &s.Reason, &on)
		if on.Valid {
			s.RevokedOn = parseStamp(on.String)
		}
		return s, err
	}, `SELECT status, revoke_reason, revoked_on FROM organisation_certificates WHERE issued_by_ca = 1 AND serial = ?`, serial)
}

// CACounts counts the certificates the CA issued and those revoked.
func (d *DB) CACounts(ctx context.Context) (directory.CACounts, error) {
	var c directory.CACounts
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN status = 'Revoked' THEN 1 ELSE 0 END), 0)
		FROM organisation_certificates WHERE issued_by_ca = 1`).Scan(&c.Issued, &c.Revoked)
	return c, err
}

// revokeIssuedFor revokes, in tx, every Active certificate the CA issued
// for an organisation (appID "": all of it, its applications' too) or one
// of its applications, for cessationOfOperation (docs/design.md §18), each
// with its audit record, then writes the new CRL when any was.
func (d *DB) revokeIssuedFor(ctx context.Context, tx *sql.Tx, a Audit, orgID, appID string) error {
	q, args := `SELECT kid, certificate_type FROM organisation_certificates WHERE organisation_id = ? AND issued_by_ca = 1 AND status = 'Active'`, []any{orgID}
	if appID != "" {
		q += ` AND software_statement_id = ?`
		args = append(args, appID)
	}
	type cert struct{ kid, typ string }
	certs, err := queryList(ctx, tx, func(r rowScanner) (cert, error) {
		var c cert
		err := r.Scan(&c.kid, &c.typ)
		return c, err
	}, q+` ORDER BY kid`, args...)
	if err != nil || len(certs) == 0 {
		return err
	}
	what := "the organisation was withdrawn"
	if appID != "" {
		what = "the application was withdrawn"
	}
	now := d.stamp()
	for _, c := range certs {
		if _, err := tx.ExecContext(ctx, `UPDATE organisation_certificates SET status = 'Revoked', revoke_reason = 'cessationofoperation', revoked_on = ? WHERE kid = ?`, now, c.kid); err != nil {
			return err
		}
		if err := d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "revoke", SubjectType: "OrganisationCertificate", SubjectID: c.kid,
			OrganisationID: orgID, KeyID: c.kid, CertificateType: c.typ, Summary: "Status: Active -> Revoked; reason cessationofoperation (" + what + ")"}); err != nil {
			return err
		}
	}
	return d.regenerateCRL(ctx, tx)
}
