package web

import (
	"testing"
	"time"
)

// TestRateLimiterBuckets: a minute's worth as burst, then one token per
// 60/perMinute seconds, per key; the wait it reports is when the next
// token comes.
func TestRateLimiterBuckets(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newRateLimiter(60, func() time.Time { return now })
	for i := range 60 {
		if ok, _ := l.allow("a"); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	ok, wait := l.allow("a")
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("past the burst: ok %v, wait %v; want refused, about 1 s", ok, wait)
	}
	if ok, _ := l.allow("b"); !ok {
		t.Fatal("another key is limited by the first")
	}
	now = now.Add(time.Second)
	if ok, _ := l.allow("a"); !ok {
		t.Fatal("a token did not come back after a second")
	}
	if ok, _ := l.allow("a"); ok {
		t.Fatal("two tokens after one second")
	}
	// Unused for minutes: dropped, and full again.
	now = now.Add(3 * time.Minute)
	l.allow("c")
	if _, kept := l.buckets["a"]; kept {
		t.Fatal("an idle bucket was kept")
	}
	if off := newRateLimiter(0, time.Now); !func() bool { ok, _ := off.allow("x"); return ok }() {
		t.Fatal("0 per minute must mean off")
	}
}
