package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// TestProofUsedOnceAcrossInstances: a DPoP proof recorded by one instance
// is a replay on another instance of the same database until it expires;
// an expired key may be recorded again (either engine).
func TestProofUsedOnceAcrossInstances(t *testing.T) {
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
	exp := now.Add(65 * time.Second)
	use := func(db *store.DB, key string, exp time.Time) bool {
		t.Helper()
		fresh, err := db.UseProof(ctx, key, exp)
		if err != nil {
			t.Fatal(err)
		}
		return fresh
	}
	if !use(dbs[0], "thumb|jti-1", exp) {
		t.Fatal("a new proof was refused")
	}
	if use(dbs[1], "thumb|jti-1", exp) || use(dbs[0], "thumb|jti-1", exp) {
		t.Fatal("a replayed proof was accepted")
	}
	if !use(dbs[1], "thumb|jti-2", exp) {
		t.Fatal("another proof was refused")
	}
	now = exp.Add(time.Second) // clock moves past the window
	if !use(dbs[1], "thumb|jti-1", now.Add(65*time.Second)) {
		t.Fatal("an expired key could not be recorded again")
	}
	if use(dbs[0], "thumb|jti-1", now.Add(65*time.Second)) {
		t.Fatal("the key recorded again was accepted twice")
	}
}

// TestProofOnAClosedDatabaseIsAnError: a database that cannot record the
// proof says so (an error), which is not the same as a replay (false).
func TestProofOnAClosedDatabaseIsAnError(t *testing.T) {
	db, err := store.Open(context.Background(), storetest.Path(t), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if fresh, err := db.UseProof(context.Background(), "thumb|jti", time.Now().Add(time.Minute)); err == nil || fresh {
		t.Fatalf("closed database: fresh %v, err %v; want an error", fresh, err)
	}
}
