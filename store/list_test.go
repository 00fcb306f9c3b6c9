package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/trustframe/trustframe/store"
)

// naive is the plain OFFSET query the anchors stand in for.
func naive(t *testing.T, db *store.DB, col, dir, where string, offset, size int) []string {
	rows, err := db.SQL().Query(fmt.Sprintf(`SELECT organisation_id FROM organisations WHERE %s ORDER BY %s %s, organisation_id %s LIMIT %d OFFSET %d`, where, col, dir, dir, size, offset))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	return ids
}

// TestDeepPagesMatchOffset: every page of every sort, both directions,
// with and without a filter, equals what a plain OFFSET query gives.
func TestDeepPagesMatchOffset(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.SeedDirectory(ctx, store.Audit{Actor: "t"}, 1234, 7); err != nil {
		t.Fatal(err)
	}
	// The first pass finds no anchors (OFFSET, anchors built in the
	// background); the second uses them.
	for pass := range 2 {
		if pass == 1 {
			db.WaitBackground()
		}
		for field, col := range store.OrgSortColumns {
			for _, desc := range []bool{false, true} {
				for _, status := range []string{"", "Active"} {
					dir := map[bool]string{false: "ASC", true: "DESC"}[desc]
					where := "1=1"
					if status != "" {
						where = "status = 'Active'"
					}
					for _, page := range []int{0, 1, 24, 25, 26, 49, 60} {
						got, total, err := db.ListOrganisations(ctx, store.OrgFilter{Sort: field, Desc: desc, Status: status, Page: page, Size: 20})
						if err != nil {
							t.Fatal(err)
						}
						want := naive(t, db, col, dir, where, page*20, 20)
						if len(got) != len(want) {
							t.Fatalf("%s %s %q page %d: %d rows, want %d (total %d)", field, dir, status, page, len(got), len(want), total)
						}
						for i := range got {
							if got[i].OrganisationID != want[i] {
								t.Fatalf("pass %d: %s %s %q page %d row %d differs", pass, field, dir, status, page, i)
							}
						}
					}
				}
			}
		}
	}
}

func TestListTotalsFollowWrites(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.SeedDirectory(ctx, store.Audit{Actor: "t"}, 600, 1)
	_, total, _ := db.ListOrganisations(ctx, store.OrgFilter{Page: 29})
	if total != 600 {
		t.Fatal(total)
	}
	o, err := db.CreateOrganisation(ctx, store.Audit{Actor: "t"}, store.Organisation{OrganisationName: "AAAA first", RegistrationNumber: "X", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	items, total, _ := db.ListOrganisations(ctx, store.OrgFilter{Page: 0})
	if total != 601 || items[0].OrganisationID != o.OrganisationID {
		t.Fatalf("after a create: total %d, first %s", total, items[0].OrganisationName)
	}
	// Deep page after the write reflects the shift.
	deep, _, _ := db.ListOrganisations(ctx, store.OrgFilter{Page: 25, Size: 20})
	if want := naive(t, db, "name COLLATE NOCASE", "ASC", "1=1", 500, 20); deep[0].OrganisationID != want[0] {
		t.Fatal("a stale anchor was used after a write")
	}
	o.OrganisationName = "ZZZZ last"
	o.Status = "Active"
	db.UpdateOrganisation(ctx, store.Audit{Actor: "t"}, o, nil, nil)
	if s, total, _ := db.ListOrganisations(ctx, store.OrgFilter{Q: "zzzz"}); total != 1 || s[0].OrganisationID != o.OrganisationID {
		t.Fatalf("search after rename: %d", total)
	}
	if _, total, _ := db.ListOrganisations(ctx, store.OrgFilter{Q: "AAAA first"}); total != 0 {
		t.Fatal("search index kept the old name")
	}
	if _, total, _ := db.ListOrganisations(ctx, store.OrgFilter{Q: "zz"}); total != 1 {
		t.Fatalf("short search: %d", total)
	}
	if _, total, _ := db.ListOrganisations(ctx, store.OrgFilter{Q: "last zzz"}); total != 1 {
		t.Fatalf("words in any order: %d", total)
	}
	for _, q := range []string{`"`, `*`, `zz" OR "a`, `NEAR(`, `-`} {
		if _, _, err := db.ListOrganisations(ctx, store.OrgFilter{Q: q}); err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
	}
}
