package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// TestClientAssertionUsedOnceAcrossInstances: the jti of a client
// assertion accepted by one instance is a replay on another instance of
// the same database until the assertion expires (docs/design.md §20).
func TestClientAssertionUsedOnceAcrossInstances(t *testing.T) {
	path := storetest.Path(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var dbs [2]*store.DB
	for i := range dbs {
		db, err := store.Open(context.Background(), path, clock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	ctx := context.Background()
	exp := now.Add(5 * time.Minute)
	use := func(db *store.DB, key string, exp time.Time) bool {
		t.Helper()
		fresh, err := db.UseClientAssertion(ctx, key, exp)
		if err != nil {
			t.Fatal(err)
		}
		return fresh
	}
	if !use(dbs[0], "client\x1fjti-1", exp) {
		t.Fatal("a new assertion was refused")
	}
	if use(dbs[1], "client\x1fjti-1", exp) || use(dbs[0], "client\x1fjti-1", exp) {
		t.Fatal("a replayed assertion was accepted")
	}
	if !use(dbs[1], "other-client\x1fjti-1", exp) {
		t.Fatal("the same jti of another client was refused")
	}
	now = exp.Add(time.Second)
	if !use(dbs[1], "client\x1fjti-1", now.Add(time.Minute)) {
		t.Fatal("an expired assertion's key could not be recorded again")
	}
}

// TestClientOfSeesAStatusChangeAtOnce: the application's status read for
// its tokens is cached, and a change voids it at once.
func TestClientOfSeesAStatusChangeAtOnce(t *testing.T) {
	db, err := store.Open(context.Background(), storetest.Path(t), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	a := store.Audit{Actor: "admin@example.com"}
	o, err := db.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: "Acme", RegistrationNumber: "R1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateSoftwareStatement(ctx, a, store.SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: "App", Version: "1", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.ClientOf(ctx, app.ClientID)
	if err != nil || !c.Active() || c.OrganisationID != o.OrganisationID || c.SoftwareStatementID != app.SoftwareStatementID {
		t.Fatalf("ClientOf: %+v %v", c, err)
	}
	app.Status = "Suspended"
	if _, err := db.UpdateSoftwareStatement(ctx, a, app, nil, nil); err != nil {
		t.Fatal(err)
	}
	if c, err := db.ClientOf(ctx, app.ClientID); err != nil || c.Active() || c.Status != "Suspended" {
		t.Fatalf("after the suspension: %+v %v", c, err)
	}
	if _, err := db.ClientOf(ctx, "nobody"); err != directory.ErrNotFound {
		t.Fatalf("an unknown client: %v", err)
	}
}
