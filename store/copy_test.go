package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// A SQLite directory copied into an empty PostgreSQL database answers the
// same: every table's rows, the audit log record for record, lists, deep
// pages and searches; ids go on after the copied ones; a second copy into
// the now non-empty target is refused and changes nothing.
func TestCopySQLiteToPostgres(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("needs a PostgreSQL target (TRUSTFRAME_TEST_POSTGRES)")
	}
	ctx := context.Background()
	src, err := store.Open(ctx, filepath.Join(t.TempDir(), "src.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	a := store.Audit{Actor: "admin@example.com"}
	src.EnsureSuperUser(ctx, "admin@example.com")
	if err := src.SeedDirectory(ctx, a, 1200, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := src.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: "Société Générale", RegistrationNumber: "FR-1", CountryOfRegistration: "FR", Status: "Active"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := src.InviteDataAdministrator(ctx, a, "da@example.com", store.Invitation{To: "da@example.com", Subject: "s", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := src.Sessions().CommitCtx(ctx, "tok", []byte("data"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	dst, err := store.Open(ctx, storetest.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	var seen []string
	rep, err := src.CopyTo(ctx, dst, func(table string, done, total int) {
		seen = append(seen, fmt.Sprintf("%s %d/%d", table, done, total))
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.AuditRecords == 0 || rep.Rows < 1200*4 || len(seen) < rep.Tables {
		t.Fatalf("report %+v, %d progress lines", rep, len(seen))
	}
	// The audit page's filter lists (derived from the log, not copied).
	for _, side := range []*store.DB{src, dst} {
		types, err := side.AuditSubjectTypes(ctx)
		if err != nil || len(types) < 2 {
			t.Fatalf("subject types %v %v", types, err)
		}
	}
	ta, _ := src.AuditSubjectTypes(ctx)
	tb, _ := dst.AuditSubjectTypes(ctx)
	aa, _ := src.AuditActions(ctx, "", "")
	ab, _ := dst.AuditActions(ctx, "", "")
	if !reflect.DeepEqual(ta, tb) || !reflect.DeepEqual(aa, ab) {
		t.Fatalf("filter lists after the copy: subject types %v / %v, actions %v / %v", ta, tb, aa, ab)
	}

	for _, f := range []store.OrgFilter{
		{Size: 20}, {Size: 20, Page: 59}, {Size: 20, Page: 30, Sort: "RegistrationNumber", Desc: true},
		{Q: "societe gen", Size: 20}, {Q: "harbour", Size: 50}, {Status: "Pending", Size: 20},
	} {
		la, ta, err := src.ListOrganisations(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		lb, tb, err := dst.ListOrganisations(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if ta != tb || !reflect.DeepEqual(la, lb) {
			t.Fatalf("%+v: SQLite %d %v\nPostgreSQL %d %v", f, ta, ids(la), tb, ids(lb))
		}
	}
	if _, ok, err := dst.Sessions().FindCtx(ctx, "tok"); !ok || err != nil {
		t.Fatalf("session not copied: %v", err)
	}
	// New ids follow the copied ones.
	_, id, err := dst.InviteDataAdministrator(ctx, a, "db@example.com", store.Invitation{To: "db@example.com", Subject: "s", Body: "b"})
	if err != nil || id < 2 {
		t.Fatalf("outbox id after copy: %d %v", id, err)
	}
	_, before, _ := dst.ListAudit(ctx, store.AuditFilter{})

	_, err = src.CopyTo(ctx, dst, nil)
	if !errors.Is(err, store.ErrTargetNotEmpty) {
		t.Fatalf("copy into a non-empty target: %v", err)
	}
	if _, after, _ := dst.ListAudit(ctx, store.AuditFilter{}); after != before {
		t.Fatalf("the refused copy changed the audit log: %d -> %d", before, after)
	}
}
