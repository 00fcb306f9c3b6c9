package federation_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/store"
)

// plainSealer stands in for the KEK: this test is about which keys are
// published, not about sealing.
type plainSealer struct{}

func (plainSealer) Seal(p, _ []byte) []byte          { return append([]byte{}, p...) }
func (plainSealer) Open(s, _ []byte) ([]byte, error) { return append([]byte{}, s...), nil }

// TestKeyringPublishesARetiredKeyForOneLifetime: after a rotation the new
// key signs, the replaced key stays in the published jwks for one
// statement lifetime after its retirement and then leaves it
// (docs/design.md §13).
func TestKeyringPublishesARetiredKeyForOneLifetime(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "keys.db"), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	const lifetime = 2 * time.Hour
	kr, err := federation.OpenKeyring(ctx, db, plainSealer{}, "ES256", lifetime)
	if err != nil {
		t.Fatal(err)
	}
	first, err := kr.Published(ctx, clock)
	if err != nil || len(first.Keys) != 1 {
		t.Fatalf("before the rotation: %v %v", first.Keys, err)
	}
	oldKid := first.Keys[0].KeyID
	clock = clock.Add(time.Minute)
	retiredAt := clock
	nk, err := kr.Rotate(ctx, store.Audit{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	kids := func(at time.Time) []string {
		t.Helper()
		set, err := kr.Published(ctx, at)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, k := range set.Keys {
			out = append(out, k.KeyID)
		}
		return out
	}
	if got := kids(retiredAt.Add(lifetime - time.Second)); len(got) != 2 {
		t.Fatalf("just within a lifetime of the retirement: %v, want the new key and %s", got, oldKid)
	}
	if got := kids(retiredAt.Add(lifetime)); len(got) != 1 || got[0] != nk.KeyID {
		t.Fatalf("a lifetime after the retirement: %v, want only %s", got, nk.KeyID)
	}
}
