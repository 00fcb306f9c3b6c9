package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/trustframe/trustframe/directory"
)

// The types of an identity provider binding (docs/design.md §5, §16) are
// the application layer's.
type (
	IdentityProvider = directory.IdentityProvider
	GroupRole        = directory.GroupRole
)

const idpCols = `name, issuer, jwks_uri, audience, email_claim, description, status, client_id, client_secret, email_domains, groups_claim, group_roles, created_on, updated_on`

func scanIdP(row rowScanner) (IdentityProvider, error) {
	var p IdentityProvider
	var c, u, domains, groupRoles string
	err := row.Scan(&p.Name, &p.Issuer, &p.JwksURI, &p.Audience, &p.EmailClaim, &p.Description, &p.Status, &p.ClientID, &p.SealedSecret, &domains,
		&p.GroupsClaim, &groupRoles, &c, &u)
	p.EmailDomains = strings.Split(domains, ",")
	p.GroupRoles = []GroupRole{}
	if err == nil {
		err = json.Unmarshal([]byte(groupRoles), &p.GroupRoles)
	}
	p.CreatedOn, p.UpdatedOn = parseStamp(c), parseStamp(u)
	p.HasClientSecret = len(p.SealedSecret) > 0
	return p, err
}

// IdentityProvidersVersion changes whenever an identity provider is
// created or updated through this process, so that token verifiers built
// from the list can be dropped at once.
func (d *DB) IdentityProvidersVersion() int64 { return d.idpVersion.Load() }

// ListIdentityProviders returns every identity provider by name.
func (d *DB) ListIdentityProviders(ctx context.Context) ([]IdentityProvider, error) {
	return queryList(ctx, d.db, scanIdP, `SELECT `+idpCols+` FROM identity_providers ORDER BY name`)
}

// GetIdentityProvider returns one identity provider or ErrNotFound.
func (d *DB) GetIdentityProvider(ctx context.Context, name string) (IdentityProvider, error) {
	return queryOne(ctx, d.db, scanIdP, `SELECT `+idpCols+` FROM identity_providers WHERE name = ?`, name)
}

// issuerTaken refuses a second identity provider with the same issuer.
func issuerTaken(ctx context.Context, tx *sql.Tx, p IdentityProvider) error {
	var other string
	err := tx.QueryRowContext(ctx, `SELECT name FROM identity_providers WHERE issuer = ? AND name <> ?`, p.Issuer, p.Name).Scan(&other)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return &FieldError{Field: "Issuer", Message: "Identity provider " + other + " already has this issuer."}
}

// CreateIdentityProvider adds an identity provider. problems are what is
// already known to be wrong with its fields: an issuer another provider
// has is added to them, and when any remains nothing is written. Then a
// taken name is a conflict.
func (d *DB) CreateIdentityProvider(ctx context.Context, a Audit, p IdentityProvider, problems directory.Fields) (IdentityProvider, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		if err := problems.Take(issuerTaken(ctx, tx, p)); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM identity_providers WHERE name = ?`, p.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: "an identity provider named " + p.Name + " already exists"}
		}
		now := d.stamp()
		p.HasClientSecret = len(p.SealedSecret) > 0
		if _, err := tx.ExecContext(ctx, `INSERT INTO identity_providers(`+idpCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			p.Name, p.Issuer, p.JwksURI, p.Audience, p.EmailClaim, p.Description, p.Status, p.ClientID, nilIfEmpty(p.SealedSecret), strings.Join(p.EmailDomains, ","),
			groupsClaim(p), groupRolesJSON(p), now, now); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "IdentityProvider", SubjectID: p.Name,
			Summary: created(p)})
	})
	if err != nil {
		return IdentityProvider{}, err
	}
	d.idpVersion.Add(1)
	return d.GetIdentityProvider(ctx, p.Name)
}

// UpdateIdentityProvider replaces the writable fields of an identity
// provider. problems are as for CreateIdentityProvider; check runs on the
// current one once the fields pass (If-Match). What its groups made and
// the new settings no longer back is revoked in the same transaction
// (revokeUnbacked).
func (d *DB) UpdateIdentityProvider(ctx context.Context, a Audit, p IdentityProvider, problems directory.Fields, check directory.Check[IdentityProvider]) (IdentityProvider, error) {
	defer d.roles.invalidate() // after the commit: a group's grant may have ended
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		cur, err := queryOne(ctx, tx, scanIdP, `SELECT `+idpCols+` FROM identity_providers WHERE name = ?`, p.Name)
		if err != nil {
			return err
		}
		if err := problems.Take(issuerTaken(ctx, tx, p)); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if p.SealedSecret == nil {
			p.SealedSecret = cur.SealedSecret
		}
		if p.Status == "" {
			p.Status = cur.Status // left out: kept (docs/design.md §4)
		}
		p.HasClientSecret = len(p.SealedSecret) > 0
		if _, err := tx.ExecContext(ctx, `UPDATE identity_providers SET issuer=?, jwks_uri=?, audience=?, email_claim=?, description=?, status=?, client_id=?, client_secret=?, email_domains=?, groups_claim=?, group_roles=?, updated_on=? WHERE name=?`,
			p.Issuer, p.JwksURI, p.Audience, p.EmailClaim, p.Description, p.Status, p.ClientID, nilIfEmpty(p.SealedSecret), strings.Join(p.EmailDomains, ","),
			groupsClaim(p), groupRolesJSON(p), d.stamp(), p.Name); err != nil {
			return err
		}
		// Compared as stored (defaults applied); the sealed secret is in
		// no JSON, so a new one is named here.
		next, err := queryOne(ctx, tx, scanIdP, `SELECT `+idpCols+` FROM identity_providers WHERE name = ?`, p.Name)
		if err != nil {
			return err
		}
		summary := diff(cur, next)
		if !bytes.Equal(cur.SealedSecret, next.SealedSecret) && next.HasClientSecret {
			summary = strings.TrimPrefix(summary+"; client secret replaced", "no change; ")
		}
		if err := d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "update", SubjectType: "IdentityProvider", SubjectID: p.Name, Summary: summary}); err != nil {
			return err
		}
		return d.revokeUnbacked(ctx, tx, a, next)
	})
	if err != nil {
		return IdentityProvider{}, err
	}
	d.idpVersion.Add(1)
	return d.GetIdentityProvider(ctx, p.Name)
}

func groupsClaim(p IdentityProvider) string {
	if p.GroupsClaim == "" {
		return "groups"
	}
	return p.GroupsClaim
}

func groupRolesJSON(p IdentityProvider) string {
	if len(p.GroupRoles) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(p.GroupRoles)
	return string(b)
}

func nilIfEmpty(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// DomainAllowed reports whether email's domain is in domains ("*": any).
func DomainAllowed(domains []string, email string) bool {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return false
	}
	// ASCII case only: EqualFold would take the Kelvin sign for k.
	dom := asciiLower(email[at+1:])
	for _, d := range domains {
		if d == "*" || asciiLower(d) == dom {
			return true
		}
	}
	return false
}
