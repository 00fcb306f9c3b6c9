package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// TestDevIdPCodesSingleUse: a kept authorization code is invalidated once
// (a second invalidation, by any instance, reports it was used) and its
// PKCE request deleted once; a used code is still found, inactive, until
// it expires; expired rows are deleted by the next save.
func TestDevIdPCodesSingleUse(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	db, err := store.Open(ctx, storetest.Path(t), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	codes := db.DevIdPCodes()
	exp := now.Add(15 * time.Minute)
	for _, kind := range []string{"code", "pkce", "oidc"} {
		if err := codes.Save(ctx, kind, "sig-1", []byte(`{"id":"`+kind+`"}`), exp); err != nil {
			t.Fatal(err)
		}
	}
	if data, active, err := codes.Find(ctx, "pkce", "sig-1"); err != nil || !active || string(data) != `{"id":"pkce"}` {
		t.Fatalf("the PKCE request: %s %v %v", data, active, err)
	}
	for i, want := range []bool{true, false} {
		if used, err := codes.Invalidate(ctx, "code", "sig-1"); err != nil || used != want {
			t.Fatalf("invalidation %d: %v %v, want %v", i+1, used, err, want)
		}
		if deleted, err := codes.Delete(ctx, "pkce", "sig-1"); err != nil || deleted != want {
			t.Fatalf("deletion %d of the PKCE request: %v %v, want %v", i+1, deleted, err, want)
		}
	}
	if _, active, err := codes.Find(ctx, "code", "sig-1"); err != nil || active {
		t.Fatalf("the used code: active %v, %v", active, err)
	}
	if _, _, err := codes.Find(ctx, "pkce", "sig-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the deleted PKCE request: %v", err)
	}

	// Past its expiry the code is gone, and the next save deletes its rows.
	now = exp.Add(time.Second)
	if _, _, err := codes.Find(ctx, "code", "sig-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the expired code: %v", err)
	}
	if err := codes.Save(ctx, "code", "sig-2", []byte(`{}`), now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	now = exp.Add(-time.Second) // back before the expiry: the rows are deleted, not hidden
	if _, _, err := codes.Find(ctx, "oidc", "sig-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the expired code's OpenID Connect request after a save: %v", err)
	}
}

// TestDevIdPRefreshTokenUsedOnce: using an active refresh token makes it
// and every other token of its grant inactive and reports true once; a
// second use (any instance) reports false; another grant is untouched.
func TestDevIdPRefreshTokenUsedOnce(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	db, err := store.Open(ctx, storetest.Path(t), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rts := db.DevIdPRefreshTokens()
	exp := now.Add(time.Hour)
	for sig, grant := range map[string]string{"a1": "A", "a2": "A", "b1": "B"} {
		if err := rts.Save(ctx, sig, grant, []byte(`{}`), exp); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []bool{true, false} {
		if used, err := rts.Use(ctx, "a1"); err != nil || used != want {
			t.Fatalf("use %d: %v %v, want %v", i+1, used, err, want)
		}
	}
	for sig, want := range map[string]bool{"a1": false, "a2": false, "b1": true} {
		if _, active, err := rts.Find(ctx, sig); err != nil || active != want {
			t.Fatalf("%s: active %v %v, want %v", sig, active, err, want)
		}
	}
	if used, err := rts.Use(ctx, "unknown"); err != nil || used {
		t.Fatalf("an unknown token: %v %v", used, err)
	}
}
