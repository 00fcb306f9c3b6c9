package anchor

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFetchGuardBudget: a participant is fetched at most fetchBurst times
// at once and then about fetchesPerSecond; past that the last answer is
// used again while younger than fetchReuse, and with none (every fetch
// still under way) the caller is told to come back (ErrFetchBudget).
func TestFetchGuardBudget(t *testing.T) {
	var hits atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		<-release
		w.Write([]byte("answer"))
	}))
	defer srv.Close()
	var g FetchGuard
	ctx := context.Background()
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

	// A burst at once: fetchBurst fetches under way, the next is refused.
	var wg sync.WaitGroup
	for range fetchBurst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, body, err := g.Get(ctx, srv.Client(), srv.URL, t0); err != nil || string(body) != "answer" {
				t.Errorf("fetch in the burst: %q %v", body, err)
			}
		}()
	}
	for hits.Load() < fetchBurst {
		time.Sleep(time.Millisecond)
	}
	if _, _, err := g.Get(ctx, srv.Client(), srv.URL, t0); !errors.As(err, new(ErrFetchBudget)) {
		t.Fatalf("past the burst with no answer yet: %v, want ErrFetchBudget", err)
	}
	close(release)
	wg.Wait()

	// Past the budget, the last answer again, without a fetch.
	if status, body, err := g.Get(ctx, srv.Client(), srv.URL, t0.Add(100*time.Millisecond)); err != nil || status != 200 || string(body) != "answer" {
		t.Fatalf("reused answer: %d %q %v", status, body, err)
	}
	if got := hits.Load(); got != fetchBurst {
		t.Fatalf("%d fetches, want %d", got, fetchBurst)
	}
	// A second later the budget allows one more fetch.
	if _, _, err := g.Get(ctx, srv.Client(), srv.URL, t0.Add(time.Second+100*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if got := hits.Load(); got != fetchBurst+1 {
		t.Fatalf("%d fetches after a second, want %d", got, fetchBurst+1)
	}
	// Another address has a budget of its own.
	if _, _, err := g.Get(ctx, srv.Client(), srv.URL+"/other", t0.Add(time.Second+200*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if got := hits.Load(); got != fetchBurst+2 {
		t.Fatalf("another address was not fetched: %d", got)
	}
}
