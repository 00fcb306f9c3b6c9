package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/trustframe/trustframe/store"
)

// An SSA's record commits only while the key that signed it is Active: a
// key retired by another process (the keys command beside the server, or
// another instance) between the server reading its current kid and the
// record committing must not leave an SSA that no published key verifies
// (docs/design.md §6).
func TestRecordSSARefusesARetiredKey(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	a := store.Audit{Actor: "admin@example.com"}
	for _, kid := range []string{"k-old", "k-new"} {
		if err := db.AddSigningKey(ctx, a, store.SigningKey{Kid: kid, Alg: "PS256", PublicJWK: `{}`, PrivateEnc: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RetireSigningKey(ctx, a, "k-new", func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	count := func(kid string) int {
		t.Helper()
		var n int
		if err := db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log WHERE action = 'ssa_issued' AND key_id = ?`, kid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := db.RecordSSA(ctx, a, "org", "app", "PS256", "k-new", "jti-1"); !errors.Is(err, store.ErrKeyRetired) {
		t.Fatalf("record for a retired key: %v, want ErrKeyRetired", err)
	}
	if err := db.RecordSSA(ctx, a, "org", "app", "PS256", "k-unknown", "jti-2"); !errors.Is(err, store.ErrKeyRetired) {
		t.Fatalf("record for an unknown key: %v, want ErrKeyRetired", err)
	}
	if n := count("k-new"); n != 0 {
		t.Fatalf("%d records name the retired key", n)
	}
	// Records of the Active key and of the retired one committed in the
	// same batches: each caller gets its own answer.
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kid := "k-old"
			if i%2 == 1 {
				kid = "k-new"
			}
			errs[i] = db.RecordSSA(ctx, a, "org", "app", "PS256", kid, "jti")
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if i%2 == 0 && err != nil {
			t.Errorf("record %d (Active key): %v", i, err)
		}
		if i%2 == 1 && !errors.Is(err, store.ErrKeyRetired) {
			t.Errorf("record %d (retired key): %v, want ErrKeyRetired", i, err)
		}
	}
	if n, m := count("k-old"), count("k-new"); n != 20 || m != 0 {
		t.Fatalf("records: Active key %d (want 20), retired key %d (want 0)", n, m)
	}
}
