package store

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store/storetest"
)

// TestReadCacheSeesEveryWrite: the signing kid and the SSA subject are
// kept between SSAs, but a write through this store is seen by the next
// read, an audit-only commit keeps them, and a write by another process on
// the same database is seen at once on PostgreSQL (Sync) and within
// ReadCacheAge on SQLite.
func TestReadCacheSeesEveryWrite(t *testing.T) {
	ctx := context.Background()
	path := storetest.Path(t)
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	tick := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	d, err := Open(ctx, path, now)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.AddSigningKey(ctx, Audit{Actor: "a@example.com"}, SigningKey{Kid: "kid", Alg: "PS256", PublicJWK: `{}`, PrivateEnc: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, path, now)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	a := Audit{Actor: "admin@example.com"}
	o, err := d.CreateOrganisation(ctx, a, Organisation{OrganisationName: "Acme", RegistrationNumber: "1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	app, err := d.CreateSoftwareStatement(ctx, a, SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: "One", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := func(db *DB) string {
		t.Helper()
		_, s, err := db.SSASubject(ctx, o.OrganisationID, app.SoftwareStatementID)
		if err != nil {
			t.Fatal(err)
		}
		return s.ClientName
	}
	rename := func(db *DB, to string) {
		t.Helper()
		cur := app
		cur.ClientName = to
		if _, err := db.UpdateSoftwareStatement(ctx, a, cur, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := name(d); got != "One" {
		t.Fatalf("subject %q, want One", got)
	}
	rename(d, "Two")
	if got := name(d); got != "Two" {
		t.Fatalf("after a write through this store: %q, want Two", got)
	}
	if err := d.RecordSSA(ctx, a, o.OrganisationID, app.SoftwareStatementID, "PS256", "kid", "jti"); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.ssaSubjects.m[[2]string{o.OrganisationID, app.SoftwareStatementID}]; !ok {
		t.Fatal("an audit-only commit emptied the cache")
	}
	rename(other, "Three")
	if got := name(d); storetest.Postgres() && got != "Three" {
		t.Fatalf("after another instance's write on PostgreSQL: %q, want Three at once", got)
	} else if !storetest.Postgres() && got != "Two" {
		t.Fatalf("after another process's write on SQLite, within ReadCacheAge: %q, want the kept Two", got)
	}
	tick(ReadCacheAge)
	if got := name(d); got != "Three" {
		t.Fatalf("after ReadCacheAge: %q, want Three", got)
	}

	kid := func(db *DB) string {
		t.Helper()
		k, err := db.CurrentSigningKid(ctx, "ML-DSA-65")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	add := func(db *DB, k string) {
		t.Helper()
		tick(time.Millisecond)
		if err := db.AddSigningKey(ctx, a, SigningKey{Kid: k, Alg: "ML-DSA-65", PublicJWK: "{}", PrivateEnc: []byte{1}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.CurrentSigningKid(ctx, "ML-DSA-65"); err != ErrNotFound {
		t.Fatalf("no key yet: %v, want ErrNotFound", err)
	}
	add(d, "k1")
	if got := kid(d); got != "k1" {
		t.Fatalf("kid %q, want k1", got)
	}
	add(d, "k2")
	if got := kid(d); got != "k2" {
		t.Fatalf("after a rotation through this store: %q, want k2", got)
	}
	add(other, "k3")
	if got := kid(d); storetest.Postgres() && got != "k3" || !storetest.Postgres() && got != "k2" {
		t.Fatalf("after another process's rotation: %q", got)
	}
	tick(ReadCacheAge)
	if got := kid(d); got != "k3" {
		t.Fatalf("after ReadCacheAge: %q, want k3", got)
	}
}

// TestSSASubjectCopiesOut: a caller that changes a list of the answer
// does not change the kept one.
func TestSSASubjectCopiesOut(t *testing.T) {
	ctx := context.Background()
	d := openInternal(t)
	a := Audit{Actor: "admin@example.com"}
	o, err := d.CreateOrganisation(ctx, a, Organisation{OrganisationName: "Acme", RegistrationNumber: "1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	app, err := d.CreateSoftwareStatement(ctx, a, SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: "One", Status: "Active", RedirectURI: []string{"https://one.example/cb"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, s, err := d.SSASubject(ctx, o.OrganisationID, app.SoftwareStatementID)
	if err != nil {
		t.Fatal(err)
	}
	s.RedirectURI[0] = "https://changed.example/cb"
	if _, again, _ := d.SSASubject(ctx, o.OrganisationID, app.SoftwareStatementID); again.RedirectURI[0] != "https://one.example/cb" {
		t.Fatalf("the kept answer changed: %v", again.RedirectURI)
	}
}
