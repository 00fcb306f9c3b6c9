package directory_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/ssa/keyring"
)

// mustSigningKeys is the key use cases on a new database, the SSA keys
// signing PS256 and the federation keys ES256 with statements living a
// day; now is the clock the use cases read.
func mustSigningKeys(t *testing.T, now *time.Time) *directory.SigningKeys {
	t.Helper()
	ctx := context.Background()
	db := mustOpen(t)
	kek, err := keyring.LoadOrCreateKEK(filepath.Join(t.TempDir(), "kek.key"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := keyring.OpenKeyring(ctx, db, kek, []string{ssa.PS256}, 2048)
	if err != nil {
		t.Fatal(err)
	}
	fed, err := federation.OpenKeyring(ctx, db, kek, "ES256", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &directory.SigningKeys{SSA: keys, Federation: fed, Now: func() time.Time { return *now }}
}

// TestSigningKeysRotateAndRetire: a rotation names an algorithm trustframe
// signs with (a field refusal otherwise, and the caller's refusals win);
// the only Active key of an enabled algorithm is not retired; an unknown
// kid is a missing signing key.
func TestSigningKeysRotateAndRetire(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s := mustSigningKeys(t, &now)
	a := directory.Actor{Actor: "admin@example.com"}

	if _, err := s.RotateSSA(ctx, a, "HS256", nil); fieldOf(err) != "alg" {
		t.Fatalf("HS256: %v, want a refusal of alg", err)
	}
	if _, err := s.RotateSSA(ctx, a, ssa.PS256, directory.Fields{"alg": "This field contains a NUL."}); refusal(err).Fields["alg"] != "This field contains a NUL." {
		t.Fatalf("the caller's refusal: %v", err)
	}
	o, err := s.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	only := o.Current[ssa.PS256]
	var conflict *directory.ConflictError
	if err := s.RetireSSA(ctx, a, only); !errors.As(err, &conflict) {
		t.Fatalf("retiring the only PS256 key: %v, want a conflict", err)
	}
	jwk, err := s.RotateSSA(ctx, a, ssa.PS256, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ = s.Overview(ctx); o.Current[ssa.PS256] != jwk.Kid {
		t.Fatalf("current %q, want the new key %q", o.Current[ssa.PS256], jwk.Kid)
	}
	if err := s.RetireSSA(ctx, a, only); err != nil {
		t.Fatalf("retiring the replaced key: %v", err)
	}
	if err := s.RetireSSA(ctx, a, "no-such-kid"); refusal(err).Code != directory.CodeNotFound || refusal(err).Message != "Signing key not found" {
		t.Fatalf("unknown kid: %v", err)
	}
}

// TestSigningKeysFederationRollover: a next key asked to sign before it
// may is refused with the time it may sign from; once that time has
// come it signs, and another start without a next key is a conflict.
func TestSigningKeysFederationRollover(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s := mustSigningKeys(t, &now)
	a := directory.Actor{Actor: "admin@example.com"}

	next, err := s.PrepareFederation(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	o, err := s.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.NextFrom.IsZero() || o.NextReady() {
		t.Fatalf("a key prepared now: may sign from %v, ready %v", o.NextFrom, o.NextReady())
	}
	_, err = s.ActivateFederation(ctx, a)
	var early *directory.EarlyActivation
	var conflict *directory.ConflictError
	if !errors.As(err, &early) || !errors.As(err, &conflict) || !early.From.Equal(o.NextFrom) {
		t.Fatalf("an early start: %v, want an EarlyActivation conflict saying %v", err, o.NextFrom)
	}

	now = o.NextFrom.Add(time.Second)
	k, err := s.ActivateFederation(ctx, a)
	if err != nil || k.Kid != next.KeyID {
		t.Fatalf("a start once ready: %v %q, want key %q", err, k.Kid, next.KeyID)
	}
	_, err = s.ActivateFederation(ctx, a)
	if !errors.As(err, &conflict) || errors.As(err, &early) {
		t.Fatalf("a start without a next key: %v, want a plain conflict", err)
	}
}
