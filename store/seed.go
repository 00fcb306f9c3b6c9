package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"time"
)

var seedWords = []string{"Acme", "Northern", "Atlantic", "Crown", "Harbour", "Summit", "Meridian", "Pioneer", "Granite", "Silver",
	"Orchard", "Beacon", "Heritage", "Liberty", "Unity", "Sterling", "Evergreen", "Cobalt", "Falcon", "Horizon"}
var seedKinds = []string{"Bank", "Building Society", "Payments", "Credit Union", "Finance", "Savings", "Capital", "Trust", "Wallet", "Pay"}

// SeedDirectory loads n synthetic organisations, each with two contacts,
// an authorisation server and an application, for benchmarks and demos.
// It writes in batches and records one audit entry for the whole load.
func (d *DB) SeedDirectory(ctx context.Context, a Audit, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
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
			for i := start; i < end; i++ {
				id := NewID()
				name := fmt.Sprintf("%s %s %s %05d", seedWords[rng.IntN(len(seedWords))], seedWords[rng.IntN(len(seedWords))], seedKinds[rng.IntN(len(seedKinds))], i)
				ts := base.Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano)
				status := statuses[rng.IntN(len(statuses))]
				if _, err := orgStmt.ExecContext(ctx, id, name, name+" Ltd", fmt.Sprintf("RN%08d", rng.IntN(100_000_000)),
					countries[rng.IntN(len(countries))], fmt.Sprintf("%d High Street", 1+rng.IntN(300)), "", "London", "EC1A 1BB", status, ts, ts); err != nil {
					return err
				}
				for c := 0; c < 2; c++ {
					if _, err := cStmt.ExecContext(ctx, NewID(), id, contactTypes[rng.IntN(len(contactTypes))], "Alex", fmt.Sprintf("Contact%d", c),
						"", fmt.Sprintf("c%d-%d@example.org", c, i), "+44 20 7946 0000", ts, ts); err != nil {
						return err
					}
				}
				if _, err := sStmt.ExecContext(ctx, NewID(), id, "Main", "", fmt.Sprintf("https://as%d.example.org", i),
					fmt.Sprintf("https://as%d.example.org/.well-known/openid-configuration", i), "Active", ts, ts); err != nil {
					return err
				}
				appID := NewID()
				if _, err := aStmt.ExecContext(ctx, appID, id, appID, "App "+name, "", "1", `["https://app.example.org/cb"]`, `["AISP"]`, "",
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
