package keyring_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// TestRotationSeenByEveryInstance: two instances on one database (either
// engine), each with its keyring; a key rotated on one is the key the
// other signs with at its next assertion, with no restart: at once on
// PostgreSQL, within store.ReadCacheAge for another process on the same
// SQLite file (a `trustframe keys rotate` beside the server).
func TestRotationSeenByEveryInstance(t *testing.T) {
	ctx := context.Background()
	path := storetest.Path(t)
	kekPath := filepath.Join(t.TempDir(), "kek.key")
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	var rings [2]*keyring.Keyring
	for i := range rings {
		db, err := store.Open(ctx, path, now)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		kek, err := keyring.LoadOrCreateKEK(kekPath)
		if err != nil {
			t.Fatal(err)
		}
		if rings[i], err = keyring.OpenKeyring(ctx, db, kek, []string{ssa.PS256, ssa.MLDSA65}, 2048); err != nil {
			t.Fatal(err)
		}
	}
	for _, alg := range []string{ssa.PS256, ssa.MLDSA65} {
		_, before, err := rings[1].Signer(ctx, alg)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		clock = clock.Add(time.Millisecond) // the rotated key is the newer
		mu.Unlock()
		rotated, err := rings[0].Rotate(ctx, store.Audit{Actor: "a@example.com"}, alg)
		if err != nil {
			t.Fatal(err)
		}
		if !storetest.Postgres() {
			mu.Lock()
			clock = clock.Add(store.ReadCacheAge)
			mu.Unlock()
		}
		_, after, err := rings[1].Signer(ctx, alg)
		if err != nil {
			t.Fatal(err)
		}
		if rotated.Kid == before.Kid || after.Kid != rotated.Kid {
			t.Fatalf("%s: the other instance signs with %s after the rotation to %s (was %s)", alg, after.Kid, rotated.Kid, before.Kid)
		}
	}
}
