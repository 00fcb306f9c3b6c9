package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// TestExpiryNoticeOnceAcrossInstances: several instances on one database
// run the expiry-notice job at the same time; the items are announced, and
// their messages queued, by exactly one of them (the others find the items
// already announced and queue nothing), on either engine.
func TestExpiryNoticeOnceAcrossInstances(t *testing.T) {
	path := storetest.Path(t)
	var dbs [3]*store.DB
	for i := range dbs {
		db, err := store.Open(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	ctx := context.Background()
	for round := range 10 {
		items := []store.NoticeItem{
			{Kind: "Certificate", ID: fmt.Sprintf("cert-%d", round), Expiry: "2027-01-01"},
			{Kind: "Document", ID: fmt.Sprintf("doc-%d", round), Expiry: "2027-01-02"},
		}
		msgs := []store.Invitation{{To: "a@example.com", Subject: "Expiring", Body: "…"}, {To: "b@example.com", Subject: "Expiring", Body: "…"}}
		start := make(chan struct{})
		queued := make([][]int64, len(dbs))
		errs := make([]error, len(dbs))
		var wg sync.WaitGroup
		for i, db := range dbs {
			wg.Go(func() {
				<-start
				queued[i], errs[i] = db.RecordExpiryNotice(ctx, items, msgs)
			})
		}
		close(start)
		wg.Wait()
		senders := 0
		for i := range dbs {
			if errs[i] != nil {
				t.Fatalf("round %d, instance %d: %v", round, i, errs[i])
			}
			if len(queued[i]) > 0 {
				senders++
				if len(queued[i]) != len(msgs) {
					t.Fatalf("round %d: instance %d queued %d messages, want %d", round, i, len(queued[i]), len(msgs))
				}
			}
		}
		if senders != 1 {
			t.Fatalf("round %d: %d instances queued the notice, want exactly one", round, senders)
		}
	}
	out, err := dbs[0].ListOutbox(ctx, 1000)
	if err != nil || len(out) != 20 {
		t.Fatalf("%d messages in the outbox (%v), want 20 (10 rounds × 2 recipients)", len(out), err)
	}
}
