package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

func newClock(t time.Time) *clock { c := &clock{}; c.ns.Store(t.UnixNano()); return c }
func outboxIDs(ms []store.OutboxMessage) []int64 {
	out := []int64{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

// openOnClock opens a store on a clock the test moves on.
func openOnClock(t *testing.T) (*store.DB, *clock) {
	t.Helper()
	clk := newClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	db, err := store.Open(context.Background(), storetest.Path(t), clk.now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, clk
}

// TestOutboxRetries: a message SMTP refused is claimed for another try
// after each refusal's backoff (1, 2, 4 … minutes, at most an hour); one
// no mail server refused (the development outbox) never; a claimed
// message is not claimed again while its sender has it; a delivered one
// never; none after OutboxRetryWindow. MarkSendFailed counts the tries
// and keeps why.
func TestOutboxRetries(t *testing.T) {
	ctx := context.Background()
	db, clk := openOnClock(t)
	_, first, err := db.InviteDataAdministrator(ctx, store.Audit{Actor: "admin@example.com"}, "dana@example.com",
		store.Invitation{To: "dana@example.com", Subject: "You are invited", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	_, second, err := db.InviteDataAdministrator(ctx, store.Audit{Actor: "admin@example.com"}, "erin@example.com",
		store.Invitation{To: "erin@example.com", Subject: "You are invited", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	claim := func() []int64 {
		t.Helper()
		ms, err := db.ClaimDueMessages(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		return outboxIDs(ms)
	}
	// Never tried (written without SMTP): never claimed, however old.
	clk.add(time.Hour)
	if got := claim(); len(got) != 0 {
		t.Fatalf("claimed %v that no mail server refused", got)
	}
	// The first sender failed on the first, delivered the second.
	if next, err := db.MarkSendFailed(ctx, first, "dial tcp: connection refused"); err != nil || next.Sub(clk.now()) != time.Minute {
		t.Fatalf("first refusal: next try %v from now (%v), want a minute", next.Sub(clk.now()), err)
	}
	if err := db.MarkDelivered(ctx, second); err != nil {
		t.Fatal(err)
	}
	if early := claim(); len(early) != 0 {
		t.Fatalf("claimed %v before its next try", early)
	}
	clk.add(time.Minute)
	got := claim()
	if len(got) != 1 || got[0] != first {
		t.Fatalf("claimed %v a minute after the refusal, want only %d", got, first)
	}
	// Claimed: not again while its sender has it.
	if again := claim(); len(again) != 0 {
		t.Fatalf("claimed %v twice", again)
	}
	// Each failure waits longer: 2, 4, 8 … minutes, never over an hour.
	for n := 2; n <= 9; n++ {
		next, err := db.MarkSendFailed(ctx, first, "451 try later")
		if err != nil {
			t.Fatal(err)
		}
		want := min(time.Minute<<(n-1), time.Hour)
		if d := next.Sub(clk.now()); d != want || store.OutboxBackoff(n) != want {
			t.Fatalf("after failure %d the next try is in %v (backoff %v), want %v", n, d, store.OutboxBackoff(n), want)
		}
		clk.add(want - time.Second)
		if early := claim(); len(early) != 0 {
			t.Fatalf("after failure %d: claimed %v a second early", n, early)
		}
		clk.add(2 * time.Second)
		if due := claim(); len(due) != 1 || due[0] != first {
			t.Fatalf("after failure %d: claimed %v when due", n, due)
		}
	}
	msgs, err := db.ListOutbox(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		switch m.ID {
		case first:
			if m.Delivered || m.Attempts != 9 || m.LastError != "451 try later" {
				t.Fatalf("the refused message reads %+v", m)
			}
		case second:
			if !m.Delivered || m.Attempts != 0 {
				t.Fatalf("the delivered message reads %+v", m)
			}
		}
	}
	// Past the retry window it is left for an operator.
	if _, err := db.MarkSendFailed(ctx, first, "451 try later"); err != nil {
		t.Fatal(err)
	}
	clk.add(store.OutboxRetryWindow - time.Hour)
	if late := claim(); len(late) != 0 {
		t.Fatalf("claimed %v after the retry window", late)
	}
	// A delivered message is never claimed, and MarkSendFailed does not
	// undo a delivery.
	if _, err := db.MarkSendFailed(ctx, second, "late failure"); err != nil {
		t.Fatal(err)
	}
	msgs, _ = db.ListOutbox(ctx, 10)
	for _, m := range msgs {
		if m.ID == second && (!m.Delivered || m.Attempts != 0) {
			t.Fatalf("a failure recorded after the delivery changed it: %+v", m)
		}
	}
}

// TestOutboxClaimedOnce: senders claiming at once (instances on one
// database) each take a message no other took.
func TestOutboxClaimedOnce(t *testing.T) {
	ctx := context.Background()
	db, clk := openOnClock(t)
	const n = 30
	for i := 0; i < n; i++ {
		e := "user" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "@example.com"
		_, id, err := db.InviteDataAdministrator(ctx, store.Audit{Actor: "admin@example.com"}, e, store.Invitation{To: e, Subject: "s", Body: "b"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.MarkSendFailed(ctx, id, "451"); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(time.Minute)
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				ms, err := db.ClaimDueMessages(ctx, 3)
				if err != nil {
					t.Error(err)
					return
				}
				if len(ms) == 0 {
					return
				}
				mu.Lock()
				for _, m := range ms {
					seen[m.ID]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("%d messages claimed, want %d", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("message %d claimed %d times", id, k)
		}
	}
}
