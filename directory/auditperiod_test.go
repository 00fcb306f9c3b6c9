package directory

import (
	"testing"
	"time"
)

// TestAuditPeriodIncludesTheLastDay: To is included (the period ends at
// the start of the next day); a date that is not one, or To before From,
// is refused beside its field.
func TestAuditPeriodIncludesTheLastDay(t *testing.T) {
	start, end, refused := AuditPeriod("2025-01-01", "2025-01-01")
	if len(refused) != 0 || !start.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) || !end.Equal(time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("%v %v %v", start, end, refused)
	}
	if s, e, refused := AuditPeriod("", ""); len(refused) != 0 || !s.IsZero() || !e.IsZero() {
		t.Fatalf("open period: %v %v %v", s, e, refused)
	}
	for _, c := range []struct{ from, to, field string }{
		{"1/1/2025", "", "From"},
		{"", "tomorrow", "To"},
		{"2025-02-01", "2025-01-31", "To"},
	} {
		if _, _, refused := AuditPeriod(c.from, c.to); len(refused) != 1 || refused[c.field] == "" {
			t.Errorf("%q %q: %v, want %s refused", c.from, c.to, refused, c.field)
		}
	}
}
