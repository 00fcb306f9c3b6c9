package store_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// Both engines have the same migrations, by number and name: a migration
// added for one engine only fails here, not on a deployment.
func TestMigrationsSameOnBothEngines(t *testing.T) {
	lite, err := store.MigrationNames(store.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := store.MigrationNames(store.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	if len(lite) == 0 || !slices.Equal(lite, pg) {
		t.Fatalf("SQLite migrations %v\nPostgreSQL migrations %v", lite, pg)
	}
}

// Two instances starting at once on one empty database: both open, and
// every migration is applied exactly once (on PostgreSQL under an advisory
// lock; on SQLite under its write lock).
func TestMigrationsRaceAppliesEachOnce(t *testing.T) {
	path := storetest.Path(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	dbs := make([]*store.DB, 3)
	errs := make([]error, 3)
	for i := range dbs {
		wg.Go(func() { dbs[i], errs[i] = store.Open(ctx, path, nil) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		defer dbs[i].Close()
	}
	want, _ := store.MigrationNames(dbs[0].Engine())
	var n, distinct int
	if err := dbs[0].SQL().QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT version) FROM schema_migrations`).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != len(want) || distinct != len(want) {
		t.Fatalf("%d migration rows (%d distinct), want %d", n, distinct, len(want))
	}
	// And each instance works.
	for i, db := range dbs {
		if _, err := db.CreateSuperUser(ctx, store.Audit{Actor: "t"}, strings.Repeat("x", i+1)+"@example.com", "Active"); err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
	}
}

// The organisation search behaves the same on both engines: every typed
// word must start a word of the name or the registration number, case
// and accents folded, punctuation inert.
func TestOrganisationSearchWordPrefixesAccentsCase(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	a := store.Audit{Actor: "t"}
	names := map[string]string{}
	for _, o := range []store.Organisation{
		{OrganisationName: "Société Générale Bank", RegistrationNumber: "FR-552120222"},
		{OrganisationName: "ACME Payments Ltd", RegistrationNumber: "RN00012345"},
		{OrganisationName: "Ωmega Ölbank AG", RegistrationNumber: "HRB 99"},
		{OrganisationName: "O'Brien & Sons (Payments)", RegistrationNumber: "IE-7"},
	} {
		o.CountryOfRegistration, o.Status = "GB", "Active"
		got, err := db.CreateOrganisation(ctx, a, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		names[got.OrganisationID] = got.OrganisationName
	}
	for q, want := range map[string][]string{
		"soc gen":           {"Société Générale Bank"},
		"SOCIETE":           {"Société Générale Bank"},
		"géné":              {"Société Générale Bank"},
		"552120":            {"Société Générale Bank"},
		"ban":               {"Société Générale Bank"},
		"ank":               nil, // not the start of a word
		"acme pay":          {"ACME Payments Ltd"},
		"rn000":             {"ACME Payments Ltd"},
		"payments":          {"ACME Payments Ltd", "O'Brien & Sons (Payments)"},
		"ωMEGA olb":         {"Ωmega Ölbank AG"},
		"hrb 99":            {"Ωmega Ölbank AG"},
		"brien":             {"O'Brien & Sons (Payments)"},
		"o'brien sons":      {"O'Brien & Sons (Payments)"},
		`"acme" OR x*:`:     nil, // acme AND or AND x: no organisation has all three
		"!!! & :*":          nil,
		"acme   ltd  ":      {"ACME Payments Ltd"},
		"payments -ltd":     {"ACME Payments Ltd"}, // a dash is punctuation, not "not"
		"sons payments ltd": nil,
	} {
		list, total, err := db.ListOrganisations(ctx, store.OrgFilter{Q: q, Size: 50})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var got []string
		for _, o := range list {
			got = append(got, names[o.OrganisationID])
		}
		slices.Sort(got)
		if !slices.Equal(got, want) || total != len(want) {
			t.Errorf("search %q: %v (total %d), want %v", q, got, total, want)
		}
	}
}

// The audit log refuses changes on both engines, TRUNCATE included.
func TestAuditLogRefusesTruncate(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.EnsureSuperUser(ctx, "a@example.com")
	stmt := `TRUNCATE audit_log CASCADE` // CASCADE: webhook deliveries refer to it
	if db.Engine() == store.SQLite {
		stmt = `DELETE FROM audit_log` // SQLite's TRUNCATE is a DELETE
	}
	if _, err := db.SQL().ExecContext(ctx, stmt); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("%s: %v", stmt, err)
	}
	_, total, err := db.ListAudit(ctx, store.AuditFilter{})
	if err != nil || total == 0 {
		t.Fatalf("audit after refused truncate: %d %v", total, err)
	}
}

// Backup is SQLite's: on PostgreSQL it says so instead of writing a file.
func TestBackupPerEngine(t *testing.T) {
	db := open(t)
	err := db.Backup(context.Background(), t.TempDir()+"/copy.db")
	if db.Engine() == store.Postgres {
		if !errors.Is(err, store.ErrNotOnThisEngine) {
			t.Fatalf("backup on PostgreSQL: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Two instances on one PostgreSQL database: a write committed by one is
// seen by the other's next reads although the other had it cached — list
// totals, roles, and WriteVersion (on which the handlers' caches are
// keyed) — through LISTEN/NOTIFY, without waiting for any cache to age.
func TestOtherInstancesWritesInvalidateCaches(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("instances share a database only on PostgreSQL (TRUSTFRAME_TEST_POSTGRES)")
	}
	ctx := context.Background()
	path := storetest.Path(t)
	open := func() *store.DB {
		db, err := store.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, b := open(), open()
	who := store.Audit{Actor: "t"}
	a.EnsureSuperUser(ctx, "root@example.com")
	if _, err := a.CreateSuperUser(ctx, who, "sue@example.com", "Active"); err != nil {
		t.Fatal(err)
	}
	// within waits for b to see what a did; a notification takes
	// milliseconds, a cache's age a minute.
	within := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("instance b never saw %s", what)
			}
		}
	}
	within("sue", func() bool { r, _ := b.RoleOf(ctx, "sue@example.com"); return r == store.RoleSuperUser })
	if _, total, err := b.ListOrganisations(ctx, store.OrgFilter{}); err != nil || total != 0 {
		t.Fatalf("b's first list: %d %v", total, err)
	}
	v := b.WriteVersion()
	if _, err := a.CreateOrganisation(ctx, who, store.Organisation{OrganisationName: "Made on A", RegistrationNumber: "A1", CountryOfRegistration: "GB", Status: "Active"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SetSuperUserStatus(ctx, who, "sue@example.com", "Inactive", nil); err != nil {
		t.Fatal(err)
	}
	within("the new organisation in its cached total", func() bool {
		_, total, err := b.ListOrganisations(ctx, store.OrgFilter{})
		return err == nil && total == 1
	})
	within("sue's status in its role cache", func() bool { r, _ := b.RoleOf(ctx, "sue@example.com"); return r == "" })
	if b.WriteVersion() == v {
		t.Fatal("b's WriteVersion did not move")
	}
}
