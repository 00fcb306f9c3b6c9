package federation_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
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

// TestKeyringStagedRollover: Prepare publishes a Next key that does not
// sign; a second Prepare is refused while it is there; Activate before the
// prepublish time is refused naming when it may sign, and after it the
// Next key signs while the replaced one stays published for one lifetime
// after its retirement (docs/design.md §13). Without a Next key Activate
// is refused.
func TestKeyringStagedRollover(t *testing.T) {
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
	if kr.Prepublish() != lifetime {
		t.Fatalf("default prepublish %s, want the lifetime %s", kr.Prepublish(), lifetime)
	}
	cur, err := db.CurrentFederationKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	oldKid := cur.Kid
	kids := func(at time.Time) map[string]bool {
		t.Helper()
		set, err := kr.Published(ctx, at)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, k := range set.Keys {
			out[k.KeyID] = true
		}
		return out
	}
	signer := func() string {
		t.Helper()
		k, err := db.CurrentFederationKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return k.Kid
	}
	conflict := func(err error, want string) {
		t.Helper()
		var ce *store.ConflictError
		if !errors.As(err, &ce) || !strings.Contains(ce.Message, want) {
			t.Fatalf("got %v, want a conflict saying %q", err, want)
		}
	}

	_, err = kr.Activate(ctx, store.Audit{Actor: "test"}, clock)
	conflict(err, "no federation key is published as the next key")

	clock = clock.Add(time.Minute)
	published := clock
	next, err := kr.Prepare(ctx, store.Audit{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got := kids(clock); len(got) != 2 || !got[oldKid] || !got[next.KeyID] {
		t.Fatalf("after prepare: published %v, want %s and %s", got, oldKid, next.KeyID)
	}
	if got := signer(); got != oldKid {
		t.Fatalf("after prepare the signer is %s, want still %s", got, oldKid)
	}
	if nk, err := db.NextFederationKey(ctx); err != nil || nk.Kid != next.KeyID || nk.Status != "Next" {
		t.Fatalf("next key: %+v %v", nk, err)
	}
	_, err = kr.Prepare(ctx, store.Audit{Actor: "test"})
	conflict(err, next.KeyID+" is already published as the next key")
	if keys, _ := kr.Keys(ctx); len(keys) != 2 {
		t.Fatalf("a refused prepare stored a key: %d keys", len(keys))
	}

	clock = published.Add(lifetime - time.Second)
	_, err = kr.Activate(ctx, store.Audit{Actor: "test"}, clock)
	conflict(err, "may sign from "+published.Add(lifetime).Format(time.RFC3339))
	if got := signer(); got != oldKid {
		t.Fatalf("a refused activate changed the signer to %s", got)
	}

	clock = published.Add(lifetime)
	retiredAt := clock
	act, err := kr.Activate(ctx, store.Audit{Actor: "test"}, clock)
	if err != nil || act.Kid != next.KeyID {
		t.Fatalf("activate: %+v %v", act, err)
	}
	if got := signer(); got != next.KeyID {
		t.Fatalf("after activate the signer is %s, want %s", got, next.KeyID)
	}
	if _, err := db.NextFederationKey(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a next key is left after activate: %v", err)
	}
	if got := kids(retiredAt.Add(lifetime - time.Second)); len(got) != 2 || !got[oldKid] {
		t.Fatalf("within a lifetime of the retirement: %v, want %s still published", got, oldKid)
	}
	if got := kids(retiredAt.Add(lifetime)); len(got) != 1 || !got[next.KeyID] {
		t.Fatalf("a lifetime after the retirement: %v, want only %s", got, next.KeyID)
	}
	_, err = kr.Activate(ctx, store.Audit{Actor: "test"}, clock)
	conflict(err, "no federation key is published as the next key")

	// With no prepublish time the next key may sign at once; an
	// immediate rotation leaves a prepared key as it is.
	kr.SetPrepublish(0)
	again, err := kr.Prepare(ctx, store.Audit{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rot, err := kr.Rotate(ctx, store.Audit{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got := signer(); got != rot.KeyID {
		t.Fatalf("after rotate the signer is %s, want %s", got, rot.KeyID)
	}
	if nk, err := db.NextFederationKey(ctx); err != nil || nk.Kid != again.KeyID {
		t.Fatalf("rotate changed the next key: %+v %v", nk, err)
	}
	if _, err := kr.Activate(ctx, store.Audit{Actor: "test"}, clock); err != nil {
		t.Fatal(err)
	}
	if got := signer(); got != again.KeyID {
		t.Fatalf("after the second activate the signer is %s, want %s", got, again.KeyID)
	}
	if _, err := kr.Sign(ctx, "entity-statement+jwt", map[string]any{"iss": "x"}); err != nil {
		t.Fatalf("signing with the activated key: %v", err)
	}
}

// TestKeyringRolloverSeenByAnotherInstance: two keyrings on one database
// (two instances): a key prepared on one and activated on the other signs
// on both at once; the state is the store's, not a keyring's.
func TestKeyringRolloverSeenByAnotherInstance(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keys.db")
	open := func() *federation.Keyring {
		t.Helper()
		db, err := store.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		kr, err := federation.OpenKeyring(ctx, db, plainSealer{}, "ES256", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		kr.SetPrepublish(0)
		return kr
	}
	a, b := open(), open()
	kidOf := func(kr *federation.Keyring) string {
		t.Helper()
		tok, err := kr.Sign(ctx, "entity-statement+jwt", map[string]any{"iss": "x"})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
		var hdr struct {
			Kid string `json:"kid"`
		}
		_ = json.Unmarshal(h, &hdr)
		return hdr.Kid
	}
	old := kidOf(a)
	next, err := a.Prepare(ctx, store.Audit{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if set, err := b.Published(ctx, time.Now()); err != nil || len(set.Key(next.KeyID)) != 1 {
		t.Fatalf("the other instance does not publish the prepared key: %v", err)
	}
	if _, err := b.Prepare(ctx, store.Audit{Actor: "test"}); err == nil {
		t.Fatal("the other instance prepared a second next key")
	}
	if got := kidOf(b); got != old {
		t.Fatalf("the other instance signs with %s before activation, want %s", got, old)
	}
	if _, err := b.Activate(ctx, store.Audit{Actor: "test"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if ga, gb := kidOf(a), kidOf(b); ga != next.KeyID || gb != next.KeyID {
		t.Fatalf("after activation on one instance: %s and %s sign, want %s on both", ga, gb, next.KeyID)
	}
}

// TestKeyringActivationFollowsTheStoredInstant: two instances with
// different prepublish times on one database agree on when the next key
// may sign: the instant stored when it was prepared, whichever instance
// (or CLI run) activates it and whatever its own prepublish time.
func TestKeyringActivationFollowsTheStoredInstant(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keys.db")
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	open := func(prepublish time.Duration) *federation.Keyring {
		t.Helper()
		db, err := store.Open(ctx, path, func() time.Time { return clock })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		kr, err := federation.OpenKeyring(ctx, db, plainSealer{}, "ES256", 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		kr.SetPrepublish(prepublish)
		return kr
	}
	hour, none, long := open(time.Hour), open(0), open(48*time.Hour)
	next, err := hour.Prepare(ctx, store.Audit{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	from := clock.Add(time.Hour)
	for _, kr := range []*federation.Keyring{hour, none, long} {
		nk, err := func() (store.SigningKey, error) {
			keys, err := kr.Keys(ctx)
			for _, k := range keys {
				if k.Status == "Next" {
					return k, err
				}
			}
			return store.SigningKey{}, err
		}()
		if err != nil || !kr.MaySignFrom(nk).Equal(from) {
			t.Fatalf("instance with prepublish %s: may sign from %s (%v), want %s", kr.Prepublish(), kr.MaySignFrom(nk), err, from)
		}
	}
	// An instance with no prepublish time may not start it early.
	_, err = none.Activate(ctx, store.Audit{Actor: "test"}, from.Add(-time.Second))
	var ce *store.ConflictError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "may sign from "+from.Format(time.RFC3339)) {
		t.Fatalf("early activation with prepublish 0: %v, want a conflict naming %s", err, from)
	}
	// One with a longer prepublish time may start it at the stored instant.
	if act, err := long.Activate(ctx, store.Audit{Actor: "test"}, from); err != nil || act.Kid != next.KeyID {
		t.Fatalf("activation at the stored instant with prepublish 48h: %+v %v", act, err)
	}
}
