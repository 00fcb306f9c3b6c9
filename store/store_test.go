package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// A database a newer release has migrated (a migration past this
// binary's last) is refused at open on either engine, before anything is
// applied, naming the migration (docs/decisions.md).
func TestOpenRefusesANewerDatabase(t *testing.T) {
	path := storetest.Path(t)
	ctx := context.Background()
	db, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (9999, '9999_later.sql', '2030-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = store.Open(ctx, path, nil)
	if err == nil {
		db.Close()
	}
	if !errors.Is(err, store.ErrNewerDatabase) || !strings.Contains(err.Error(), "9999_later.sql") {
		t.Fatalf("open: %v", err)
	}
}

func TestMigrationsFromEmptyAndIdempotent(t *testing.T) {
	path := storetest.Path(t)
	ctx := context.Background()
	db, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := db.Migrations(ctx)
	db.Close()
	if len(first) == 0 || first[0] != "0001_init.sql" {
		t.Fatalf("migrations %v", first)
	}
	db, err = store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	again, _ := db.Migrations(ctx)
	if len(again) != len(first) {
		t.Fatalf("reopening re-applied migrations: %v", again)
	}
	if db.Engine() != store.SQLite {
		return
	}
	var fk, journal string
	db.SQL().QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk)
	db.SQL().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&journal)
	if fk != "1" || journal != "wal" {
		t.Fatalf("foreign_keys=%s journal_mode=%s", fk, journal)
	}
}

func TestAuditWrittenWithTheChange(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if _, err := db.CreateSuperUser(ctx, store.Audit{Actor: "a@example.com"}, "b@example.com", "Active"); err != nil {
		t.Fatal(err)
	}
	recs, total, err := db.ListAudit(ctx, store.AuditFilter{SubjectType: "SuperUser"})
	if err != nil || total != 1 || recs[0].Actor != "a@example.com" || recs[0].Action != "create" || recs[0].SubjectID != "b@example.com" {
		t.Fatalf("%v %d %+v", err, total, recs)
	}
	// A refused change writes no audit record.
	if _, err := db.CreateSuperUser(ctx, store.Audit{Actor: "a@example.com"}, "b@example.com", "Active"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate: %v", err)
	}
	_, total, _ = db.ListAudit(ctx, store.AuditFilter{SubjectType: "SuperUser"})
	if total != 1 {
		t.Fatalf("refused change audited: %d", total)
	}
}

func TestAuditIsAppendOnly(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.EnsureSuperUser(ctx, "a@example.com")
	if _, err := db.SQL().ExecContext(ctx, `UPDATE audit_log SET actor = 'x'`); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("update: %v", err)
	}
	if _, err := db.SQL().ExecContext(ctx, `DELETE FROM audit_log`); err == nil {
		t.Fatal("delete allowed")
	}
}

func TestLastActiveSuperUserStays(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.EnsureSuperUser(ctx, "a@example.com")
	if _, err := db.SetSuperUserStatus(ctx, store.Audit{Actor: "a@example.com"}, "a@example.com", "Inactive", nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("got %v", err)
	}
	db.CreateSuperUser(ctx, store.Audit{Actor: "a@example.com"}, "b@example.com", "Active")
	if _, err := db.SetSuperUserStatus(ctx, store.Audit{Actor: "a@example.com"}, "a@example.com", "Inactive", nil); err != nil {
		t.Fatal(err)
	}
	if role, _ := db.RoleOf(ctx, "a@example.com"); role != store.RoleNone {
		t.Fatalf("inactive super user has role %q", role)
	}
}

func TestRolesAndFirstSignIn(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.EnsureSuperUser(ctx, "root@example.com")
	db.InviteDataAdministrator(ctx, store.Audit{Actor: "root@example.com"}, "Dana@example.com", store.Invitation{To: "dana@example.com", Subject: "s", Body: "b"})
	if r, _ := db.RoleOf(ctx, "dana@example.com"); r != store.RoleDataAdmin {
		t.Fatalf("invited: %q", r)
	}
	if r, _ := db.SignIn(ctx, "DANA@example.com", "web", ""); r != store.RoleDataAdmin {
		t.Fatalf("sign in: %q", r)
	}
	a, _ := db.GetDataAdministrator(ctx, "dana@example.com")
	if a.Status != "Active" {
		t.Fatalf("status %s", a.Status)
	}
	if r, _ := db.SignIn(ctx, "nobody@example.com", "web", ""); r != store.RoleNone {
		t.Fatalf("stranger: %q", r)
	}
	recs, _, _ := db.ListAudit(ctx, store.AuditFilter{Action: "login_refused"})
	if len(recs) != 1 {
		t.Fatalf("refused sign-in not audited: %+v", recs)
	}
}

// TestConcurrentWriters: many goroutines writing at once never see
// "database is locked"; every write lands.
func TestConcurrentWriters(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.EnsureSuperUser(ctx, "root@example.com")
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for g := 0; g < 20; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				_, err := db.CreateSuperUser(ctx, store.Audit{Actor: "root@example.com"}, fmt.Sprintf("u%d-%d@example.com", g, i), "Active")
				if err != nil {
					errs <- err
				}
				if _, err := db.ListSuperUsers(ctx); err != nil {
					errs <- err
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	users, _ := db.ListSuperUsers(ctx)
	if len(users) != 201 {
		t.Fatalf("%d users", len(users))
	}
	_, total, _ := db.ListAudit(ctx, store.AuditFilter{SubjectType: "SuperUser", Action: "create"})
	if total != 201 {
		t.Fatalf("%d audit records", total)
	}
}

func TestSessionsStore(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := db.Sessions()
	if err := s.CommitCtx(ctx, "tok", []byte("data"), timeNow().Add(3600e9)); err != nil {
		t.Fatal(err)
	}
	b, ok, err := s.FindCtx(ctx, "tok")
	if err != nil || !ok || string(b) != "data" {
		t.Fatalf("%q %v %v", b, ok, err)
	}
	s.CommitCtx(ctx, "old", []byte("x"), timeNow().Add(-1e9))
	if _, ok, _ := s.FindCtx(ctx, "old"); ok {
		t.Fatal("expired session found")
	}
	s.DeleteCtx(ctx, "tok")
	if _, ok, _ := s.FindCtx(ctx, "tok"); ok {
		t.Fatal("deleted session found")
	}
}

// A write that waits for SQLite's one writer longer than the busy timeout
// fails as ErrBusy (the handlers answer 503 with Retry-After), never as an
// unexplained error, and changes nothing.
func TestBusyWriteIsErrBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := store.Open(context.Background(), path, nil, store.WithBusyTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// Another connection holds the write lock.
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_, err = db.CreateSuperUser(context.Background(), store.Audit{Actor: "t"}, "busy@example.com", "Active")
	if !errors.Is(err, store.ErrBusy) {
		t.Fatalf("a write behind a held lock: %v", err)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	if _, err := db.GetSuperUser(context.Background(), "busy@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused write left something: %v", err)
	}
}
