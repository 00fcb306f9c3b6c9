package store_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// TestAuditPageTimeRange: a time range on the audit list (read by walking
// the ids between the lowest and highest that match, ListAudit) gives the
// same records, count and pages as filtering every record by its time,
// alone and with another filter, with records whose times do not follow
// their ids (a clock set back, another instance's clock).
func TestAuditPageTimeRange(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	db, err := store.Open(ctx, storetest.Path(t), func() time.Time { mu.Lock(); defer mu.Unlock(); return clock })
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type rec struct {
		at     time.Time
		action string
	}
	var all []rec
	for i := range 120 {
		// Mostly forward in steps of 37 minutes, every seventh record
		// stamped two days earlier.
		at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * 37 * time.Minute)
		if i%7 == 3 {
			at = at.Add(-48 * time.Hour)
		}
		action := []string{"create", "update", "delete"}[i%3]
		mu.Lock()
		clock = at
		mu.Unlock()
		if err := db.RecordEvent(ctx, store.AuditRecord{Actor: "a@example.com", Action: action, SubjectType: "Organisation", SubjectID: fmt.Sprint("o-", i)}); err != nil {
			t.Fatal(err)
		}
		all = append(all, rec{at, action})
	}
	subjects := func(l []store.AuditRecord) []string {
		out := []string{}
		for _, r := range l {
			out = append(out, r.SubjectID)
		}
		return out
	}
	for _, f := range []store.AuditFilter{
		{From: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)},
		{To: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)},
		{From: time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC), To: time.Date(2026, 3, 3, 6, 0, 0, 0, time.UTC)},
		{From: time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC), To: time.Date(2026, 3, 3, 6, 0, 0, 0, time.UTC), Action: "update"},
		{From: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		// What the filter means: every record in the range, newest id first.
		var want []string
		for i := len(all) - 1; i >= 0; i-- {
			r := all[i]
			if (f.From.IsZero() || !r.at.Before(f.From)) && (f.To.IsZero() || r.at.Before(f.To)) && (f.Action == "" || r.action == f.Action) {
				want = append(want, fmt.Sprint("o-", i))
			}
		}
		var got []string
		for page := 0; ; page++ {
			f.Page, f.Size = page, 7
			l, total, err := db.ListAudit(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if total != len(want) {
				t.Fatalf("%+v: total %d, want %d", f, total, len(want))
			}
			if len(l) == 0 {
				break
			}
			got = append(got, subjects(l)...)
		}
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v:\n got %v\nwant %v", f, got, want)
		}
	}
}
