package store

import (
	"context"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store/storetest"
)

// BenchmarkAuditPage times the audit page's list (its count and its first
// page) on a log of a million records, unfiltered and with each filter
// the page offers (docs/benchmarks.md).
func BenchmarkAuditPage(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, storetest.Path(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	fillAuditLog(b, db, 1000000)
	if db.Engine() == Postgres {
		if _, err := db.db.ExecContext(ctx, `VACUUM ANALYZE`); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		f    AuditFilter
	}{
		{"all", AuditFilter{}},
		{"all/page500", AuditFilter{Page: 500}},
		{"action=create", AuditFilter{Action: "create"}},
		{"subject=Contact", AuditFilter{SubjectType: "Contact"}},
		{"subject=Application/app-heavy", AuditFilter{SubjectType: "Application", SubjectID: "app-heavy"}},
		{"org", AuditFilter{OrganisationID: "org-7"}},
		{"actor", AuditFilter{Actor: "bench@example.com"}},
		{"from-to", AuditFilter{From: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				f := c.f
				f.Size = 20
				if _, _, err := db.ListAudit(ctx, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
