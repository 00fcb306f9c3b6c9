package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
	"github.com/trustframe/trustframe/webhooks"
)

// TestOutboxRowsAreWrittenWithTheChange: a change queues one delivery per
// Active webhook subscribed to its subject type, in its own transaction;
// a change that is refused (rolled back) queues nothing, and Inactive
// webhooks get nothing.
func TestOutboxRowsAreWrittenWithTheChange(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	a := store.Audit{Actor: "admin@example.com"}
	on, err := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/a", SubjectTypes: []string{"SuperUser"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/b", SubjectTypes: []string{"Organisation"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	off, _ := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/c", SubjectTypes: []string{"SuperUser"}, Status: "Inactive", SealedSecret: []byte("x")}, nil)
	if _, err := db.CreateSuperUser(ctx, a, "one@example.com", "Active"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateSuperUser(ctx, a, "one@example.com", "Active"); err == nil {
		t.Fatal("a duplicate Super User was created")
	}
	count := func(id string) int {
		_, n, err := db.ListWebhookDeliveries(ctx, id, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(on.WebhookID); n != 1 {
		t.Fatalf("subscribed webhook: %d deliveries, want 1 (the refused change queues none)", n)
	}
	if n := count(other.WebhookID) + count(off.WebhookID); n != 0 {
		t.Fatalf("%d deliveries to webhooks of another type or Inactive", n)
	}
}

// TestClaimsAreExclusiveAcrossProcesses: two deliverers on two handles of
// one database file (two instances) claim at the same time; every delivery
// is taken by exactly one of them while its lease holds, and a lease that
// runs out lets the delivery be taken again.
func TestClaimsAreExclusiveAcrossProcesses(t *testing.T) {
	path := storetest.Path(t)
	ctx := context.Background()
	var dbs []*store.DB
	for range 2 {
		db, err := store.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	a := store.Audit{Actor: "admin@example.com"}
	// A webhook has one delivery in flight at a time: 60 webhooks, one
	// due delivery each (and a second waiting behind it).
	const n = 60
	for range n {
		if _, err := dbs[0].CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/a", SubjectTypes: []string{"Organisation"}, Status: "Active", SealedSecret: []byte("x")}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if err := dbs[i%2].RecordEvent(ctx, store.AuditRecord{Actor: "x", Action: "update", SubjectType: "Organisation", SubjectID: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	var mu sync.Mutex
	claimed := map[int64]string{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprint("owner-", w)
			for {
				got, err := dbs[w%2].ClaimDeliveries(ctx, owner, now, time.Minute, 5)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, d := range got {
					if prev, ok := claimed[d.DeliveryID]; ok {
						t.Errorf("delivery %d claimed by %s and %s", d.DeliveryID, prev, owner)
					}
					claimed[d.DeliveryID] = owner
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(claimed) != n {
		t.Fatalf("%d deliveries claimed, want %d (one per webhook)", len(claimed), n)
	}
	// Within the lease nobody else takes them; after it, one is taken again,
	// and the first owner's late result is not recorded.
	if got, _ := dbs[1].ClaimDeliveries(ctx, "late", now.Add(30*time.Second), time.Minute, 100); len(got) != 0 {
		t.Fatalf("%d claimed while leased", len(got))
	}
	again, _ := dbs[1].ClaimDeliveries(ctx, "late", now.Add(2*time.Minute), time.Minute, 100)
	if len(again) != n {
		t.Fatalf("%d claimed after the leases ran out, want %d", len(again), n)
	}
	d := again[0]
	if err := dbs[0].FinishDelivery(ctx, claimed[d.DeliveryID], d, store.DeliveryOutcome{At: now, OK: true, StatusCode: 200}); err != nil {
		t.Fatal(err)
	}
	ds, _, _ := dbs[0].ListWebhookDeliveries(ctx, d.WebhookID, 0, n)
	for _, x := range ds {
		if x.DeliveryID == d.DeliveryID && (x.Status != "Pending" || x.Attempts != 0) {
			t.Fatalf("a lost lease recorded its result: %+v", x)
		}
	}
	if err := dbs[1].FinishDelivery(ctx, "late", d, store.DeliveryOutcome{At: now, OK: true, StatusCode: 200}); err != nil {
		t.Fatal(err)
	}
	got, _ := dbs[0].GetWebhookDelivery(ctx, d.WebhookID, d.DeliveryID)
	if got.Status != "Delivered" || got.Attempts != 1 || got.LastStatusCode != 200 {
		t.Fatalf("after the holder finished: %+v", got)
	}
}

// TestCursors: a cursor names its log and position; anything else is
// malformed.
func TestCursors(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	epoch, err := db.FeedEpoch(ctx)
	if err != nil || len(epoch) != 32 {
		t.Fatalf("epoch %q %v", epoch, err)
	}
	if again, _ := db.FeedEpoch(ctx); again != epoch {
		t.Fatal("the epoch changed")
	}
	last, _ := db.LastChangeID(ctx)
	if id, err := db.ResolveCursor(ctx, store.EncodeCursor(epoch, last)); err != nil || id != last {
		t.Fatalf("own cursor: %d %v", id, err)
	}
	for _, bad := range []string{"", "x", "YzEu", store.EncodeCursor("zz", 1), store.EncodeCursor(epoch, -1)} {
		if _, err := db.ResolveCursor(ctx, bad); err != store.ErrCursorMalformed {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestOutboxRowsOfGroupCommittedRecords: SSA issuance records, written in
// shared (group commit) transactions by concurrent callers, queue one
// delivery each as well.
func TestOutboxRowsOfGroupCommittedRecords(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	withSigningKey(t, db, "kid")
	wh, err := db.CreateWebhook(ctx, store.Audit{Actor: "a"}, store.Webhook{URL: "https://8.8.8.8/a", SubjectTypes: []string{"Application"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := db.RecordSSA(ctx, store.Audit{Actor: "a"}, "org", fmt.Sprint("app-", i), "PS256", "kid", fmt.Sprint(i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	ds, total, err := db.ListWebhookDeliveries(ctx, wh.WebhookID, 0, 100)
	if err != nil || total != 40 {
		t.Fatalf("%d deliveries (%v), want 40", total, err)
	}
	seen := map[string]bool{}
	for _, d := range ds {
		if d.Change.Action != "ssa_issued" || seen[d.Change.SubjectID] {
			t.Fatalf("delivery %+v", d)
		}
		seen[d.Change.SubjectID] = true
	}
}

// TestRestoredBackupStartsANewFeed: a database restored from a backup
// (the copy opened in place of the original) is a new log: a cursor taken
// on the original after the backup is refused (ErrCursorGone, a 410)
// instead of resolving to ids the copy reuses for other changes, and the
// webhook-id of every delivery made after the restore differs from every
// one sent before (receivers deduplicate by it).
func TestRestoredBackupStartsANewFeed(t *testing.T) {
	db := open(t)
	if db.Engine() == store.Postgres {
		t.Skip("Backup is SQLite's (a PostgreSQL database is restored with pg_restore; see README, Backups)")
	}
	ctx := context.Background()
	a := store.Audit{Actor: "admin@example.com"}
	if _, err := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/a", SubjectTypes: []string{"Organisation"}, Status: "Active", SealedSecret: []byte("x")}, nil); err != nil {
		t.Fatal(err)
	}
	event := func(d *store.DB, id string) {
		t.Helper()
		if err := d.RecordEvent(ctx, store.AuditRecord{Actor: "x", Action: "update", SubjectType: "Organisation", SubjectID: id}); err != nil {
			t.Fatal(err)
		}
	}
	sent := map[string]string{} // webhook-id -> the change it announced
	claim := func(d *store.DB, owner string) {
		t.Helper()
		for {
			due, err := d.ClaimDeliveries(ctx, owner, time.Now(), time.Minute, 100)
			if err != nil {
				t.Fatal(err)
			}
			if len(due) == 0 {
				return
			}
			for _, dd := range due {
				if err := d.FinishDelivery(ctx, owner, dd, store.DeliveryOutcome{At: time.Now(), OK: true, StatusCode: 200}); err != nil {
					t.Fatal(err)
				}
				id := webhooks.MessageID(dd.Epoch, dd.DeliveryID)
				if before, ok := sent[id]; ok {
					t.Fatalf("webhook-id %s announced %s before the restore and %s after", id, before, dd.Change.SubjectID)
				}
				sent[id] = dd.Change.SubjectID
			}
		}
	}
	event(db, "before-backup")
	// A running server has made its epoch long before any backup.
	epoch, err := db.FeedEpoch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if err := db.Backup(ctx, copyPath); err != nil {
		t.Fatal(err)
	}
	event(db, "after-backup-1")
	event(db, "after-backup-2")
	last, err := db.LastChangeID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cursor := store.EncodeCursor(epoch, last)
	claim(db, "original")
	if len(sent) != 3 {
		t.Fatalf("%d deliveries on the original, want 3", len(sent))
	}

	restored, err := store.Open(ctx, copyPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restored.Close() })
	for i := range 4 {
		event(restored, fmt.Sprint("after-restore-", i))
	}
	if _, err := restored.ResolveCursor(ctx, cursor); !errors.Is(err, store.ErrCursorGone) {
		t.Fatalf("a cursor of the original after the backup, on the restored copy: %v, want ErrCursorGone", err)
	}
	if e2, _ := restored.FeedEpoch(ctx); e2 == epoch {
		t.Fatal("the restored copy kept the original's feed epoch")
	}
	// The copy still has the delivery of the change before the backup,
	// and one for each change after the restore: none may reuse an id.
	claim(restored, "restored")
	if len(sent) != 3+5 {
		t.Fatalf("%d webhook-ids in all, want 8 distinct", len(sent))
	}
	// The original is untouched: its own cursor still resolves.
	if _, err := db.ResolveCursor(ctx, cursor); err != nil {
		t.Fatalf("the original's own cursor: %v", err)
	}
}

// TestClaimsOneDeliveryPerWebhookAtATime: a webhook with a delivery in
// flight gets no other, and one whose last attempt failed gets nothing
// new until its retry is due, when the retry goes first; other webhooks
// are not held up meanwhile.
func TestClaimsOneDeliveryPerWebhookAtATime(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	a := store.Audit{Actor: "admin@example.com"}
	slow, err := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/a", SubjectTypes: []string{"Organisation"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fine, err := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/b", SubjectTypes: []string{"Organisation"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := db.RecordEvent(ctx, store.AuditRecord{Actor: "x", Action: "update", SubjectType: "Organisation", SubjectID: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	byHook := func(ds []store.DueDelivery) map[string][]store.DueDelivery {
		m := map[string][]store.DueDelivery{}
		for _, d := range ds {
			m[d.WebhookID] = append(m[d.WebhookID], d)
		}
		return m
	}
	first, err := db.ClaimDeliveries(ctx, "o", now, time.Minute, 10)
	if err != nil {
		t.Fatal(err)
	}
	m := byHook(first)
	if len(first) != 2 || len(m[slow.WebhookID]) != 1 || len(m[fine.WebhookID]) != 1 {
		t.Fatalf("first claim: %+v, want one delivery of each webhook", first)
	}
	if more, _ := db.ClaimDeliveries(ctx, "o", now, time.Minute, 10); len(more) != 0 {
		t.Fatalf("claimed %d more while each webhook has one in flight", len(more))
	}
	failed := m[slow.WebhookID][0]
	retryAt := now.Add(30 * time.Second)
	if err := db.FinishDelivery(ctx, "o", failed, store.DeliveryOutcome{At: now, StatusCode: 500, NextAttempt: retryAt, FirstAttemptAt: now, PauseAfter: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishDelivery(ctx, "o", m[fine.WebhookID][0], store.DeliveryOutcome{At: now, OK: true, StatusCode: 200, FirstAttemptAt: now}); err != nil {
		t.Fatal(err)
	}
	next, err := db.ClaimDeliveries(ctx, "o", now.Add(time.Second), time.Second, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(next) != 1 || next[0].WebhookID != fine.WebhookID {
		t.Fatalf("while the failed delivery waits for its retry: %+v, want only the healthy webhook's next", next)
	}
	if at, ok, _ := db.NextDeliveryDue(ctx); !ok || at.After(now.Add(2*time.Second)) {
		t.Fatalf("next due %v %v: the healthy webhook's lease ends first", at, ok)
	}
	due, err := db.ClaimDeliveries(ctx, "o", retryAt, time.Minute, 10)
	if err != nil {
		t.Fatal(err)
	}
	m = byHook(due)
	if len(m[slow.WebhookID]) != 1 || m[slow.WebhookID][0].DeliveryID != failed.DeliveryID || m[slow.WebhookID][0].Attempts != 1 {
		t.Fatalf("when the retry is due: %+v, want the failed delivery again first", due)
	}
}

// TestWebhookAuditShowsOnlySchemeAndHost: a webhook URL may carry a token
// in its path or query; the audit log (read by Data Administrators too)
// names only its scheme and host, on create, update and delete.
func TestWebhookAuditShowsOnlySchemeAndHost(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	a := store.Audit{Actor: "admin@example.com"}
	wh, err := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8:8443/hooks/PATHTOKEN1?key=QUERYTOKEN1", SubjectTypes: []string{"Organisation"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wh.URL = "https://hooks.example.com/PATHTOKEN2?key=QUERYTOKEN2"
	if _, err := db.UpdateWebhook(ctx, a, wh, nil, nil); err != nil {
		t.Fatal(err)
	}
	wh.URL = "https://hooks.example.com/PATHTOKEN3"
	if _, err := db.UpdateWebhook(ctx, a, wh, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteWebhook(ctx, a, wh.WebhookID); err != nil {
		t.Fatal(err)
	}
	recs, _, err := db.ListAudit(ctx, store.AuditFilter{SubjectType: "Webhook", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d webhook audit records, want 4", len(recs))
	}
	var all string
	for _, r := range recs {
		all += r.Summary + "\n"
	}
	for _, secret := range []string{"TOKEN", "hooks/", "key="} {
		if strings.Contains(all, secret) {
			t.Errorf("the audit log shows %q of a webhook URL:\n%s", secret, all)
		}
	}
	for _, want := range []string{"https://8.8.8.8:8443", "https://hooks.example.com", "(Url path or query changed)"} {
		if !strings.Contains(all, want) {
			t.Errorf("the audit log does not name %s:\n%s", want, all)
		}
	}
}

// TestQueueTestDeliveryReachesOneWebhook: a test event queues one delivery
// to the webhook it names, even when that webhook and another Active one
// are subscribed to Webhook (the subject of the test's audit record): the
// other gets nothing. It is audited (actor, action "test", the webhook);
// a webhook that is not Active, or none, is refused and nothing is written.
func TestQueueTestDeliveryReachesOneWebhook(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	a := store.Audit{Actor: "admin@example.com"}
	target, err := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/a?token=s3cret", SubjectTypes: []string{"Webhook"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/b", SubjectTypes: []string{"Webhook", "Organisation"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	off, _ := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/c", SubjectTypes: []string{"Organisation"}, Status: "Inactive", SealedSecret: []byte("x")}, nil)
	count := func(id string) int {
		_, n, err := db.ListWebhookDeliveries(ctx, id, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count(target.WebhookID) // the creation of other, a Webhook change
	otherBefore := count(other.WebhookID)
	d, err := db.QueueTestDelivery(ctx, a, target.WebhookID)
	if err != nil {
		t.Fatal(err)
	}
	if d.WebhookID != target.WebhookID || d.Status != "Pending" || d.Change.Action != "test" || d.Change.SubjectType != "Webhook" ||
		d.Change.SubjectID != target.WebhookID || d.Change.Actor != "admin@example.com" {
		t.Fatalf("queued %+v", d)
	}
	if n := count(target.WebhookID); n != before+1 {
		t.Fatalf("target: %d deliveries, want %d", n, before+1)
	}
	if n := count(other.WebhookID); n != otherBefore {
		t.Fatalf("another webhook subscribed to Webhook got the test: %d deliveries, want %d", n, otherBefore)
	}
	recs, _, err := db.ListAudit(ctx, store.AuditFilter{SubjectType: "Webhook", Action: "test", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].SubjectID != target.WebhookID || recs[0].Actor != "admin@example.com" || strings.Contains(recs[0].Summary, "s3cret") {
		t.Fatalf("audit %+v", recs)
	}

	var na *directory.Error
	if _, err := db.QueueTestDelivery(ctx, a, off.WebhookID); !errors.As(err, &na) || na.Code != directory.CodeWebhookNotActive || !strings.Contains(na.Fields["Status"], "Inactive") {
		t.Fatalf("Inactive webhook: %v", err)
	}
	if _, err := db.QueueTestDelivery(ctx, a, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown webhook: %v", err)
	}
	if n := count(off.WebhookID); n != 0 {
		t.Fatalf("Inactive webhook: %d deliveries", n)
	}
	if recs, _, _ := db.ListAudit(ctx, store.AuditFilter{Action: "test", Size: 10}); len(recs) != 1 {
		t.Fatalf("refused tests were audited: %+v", recs)
	}
}

// TestDeliveriesAhead: what a test event waits for — the webhook's Pending
// deliveries queued before it (not after it, not another webhook's, not
// those already sent), and the retry still to come among them.
func TestDeliveriesAhead(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	a := store.Audit{Actor: "admin@example.com"}
	wh, err := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/a", SubjectTypes: []string{"Organisation"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := db.CreateWebhook(ctx, a, store.Webhook{URL: "https://8.8.8.8/b", SubjectTypes: []string{"Organisation"}, Status: "Active", SealedSecret: []byte("x")}, nil)
	for _, name := range []string{"One", "Two", "Three"} {
		if _, err := db.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: name, RegistrationNumber: name, CountryOfRegistration: "GB", Status: "Pending"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ds, _, err := db.ListWebhookDeliveries(ctx, wh.WebhookID, 0, 10) // newest first
	if err != nil || len(ds) != 3 {
		t.Fatalf("%d deliveries (%v)", len(ds), err)
	}
	first, second, third := ds[2].DeliveryID, ds[1].DeliveryID, ds[0].DeliveryID
	set := func(id int64, sql string, args ...any) {
		t.Helper()
		if _, err := db.SQL().Exec(`UPDATE webhook_deliveries SET `+sql+` WHERE delivery_id = ?`, append(args, id)...); err != nil {
			t.Fatal(err)
		}
	}
	ahead := func(id int64) (int, time.Time) {
		t.Helper()
		n, at, err := db.DeliveriesAhead(ctx, wh.WebhookID, id)
		if err != nil {
			t.Fatal(err)
		}
		return n, at
	}
	if n, at := ahead(third); n != 2 || !at.IsZero() {
		t.Fatalf("behind two untried: %d, %v", n, at)
	}
	if n, _ := ahead(first); n != 0 {
		t.Fatalf("the oldest waits for %d", n)
	}
	set(first, `status = 'Delivered', attempts = 1`)
	past := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	set(second, `attempts = 1, next_attempt_at = ?`, past.UnixMilli())
	if n, at := ahead(third); n != 1 || !at.IsZero() {
		t.Fatalf("behind one whose retry is due already: %d, %v (want no time: it goes now)", n, at)
	}
	future := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	set(second, `next_attempt_at = ?`, future.UnixMilli())
	if n, at := ahead(third); n != 1 || !at.Equal(future) {
		t.Fatalf("behind a retry in an hour: %d, %v (want %v)", n, at, future)
	}
	if n, _, err := db.DeliveriesAhead(ctx, other.WebhookID, 1<<62); err != nil || n != 3 {
		t.Fatalf("the other webhook's own queue: %d (%v), want its 3", n, err)
	}
}
