package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store/storetest"
)

// A prepared federation key keeps the instant from which it may sign: the
// time it was prepared plus the prepublish time given then (migration
// 0031, docs/design.md §13). Every read of the key (the Next key, the
// list, the key handed to activation's check, another connection to the
// same database) gives that instant; keys made by an immediate rotation
// have none.
func TestFederationKeyMaySignFromStored(t *testing.T) {
	ctx := context.Background()
	path := storetest.Path(t)
	clock := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	d, err := Open(ctx, path, func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	a := Audit{Actor: "test"}
	if err := d.AddFederationKey(ctx, a, SigningKey{Kid: "old", Alg: "ES256", PublicJWK: "{}", PrivateEnc: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	const prepublish = 90 * time.Minute
	want := clock.Add(prepublish)
	if err := d.PrepareFederationKey(ctx, a, SigningKey{Kid: "next", Alg: "ES256", PublicJWK: "{}", PrivateEnc: []byte("y")}, prepublish); err != nil {
		t.Fatal(err)
	}
	check := func(what string, k SigningKey) {
		t.Helper()
		if k.MaySignFrom == nil || !k.MaySignFrom.Equal(want) {
			t.Errorf("%s: may sign from %v, want %s", what, k.MaySignFrom, want)
		}
	}
	nk, err := d.NextFederationKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("NextFederationKey", nk)
	keys, err := d.ListFederationKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		switch k.Kid {
		case "next":
			check("ListFederationKeys", k)
		case "old":
			if k.MaySignFrom != nil {
				t.Errorf("a key made by a rotation has may sign from %v", k.MaySignFrom)
			}
		}
	}
	// Another instance, with another clock: the same stored instant.
	other, err := Open(ctx, path, func() time.Time { return clock.Add(time.Hour) })
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ok, err := other.NextFederationKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("another instance", ok)
	var seen SigningKey
	act, err := other.ActivateFederationKey(ctx, a, func(k SigningKey) error { seen = k; return nil })
	if err != nil {
		t.Fatal(err)
	}
	check("activation's check", seen)
	if act.Kid != "next" || act.Status != "Active" {
		t.Fatalf("activated %+v", act)
	}
}

// A database made by the binary before migration 0031 (no may_sign_from
// column, 0031 not applied) that holds a Next key: opening it applies
// 0031, keeps every key as it was, and the Next key has no stored instant
// (it is reckoned as before, from its creation time: docs/decisions.md).
// A key prepared afterwards has one.
func TestFederationNextKeyPreparedBefore0031(t *testing.T) {
	ctx := context.Background()
	path := storetest.Path(t)
	d, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, q := range []string{
		`ALTER TABLE federation_keys DROP COLUMN may_sign_from`,
		`DELETE FROM schema_migrations WHERE version = 31`,
	} {
		if _, err := d.db.ExecContext(ctx, q); err != nil {
			d.Close()
			t.Fatal(q, err)
		}
	}
	// As the previous binary wrote them.
	for _, k := range []struct{ kid, status, created string }{
		{"old", "Active", created.Add(-time.Hour).Format(time.RFC3339Nano)},
		{"legacy", "Next", created.Format(time.RFC3339Nano)},
	} {
		if _, err := d.db.ExecContext(ctx, `INSERT INTO federation_keys(kid, alg, status, created_at, retired_at, public_jwk, private_enc) VALUES (?, 'ES256', ?, ?, NULL, '{}', ?)`,
			k.kid, k.status, k.created, []byte("x")); err != nil {
			d.Close()
			t.Fatal(err)
		}
	}
	d.Close()

	d, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	applied, _ := d.Migrations(ctx)
	if !slices.Contains(applied, "0031_federation_key_may_sign_from.sql") {
		t.Fatalf("0031 not applied: %v", applied)
	}
	nk, err := d.NextFederationKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if nk.Kid != "legacy" || !nk.CreatedAt.Equal(created) || nk.MaySignFrom != nil {
		t.Fatalf("the Next key made before 0031: %+v", nk)
	}
	if keys, err := d.ListFederationKeys(ctx); err != nil || len(keys) != 2 {
		t.Fatalf("keys after 0031: %+v %v", keys, err)
	}
	if _, err := d.ActivateFederationKey(ctx, Audit{Actor: "test"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.PrepareFederationKey(ctx, Audit{Actor: "test"}, SigningKey{Kid: "new", Alg: "ES256", PublicJWK: "{}", PrivateEnc: []byte("y")}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if nk, err := d.NextFederationKey(ctx); err != nil || nk.MaySignFrom == nil || !nk.MaySignFrom.Equal(nk.CreatedAt.Add(time.Hour)) {
		t.Fatalf("a key prepared after 0031: %+v %v", nk, err)
	}
}

// The current federation key is kept between signatures (readcache.go),
// but a rotation, immediate or staged, is seen by the very next read:
// nothing is signed with a retired key from the cache.
func TestFederationKeyCacheSeesRotation(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	d, err := Open(ctx, storetest.Path(t), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	a := Audit{Actor: "test"}
	want := func(kid string) {
		t.Helper()
		for i := 0; i < 2; i++ { // the second read is the cached one
			k, err := d.CurrentFederationKey(ctx)
			if err != nil || k.Kid != kid {
				t.Fatalf("current key %q %v, want %q", k.Kid, err, kid)
			}
		}
	}
	if err := d.AddFederationKey(ctx, a, SigningKey{Kid: "one", Alg: "ES256", PublicJWK: "{}", PrivateEnc: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	want("one")
	if err := d.PrepareFederationKey(ctx, a, SigningKey{Kid: "two", Alg: "ES256", PublicJWK: "{}", PrivateEnc: []byte("y")}, 0); err != nil {
		t.Fatal(err)
	}
	want("one")
	if _, err := d.ActivateFederationKey(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	want("two")
	if err := d.AddFederationKey(ctx, a, SigningKey{Kid: "three", Alg: "ES256", PublicJWK: "{}", PrivateEnc: []byte("z")}); err != nil {
		t.Fatal(err)
	}
	want("three")
}
