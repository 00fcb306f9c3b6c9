package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

var seedWords = []string{"Acme", "Northern", "Atlantic", "Crown", "Harbour", "Summit", "Meridian", "Pioneer", "Granite", "Silver",
	"Orchard", "Beacon", "Heritage", "Liberty", "Unity", "Sterling", "Evergreen", "Cobalt", "Falcon", "Horizon"}
var seedKinds = []string{"Bank", "Building Society", "Payments", "Credit Union", "Finance", "Savings", "Capital", "Trust", "Wallet", "Pay"}

// The seeded authorisation domain: open-finance roles authorised by three
// regulators, and an Exclusive Directory role for sandbox-only members.
const seedDomain = "Open Finance"

var seedAuthorities = []struct{ id, name, code, country string }{
	{"5eed0000-0000-4000-8000-000000000001", "Financial Conduct Authority", "FCA", "GB"},
	{"5eed0000-0000-4000-8000-000000000002", "Banco Central do Brasil", "BCB", "BR"},
	{"5eed0000-0000-4000-8000-000000000003", "European Banking Authority", "EBA", "EU"},
}

// seedReference creates the seeded domain, its roles and its authorities
// unless they exist, and returns the ids of the authorities to claim with,
// in the order of seedAuthorities. An authority the operator made already
// with a seeded authority's code (or, failing that, its name) is used in its
// place (codes and names are unique) and comes to cover the seeded domain
// too.
func (d *DB) seedReference(ctx context.Context) ([]string, error) {
	ids := make([]string, len(seedAuthorities))
	err := d.tx(ctx, func(tx *sql.Tx) error {
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO authorisation_domains(name, description, status, created_on, updated_on) VALUES (?,?,?,?,?)`,
			seedDomain, "Account information, payment initiation and funds confirmation", "Active", now, now); err != nil {
			return err
		}
		for _, r := range []struct {
			name, typ, desc string
			exclusive       bool
		}{
			{"ASPSP", "Federation", "Account servicing payment service provider", false},
			{"AISP", "Federation", "Account information service provider", false},
			{"PISP", "Federation", "Payment initiation service provider", false},
			{"CBPII", "Federation", "Card-based payment instrument issuer", false},
			{"SANDBOX", "Directory", "Sandbox-only member: no production role", true},
		} {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO authorisation_domain_roles(`+roleCols+`, created_on, updated_on) VALUES (?,?,?,?,?,?,?,?)`,
				r.name, seedDomain, r.typ, r.exclusive, r.desc, "Active", now, now); err != nil {
				return err
			}
		}
		for i, au := range seedAuthorities {
			var id string
			err := tx.QueryRowContext(ctx, `SELECT authority_id FROM authorities WHERE authority_id = ? OR code = ? OR name = ?
				ORDER BY CASE WHEN authority_id = ? THEN 0 WHEN code = ? THEN 1 ELSE 2 END LIMIT 1`,
				au.id, au.code, au.name, au.id, au.code).Scan(&id)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				id = au.id
				if _, err := tx.ExecContext(ctx, `INSERT INTO authorities(`+authorityCols+`, created_on, updated_on) VALUES (?,?,?,?,?,?,?)`,
					au.id, au.name, au.code, au.country, "Active", now, now); err != nil {
					return err
				}
			case err != nil:
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO authority_domains(authority_id, domain) VALUES (?, ?)`, id, seedDomain); err != nil {
				return err
			}
			ids[i] = id
		}
		return nil
	})
	return ids, err
}

// seedRoles picks an organisation's roles: a few are sandbox-only (the
// Exclusive role alone); the others hold one to four open-finance roles.
func seedRoles(rng *rand.Rand) []string {
	if rng.IntN(100) < 3 {
		return []string{"SANDBOX"}
	}
	var roles []string
	for _, r := range []struct {
		name string
		pct  int
	}{{"ASPSP", 35}, {"AISP", 60}, {"PISP", 45}, {"CBPII", 10}} {
		if rng.IntN(100) < r.pct {
			roles = append(roles, r.name)
		}
	}
	if len(roles) == 0 {
		roles = []string{"AISP"}
	}
	return roles
}

// SeedDirectory loads n synthetic organisations, each with two contacts,
// an authorisation server, authority claims on the roles of the seeded
// domain and an application carrying one of those roles, for benchmarks
// and demos. It writes in batches and records one audit entry for the
// whole load.
func (d *DB) SeedDirectory(ctx context.Context, a Audit, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// Claims draw from their own generator, so the rest of the data is
	// what the same seed always gave.
	crng := rand.New(rand.NewPCG(seed^0x5eed, seed))
	authIDs, err := d.seedReference(ctx)
	if err != nil {
		return fmt.Errorf("store: seed: %w", err)
	}
	// Numbers (in names, issuers, e-mails) follow those of the organisations
	// already there, so that a second seed adds to the first rather than
	// repeating its unique issuers.
	var before int
	if err := d.tx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisations`).Scan(&before)
	}); err != nil {
		return fmt.Errorf("store: seed: %w", err)
	}
	statuses := []string{"Active", "Active", "Active", "Pending", "Withdrawn"}
	countries := []string{"GB", "BR", "AU", "NZ", "DE", "FR", "IE", "NL", "ES", "US"}
	contactTypes := []string{"Business", "Technical", "Billing", "Incident", "Security"}
	base := d.now().UTC().Add(-time.Duration(n) * time.Minute)
	const batch = 2000
	for start := 0; start < n; start += batch {
		end := min(start+batch, n)
		err := d.tx(ctx, func(tx *sql.Tx) error {
			orgStmt, err := tx.PrepareContext(ctx, `INSERT INTO organisations(`+orgCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`)
			if err != nil {
				return err
			}
			defer orgStmt.Close()
			cStmt, err := tx.PrepareContext(ctx, `INSERT INTO contacts(`+contactCols+`) VALUES (?,?,?,?,?,?,?,?,?,?)`)
			if err != nil {
				return err
			}
			defer cStmt.Close()
			sStmt, err := tx.PrepareContext(ctx, `INSERT INTO authorisation_servers(`+asCols+`) VALUES (?,?,?,?,?,?,?,?,?)`)
			if err != nil {
				return err
			}
			defer sStmt.Close()
			aStmt, err := tx.PrepareContext(ctx, `INSERT INTO software_statements(`+ssCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
			if err != nil {
				return err
			}
			defer aStmt.Close()
			clStmt, err := tx.PrepareContext(ctx, `INSERT INTO organisation_authority_claims(claim_id, organisation_id, authority_id, domain, role, registration_id, status, created_on, updated_on)
				VALUES (?,?,?,?,?,?,?,?,?)`)
			if err != nil {
				return err
			}
			defer clStmt.Close()
			for i := start; i < end; i++ {
				id := NewID()
				k := before + i // this organisation's number
				name := fmt.Sprintf("%s %s %s %05d", seedWords[rng.IntN(len(seedWords))], seedWords[rng.IntN(len(seedWords))], seedKinds[rng.IntN(len(seedKinds))], k)
				ts := base.Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano)
				status := statuses[rng.IntN(len(statuses))]
				regNo := fmt.Sprintf("RN%08d", rng.IntN(100_000_000))
				country := countries[rng.IntN(len(countries))]
				street := fmt.Sprintf("%d High Street", 1+rng.IntN(300))
				if _, err := orgStmt.ExecContext(ctx, id, name, name+" Ltd", regNo, country, street, "", "London", "EC1A 1BB", status, ts, ts); err != nil {
					return err
				}
				a := 2
				switch country {
				case "GB":
					a = 0
				case "BR":
					a = 1
				}
				roles := seedRoles(crng)
				for _, role := range roles {
					if _, err := clStmt.ExecContext(ctx, NewID(), id, authIDs[a], seedDomain, role, fmt.Sprintf("%s-%06d", seedAuthorities[a].code, k), "Active", ts, ts); err != nil {
						return err
					}
				}
				appRoles := "[]"
				if roles[0] != "SANDBOX" {
					appRoles = jsonList(roles[:1])
				}
				for c := 0; c < 2; c++ {
					if _, err := cStmt.ExecContext(ctx, NewID(), id, contactTypes[rng.IntN(len(contactTypes))], "Alex", fmt.Sprintf("Contact%d", c),
						"", fmt.Sprintf("c%d-%d@example.org", c, k), "+44 20 7946 0000", ts, ts); err != nil {
						return err
					}
				}
				if _, err := sStmt.ExecContext(ctx, NewID(), id, "Main", "", fmt.Sprintf("https://as%d.example.org", k),
					fmt.Sprintf("https://as%d.example.org/.well-known/openid-configuration", k), "Active", ts, ts); err != nil {
					return err
				}
				appID := NewID()
				if _, err := aStmt.ExecContext(ctx, appID, id, appID, "App "+name, "", "1", `["https://app.example.org/cb"]`, appRoles, "",
					"Active", "", "", "[]", ts, ts); err != nil {
					return err
				}
			}
			return nil
		})
		d.lists.reset()
		if err != nil {
			return fmt.Errorf("store: seed: %w", err)
		}
	}
	return d.RecordEvent(ctx, AuditRecord{Actor: a.Actor, Action: "seed", SubjectType: "Organisation", SubjectID: "*",
		Summary: fmt.Sprintf("seeded %d organisations", n)})
}
