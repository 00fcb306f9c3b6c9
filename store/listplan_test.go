package store

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/trustframe/trustframe/store/storetest"
)

// The ids of a page of the organisation list sorted by name, alone or
// within a status, come from the sort's index alone on both engines, the
// anchored (keyset) deep pages too: such a page skips up to anchorStep-1
// index entries after its anchor, and each would otherwise be a table row
// read. On PostgreSQL lower(name) in the index did not let the planner
// answer from it (it needs name itself), so a deep page read ~500 table
// rows (issue 12's deep page, docs/benchmarks.md); migration 0027 includes
// name in those indexes.
func TestListPageReadsIndexAlone(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	if err := d.SeedDirectory(ctx, Audit{Actor: "t"}, 600, 1); err != nil {
		t.Fatal(err)
	}
	analyse := `ANALYZE`
	if d.Engine() == Postgres {
		analyse = `VACUUM ANALYZE organisations` // statistics and the visibility map
	}
	if _, err := d.db.ExecContext(ctx, analyse); err != nil {
		t.Fatal(err)
	}
	conn, err := d.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if d.Engine() == Postgres {
		// Ask whether the index can answer, not which plan a 600-row table
		// costs cheapest (a sequential scan would be, at this size).
		for _, set := range []string{`SET enable_seqscan = off`, `SET enable_bitmapscan = off`} {
			if _, err := conn.ExecContext(ctx, set); err != nil {
				t.Fatal(err)
			}
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `RESET ALL`)
	}
	col := OrgSortColumns["OrganisationName"]
	for _, c := range []struct {
		name  string
		f     OrgFilter
		index string
	}{
		{"all", OrgFilter{}, "organisations_name"},
		{"status", OrgFilter{Status: "Active"}, "organisations_status"},
	} {
		where, args := orgWhere(c.f, d.engine)
		for _, desc := range []bool{false, true} {
			for _, keyset := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/desc=%v/keyset=%v", c.name, desc, keyset), func(t *testing.T) {
					a := append([]any{}, args...)
					if keyset {
						a = append(a, "m", "m", "m")
					}
					a = append(a, 20, 480)
					q := orgPageSQL(col, desc, where, keyset)
					// SQLite names the index it reads alone a covering index;
					// PostgreSQL's scan of an index alone is an index-only scan.
					want := `(?m)USING COVERING INDEX ` + c.index + `( |$)`
					if d.Engine() == Postgres {
						want = `Index Only Scan (Backward )?using ` + c.index + ` on`
					}
					text := queryPlanOn(t, conn, d.Engine(), q, a...)
					if !regexp.MustCompile(want).MatchString(text) {
						t.Errorf("the page's ids are not read from %s alone (want %q):\n%s", c.index, want, text)
					}
				})
			}
		}
	}
}

// A migration applied on PostgreSQL is followed by a vacuum of
// organisations: a migration that rewrites the table (0026 does) empties
// its visibility map, and until it is filled again the list's index-only
// scans read a table row for every index entry (a deep page ~500).
// SQLite has no visibility map: the test is PostgreSQL's.
func TestMigrationsLeaveOrganisationsVacuumed(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("a visibility map is PostgreSQL's (TRUSTFRAME_TEST_POSTGRES)")
	}
	ctx := context.Background()
	path := storetest.Path(t)
	d, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			d.Close()
		}
	})
	if err := d.SeedDirectory(ctx, Audit{Actor: "t"}, 600, 1); err != nil {
		t.Fatal(err)
	}
	visible := func(d *DB) (all, pages int) {
		t.Helper()
		if err := d.db.QueryRowContext(ctx, `SELECT relallvisible, relpages FROM pg_class WHERE relname = 'organisations'`).Scan(&all, &pages); err != nil {
			t.Fatal(err)
		}
		return all, pages
	}
	// A rewrite as a migration's, then 0027 to apply again at the next start.
	for _, q := range []string{`VACUUM FULL organisations`, `ANALYZE organisations`, `DELETE FROM schema_migrations WHERE version = 27`} {
		if _, err := d.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if all, pages := visible(d); all != 0 || pages == 0 {
		t.Fatalf("after the rewrite %d of %d pages all-visible, want 0 of some", all, pages)
	}
	d.Close()
	closed = true
	again := openAt(t, path)
	if all, pages := visible(again); all != pages {
		t.Fatalf("after the migration %d of %d pages all-visible, want all", all, pages)
	}
}

func openAt(t *testing.T, path string) *DB {
	t.Helper()
	d, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
