package store_test

import (
	"context"
	"testing"

	"github.com/trustframe/trustframe/store"
)

// SearchNames finds by the start of any word, case and accents folded,
// on both engines, kept in step by the indexes' triggers (SQLite) or
// generated columns (PostgreSQL), and keeps to within.
func TestSearchNames(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	a := store.Audit{Actor: "admin@example.com"}
	acme, err := db.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: "Acme Bank", RegistrationNumber: "R1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	zeta, err := db.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: "Zeta", RegistrationNumber: "R2", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateSoftwareStatement(ctx, a, store.SoftwareStatement{OrganisationID: acme.OrganisationID, ClientName: "Acme Wallet", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContact(ctx, a, store.Contact{OrganisationID: zeta.OrganisationID, ContactType: "Technical", FirstName: "José", LastName: "Müller", EmailAddress: "jm@zeta.example"}, nil); err != nil {
		t.Fatal(err)
	}
	kinds := func(q string, within []string) map[string]int {
		t.Helper()
		found, err := db.SearchNames(ctx, q, within, 10)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, f := range found {
			out[f.What]++
		}
		return out
	}
	if k := kinds("WALL", nil); k[store.FoundApplication] != 1 || len(k) != 1 {
		t.Errorf("wall: %v", k)
	}
	if k := kinds("acme", nil); k[store.FoundApplication] != 1 || k[store.FoundOrganisation] != 1 {
		t.Errorf("acme: %v", k)
	}
	if k := kinds("muller jose", nil); k[store.FoundContact] != 1 {
		t.Errorf("muller jose: %v", k)
	}
	if k := kinds("acme", []string{zeta.OrganisationID}); len(k) != 0 {
		t.Errorf("within zeta: %v", k)
	}
	app.ClientName = "Payments"
	if _, err := db.UpdateSoftwareStatement(ctx, a, app, nil, nil); err != nil {
		t.Fatal(err)
	}
	if k := kinds("wallet", nil); len(k) != 0 {
		t.Errorf("renamed: %v", k)
	}
	if k := kinds("pay", nil); k[store.FoundApplication] != 1 {
		t.Errorf("pay: %v", k)
	}
}
