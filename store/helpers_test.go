package store_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// clock is a time that a test moves on.
type clock struct{ ns atomic.Int64 }

func (c *clock) now() time.Time { return time.Unix(0, c.ns.Load()).UTC() }

func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }

func ids(l []store.Organisation) []string {
	var out []string
	for _, o := range l {
		out = append(out, o.OrganisationID)
	}
	return out
}

func open(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), storetest.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func timeNow() time.Time { return time.Now() }

// withSigningKey adds an Active SSA key kid: RecordSSA writes records only
// for an Active key.
func withSigningKey(t *testing.T, db *store.DB, kid string) {
	t.Helper()
	if err := db.AddSigningKey(context.Background(), store.Audit{Actor: "admin@example.com"}, store.SigningKey{Kid: kid, Alg: "PS256", PublicJWK: `{}`, PrivateEnc: []byte("x")}); err != nil {
		t.Fatal(err)
	}
}
