package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// TestIdempotencyKeys: a key is claimed once; a second claim sees the
// first still running, then its result; another request under the same
// key is refused; keys are per administrator and forgotten after 24 hours.
func TestIdempotencyKeys(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	db, err := store.Open(ctx, storetest.Path(t), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, started, err := db.BeginIdempotent(ctx, "a@example.com", "k1", "fp")
	if err != nil || !started || res != nil {
		t.Fatalf("first: %v %v %v", res, started, err)
	}
	if res, started, err := db.BeginIdempotent(ctx, "a@example.com", "k1", "fp"); err != nil || started || res != nil {
		t.Fatalf("while running: %v %v %v", res, started, err)
	}
	if _, started, err := db.BeginIdempotent(ctx, "b@example.com", "k1", "fp"); err != nil || !started {
		t.Fatalf("another administrator's key: %v %v", started, err)
	}
	want := store.IdempotentResult{Status: 201, Headers: map[string]string{"Location": "/api/organisations/x"}, Body: []byte(`{"a":1}`)}
	if err := db.FinishIdempotent(ctx, "a@example.com", "k1", want); err != nil {
		t.Fatal(err)
	}
	res, started, err = db.BeginIdempotent(ctx, "a@example.com", "k1", "fp")
	if err != nil || started || res == nil || res.Status != 201 || res.Headers["Location"] != "/api/organisations/x" || string(res.Body) != `{"a":1}` {
		t.Fatalf("replay: %+v %v %v", res, started, err)
	}
	if _, _, err := db.BeginIdempotent(ctx, "a@example.com", "k1", "other"); !errors.Is(err, store.ErrIdempotencyMismatch) {
		t.Fatalf("another request under the key: %v", err)
	}
	// Abandoned (the first failed): the next runs.
	db.BeginIdempotent(ctx, "a@example.com", "k2", "fp")
	if err := db.AbandonIdempotent(ctx, "a@example.com", "k2"); err != nil {
		t.Fatal(err)
	}
	if _, started, _ := db.BeginIdempotent(ctx, "a@example.com", "k2", "fp2"); !started {
		t.Fatal("an abandoned key stays claimed")
	}
	// A redirect has no body.
	db.BeginIdempotent(ctx, "a@example.com", "k3", "fp")
	if err := db.FinishIdempotent(ctx, "a@example.com", "k3", store.IdempotentResult{Status: 303, Headers: map[string]string{"Location": "/x"}}); err != nil {
		t.Fatal(err)
	}
	if res, _, _ := db.BeginIdempotent(ctx, "a@example.com", "k3", "fp"); res == nil || res.Status != 303 {
		t.Fatalf("redirect replay: %+v", res)
	}
	now = now.Add(store.IdempotencyTTL + time.Minute)
	if _, started, err := db.BeginIdempotent(ctx, "a@example.com", "k1", "other"); err != nil || !started {
		t.Fatalf("after 24 hours: %v %v", started, err)
	}
}
