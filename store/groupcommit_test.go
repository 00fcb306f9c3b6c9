package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store/storetest"
)

// waitFor polls cond (under the group's lock) until it holds; it fails the
// test after a generous bound instead of hanging.
func waitFor(t *testing.T, d *DB, what string, cond func(g *groupCommit) bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		d.group.mu.Lock()
		ok := cond(&d.group)
		d.group.mu.Unlock()
		if ok {
			return
		}
	}
	t.Fatal("timed out waiting for " + what)
}

func countSSARecords(t *testing.T, d *DB) int {
	t.Helper()
	var n int
	if err := d.db.QueryRow(`SELECT COUNT(*) FROM audit_log WHERE action = 'ssa_issued'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGroupCommitBatchesWaitingRecords: records that arrive while a batch
// is committing are committed together in the next one — one transaction
// for all of them — and no caller is answered before its batch commits.
func TestGroupCommitBatchesWaitingRecords(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	// Another writer holds SQLite's write lock: the first batch blocks.
	hold, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.engine == Postgres {
		// What SQLite's immediate transaction holds: the write lock.
		if _, err := hold.Exec(`SELECT pg_advisory_xact_lock(?)`, writeLockKey); err != nil {
			t.Fatal(err)
		}
	}
	before := d.WriteVersion()
	errs := make([]chan error, 10)
	record := func(i int) {
		errs[i] = make(chan error, 1)
		go func() {
			errs[i] <- d.RecordSSA(ctx, Audit{Actor: "a@example.com"}, "org", "app", "PS256", "kid", "jti")
		}()
	}
	record(0)
	waitFor(t, d, "the first batch to start", func(g *groupCommit) bool { return g.leading && len(g.pending) == 0 })
	for i := 1; i < 10; i++ {
		record(i)
	}
	waitFor(t, d, "nine records to queue", func(g *groupCommit) bool { return len(g.pending) == 9 })
	for i, ch := range errs {
		select {
		case err := <-ch:
			t.Fatalf("caller %d answered (%v) before its record could commit", i, err)
		default:
		}
	}
	if n := countSSARecords(t, d); n != 0 {
		t.Fatalf("%d records visible before any commit", n)
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	for i, ch := range errs {
		if err := <-ch; err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
	}
	if n := countSSARecords(t, d); n != 10 {
		t.Fatalf("%d records after every caller was answered, want 10", n)
	}
	if got := d.WriteVersion() - before; got != 2 {
		t.Fatalf("%d transactions for 10 records, want 2 (the first alone, then the nine that waited)", got)
	}
	d.group.mu.Lock()
	defer d.group.mu.Unlock()
	if d.group.leading || len(d.group.pending) != 0 {
		t.Fatalf("group left leading=%v with %d pending", d.group.leading, len(d.group.pending))
	}
}

// TestGroupCommitFailureAcknowledgesNothing: when the batch cannot commit
// (the write lock is held past the busy timeout) every caller gets the
// error and no record exists.
func TestGroupCommitFailureAcknowledgesNothing(t *testing.T) {
	d := openInternal(t, WithBusyTimeout(100*time.Millisecond))
	ctx := context.Background()
	hold, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.engine == Postgres {
		// What SQLite's immediate transaction holds: the write lock.
		if _, err := hold.Exec(`SELECT pg_advisory_xact_lock(?)`, writeLockKey); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	results := make([]error, 5)
	for i := range results {
		wg.Go(func() {
			results[i] = d.RecordSSA(ctx, Audit{Actor: "a@example.com"}, "org", "app", "PS256", "kid", "jti")
		})
	}
	wg.Wait()
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	for i, err := range results {
		if !errors.Is(err, ErrBusy) {
			t.Fatalf("caller %d: %v, want ErrBusy", i, err)
		}
	}
	if n := countSSARecords(t, d); n != 0 {
		t.Fatalf("%d records written by failed batches", n)
	}
	// The group recovers: the next record commits.
	if err := d.RecordSSA(ctx, Audit{Actor: "a@example.com"}, "org", "app", "PS256", "kid", "jti"); err != nil {
		t.Fatal(err)
	}
	if n := countSSARecords(t, d); n != 1 {
		t.Fatalf("%d records, want 1", n)
	}
}

// TestAuditOnlyCommitsLeaveTheDirectoryVersion: SSA issuance and events
// (sign-ins) append audit records only, so what is derived from the whole
// directory (the participants and federation lists, checked against
// DirectoryVersion) is not rebuilt for them; any other write counts.
func TestAuditOnlyCommitsLeaveTheDirectoryVersion(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	dir, writes := d.DirectoryVersion(), d.WriteVersion()
	if err := d.RecordSSA(ctx, Audit{Actor: "a@example.com"}, "org", "app", "PS256", "kid", "jti"); err != nil {
		t.Fatal(err)
	}
	if err := d.RecordEvent(ctx, AuditRecord{Actor: "a@example.com", Action: "login", SubjectType: "Session", SubjectID: "a@example.com"}); err != nil {
		t.Fatal(err)
	}
	if d.DirectoryVersion() != dir || d.WriteVersion() != writes+2 {
		t.Fatalf("directory version %d → %d, writes %d → %d: want the directory unchanged and two commits", dir, d.DirectoryVersion(), writes, d.WriteVersion())
	}
	if err := d.tx(ctx, func(*sql.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if d.DirectoryVersion() != dir+1 {
		t.Fatalf("a directory write left the version at %d", d.DirectoryVersion())
	}
	var n int
	if err := d.db.QueryRow(`SELECT COUNT(*) FROM audit_log WHERE action IN ('ssa_issued', 'login')`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d records (%v), want both", n, err)
	}
}

// TestGroupCommitNeedsNoSecondConnection: a batch's transaction holds one
// connection and the write lock; if writing its records needed another
// connection from the pool (preparing a statement on the pool did, the
// first time), a pool whose other connections are all held — by writers
// waiting for that lock, under load — would give none until they failed.
// Here every other connection is held, and the SSA's record still commits.
func TestGroupCommitNeedsNoSecondConnection(t *testing.T) {
	d := openInternal(t) // adds the Active key "kid"
	ctx := context.Background()
	var held []*sql.Conn
	for range d.db.Stats().MaxOpenConnections - 1 {
		c, err := d.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	done := make(chan error, 1)
	go func() { done <- d.RecordSSA(ctx, Audit{Actor: "a@example.com"}, "org", "app", "PS256", "kid", "jti") }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("with one connection free: %v", err)
		}
	case <-time.After(10 * time.Second):
		// Closing the held connections (deferred) lets it finish.
		t.Fatal("the batch waited for a second connection from the pool")
	}
}

// groupMarkType adds a trust mark type for the records of the trust mark
// group commit tests.
func groupMarkType(t *testing.T, d *DB) TrustMarkType {
	t.Helper()
	typ, err := d.CreateTrustMarkType(context.Background(), Audit{Actor: "a@example.com"},
		TrustMarkType{TrustMarkType: "https://dir.example/trust-marks/group", Name: "Group", Basis: "Certification", Lifetime: "24h", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

// groupMarkIssued is when the tests' marks were issued: one moment, so that
// a mark built again compares equal to the one recorded.
var groupMarkIssued = time.Now().UTC().Truncate(time.Second)

func groupMark(typ TrustMarkType, jti string) IssuedTrustMark {
	now := groupMarkIssued
	return IssuedTrustMark{JTI: jti, TypeID: typ.ID, TrustMarkType: typ.TrustMarkType, Subject: "https://sub-" + jti + ".example",
		IssuedAt: now, ExpiresAt: now.Add(24 * time.Hour), JWT: "jwt-" + jti}
}

// holdWriteLock begins a transaction holding the write lock (what
// SQLite's immediate transaction holds) until it is rolled back.
func holdWriteLock(t *testing.T, d *DB) *sql.Tx {
	t.Helper()
	hold, err := d.db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.engine == Postgres {
		if _, err := hold.Exec(`SELECT pg_advisory_xact_lock(?)`, writeLockKey); err != nil {
			t.Fatal(err)
		}
	}
	return hold
}

// TestGroupCommitTrustMarks: trust mark records of concurrent issuances
// (and an audit record among them) share one transaction; no caller is
// answered before its batch commits; afterwards every mark is readable,
// from the file reopened too — durable, not only visible.
func TestGroupCommitTrustMarks(t *testing.T) {
	path := storetest.Path(t)
	d, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { d.Close() }()
	ctx := context.Background()
	typ := groupMarkType(t, d)
	dir := d.DirectoryVersion()
	hold := holdWriteLock(t, d)
	before := d.WriteVersion()
	const n = 20
	errs := make([]chan error, n+1)
	record := func(i int) {
		errs[i] = make(chan error, 1)
		go func() {
			if i == n {
				errs[i] <- d.RecordEvent(ctx, AuditRecord{Actor: "a@example.com", Action: "login", SubjectType: "Session", SubjectID: "a@example.com"})
				return
			}
			errs[i] <- d.RecordTrustMark(ctx, groupMark(typ, fmt.Sprintf("jti-%02d", i)))
		}()
	}
	record(0)
	waitFor(t, d, "the first batch to start", func(g *groupCommit) bool { return g.leading && len(g.pending) == 0 })
	for i := 1; i <= n; i++ {
		record(i)
	}
	waitFor(t, d, "the records to queue", func(g *groupCommit) bool { return len(g.pending) == n })
	for i, ch := range errs {
		select {
		case err := <-ch:
			t.Fatalf("caller %d answered (%v) before its record could commit", i, err)
		default:
		}
	}
	if _, err := d.TrustMarkByJTI(ctx, "jti-00"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a mark readable before any commit: %v", err)
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	for i, ch := range errs {
		if err := <-ch; err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
	}
	if got := d.WriteVersion() - before; got != 2 {
		t.Fatalf("%d transactions for %d records, want 2 (the first alone, then those that waited)", got, n+1)
	}
	if d.DirectoryVersion() != dir {
		t.Fatal("recording marks changed the directory version")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		want := groupMark(typ, fmt.Sprintf("jti-%02d", i))
		m, err := d.TrustMarkByJTI(ctx, want.JTI)
		if err != nil || m.Subject != want.Subject || m.JWT != want.JWT || !m.ExpiresAt.Equal(want.ExpiresAt) || m.TrustMarkType != typ.TrustMarkType {
			t.Fatalf("mark %s after reopening: %+v, %v", want.JTI, m, err)
		}
	}
}

// TestGroupCommitTrustMarkErrorFailsItsBatch: a record that cannot be
// written (a jti recorded already) fails its batch's transaction; every
// caller of that batch gets the error and none of its records exists; the
// batch before and the next are unaffected.
func TestGroupCommitTrustMarkErrorFailsItsBatch(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	typ := groupMarkType(t, d)
	if err := d.RecordTrustMark(ctx, groupMark(typ, "taken")); err != nil {
		t.Fatal(err)
	}
	hold := holdWriteLock(t, d)
	first := make(chan error, 1)
	go func() { first <- d.RecordTrustMark(ctx, groupMark(typ, "first")) }()
	waitFor(t, d, "the first batch to start", func(g *groupCommit) bool { return g.leading && len(g.pending) == 0 })
	jtis := []string{"a", "b", "taken", "c"}
	results := make([]chan error, len(jtis)+1)
	for i, jti := range jtis {
		results[i] = make(chan error, 1)
		go func() { results[i] <- d.RecordTrustMark(ctx, groupMark(typ, jti)) }()
		waitFor(t, d, "the record to queue", func(g *groupCommit) bool { return len(g.pending) == i+1 })
	}
	results[len(jtis)] = make(chan error, 1)
	go func() {
		results[len(jtis)] <- d.RecordEvent(ctx, AuditRecord{Actor: "a@example.com", Action: "login", SubjectType: "Session", SubjectID: "a@example.com"})
	}()
	waitFor(t, d, "the batch to queue", func(g *groupCommit) bool { return len(g.pending) == len(jtis)+1 })
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatalf("the batch before: %v", err)
	}
	for i, ch := range results {
		err := <-ch
		if err == nil || errors.Is(err, ErrBusy) {
			t.Fatalf("caller %d of the failed batch: %v, want the insert's error", i, err)
		}
	}
	for _, jti := range []string{"a", "b", "c"} {
		if _, err := d.TrustMarkByJTI(ctx, jti); !errors.Is(err, ErrNotFound) {
			t.Fatalf("mark %s of the failed batch: %v, want none", jti, err)
		}
	}
	var logins int
	if err := d.db.QueryRow(`SELECT COUNT(*) FROM audit_log WHERE action = 'login'`).Scan(&logins); err != nil || logins != 0 {
		t.Fatalf("%d login records (%v) from the failed batch", logins, err)
	}
	if m, err := d.TrustMarkByJTI(ctx, "taken"); err != nil || m.Subject != groupMark(typ, "taken").Subject {
		t.Fatalf("the mark recorded first: %+v %v", m, err)
	}
	if err := d.RecordTrustMark(ctx, groupMark(typ, "next")); err != nil {
		t.Fatalf("the next batch: %v", err)
	}
	if _, err := d.TrustMarkByJTI(ctx, "next"); err != nil {
		t.Fatal(err)
	}
}
