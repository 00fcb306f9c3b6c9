package webhooks_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/webhooks"
)

// busyStore always has deliveries due and counts how often the deliverer
// looks at it.
type busyStore struct {
	claims, nexts atomic.Int64
	mu            sync.Mutex
	id            int64
}

func (s *busyStore) ClaimDeliveries(_ context.Context, _ string, _ time.Time, _ time.Duration, n int) ([]store.DueDelivery, error) {
	s.claims.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]store.DueDelivery, n)
	for i := range out {
		s.id++
		out[i] = store.DueDelivery{DeliveryID: s.id, Epoch: "0123456789abcdef0123456789abcdef", WebhookID: "w", URL: "https://receiver.example/hook"}
	}
	return out, nil
}

func (s *busyStore) FinishDelivery(context.Context, string, store.DueDelivery, store.DeliveryOutcome) error {
	return nil
}

func (s *busyStore) NextDeliveryDue(context.Context) (time.Time, bool, error) {
	s.nexts.Add(1)
	return time.Now().Add(-time.Second), true, nil // more is due already
}

func (s *busyStore) NextCommit() <-chan struct{} { return make(chan struct{}) }

// hangingTransport answers nothing until the request is abandoned.
type hangingTransport struct{}

func (hangingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// TestDelivererWaitsWhileEveryWorkerIsBusy: with every worker held by a
// receiver that hangs (and more due), the deliverer waits for a worker to
// be freed instead of looking at the store every few milliseconds.
func TestDelivererWaitsWhileEveryWorkerIsBusy(t *testing.T) {
	st := &busyStore{}
	d := &webhooks.Deliverer{
		Store:   st,
		Open:    func(string, []byte) ([]byte, error) { return make([]byte, 32), nil },
		Client:  &http.Client{Transport: hangingTransport{}},
		Timeout: time.Minute,
		Workers: 2,
		Poll:    100 * time.Millisecond,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	time.Sleep(500 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the deliverer did not stop with its context")
	}
	if c, n := st.claims.Load(), st.nexts.Load(); c != 1 || n > 1 {
		t.Fatalf("in 500 ms with every worker busy: %d claims and %d looks for the next due delivery, want 1 claim and no polling", c, n)
	}
}
