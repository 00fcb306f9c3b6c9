package anchor

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// A resolver fetches the subject's entity configuration (and an
// intermediate's statement) for every resolve request, and resolve is
// public: without a bound, anyone could make the directory or the anchor
// call a participant as often as they call us. FetchGuard bounds the calls
// per address instead (docs/design.md §8 and §13): fetchesPerSecond on
// average, fetchBurst at once; past that, the last answer fetched (younger
// than fetchReuse) is used again, and without one the resolve is refused
// as temporarily unavailable (ErrFetchBudget). An ordinary relying party
// never meets the bound.
const (
	fetchesPerSecond = 1
	fetchBurst       = 30
	fetchReuse       = time.Minute
	maxFetchEntries  = 10_000
)

// FetchGuard is ready to use as its zero value.
type FetchGuard struct {
	mu sync.Mutex
	m  map[string]*fetched
}

// fetched is the last answer from one address, and its address's budget.
type fetched struct {
	lim    *rate.Limiter
	at     time.Time // when the answer below was fetched; zero: none yet
	status int
	body   []byte
	err    error // the fetch failed (no answer)
}

// ErrFetchBudget: the address was fetched as often as it may be, and no
// recent answer is kept (503 temporarily_unavailable, Retry-After).
type ErrFetchBudget struct{}

func (ErrFetchBudget) Error() string { return "fetched too often; try again in a few seconds" }

// Get answers GET u (its status and at most 512 KiB of its body), within u's budget. now is the request's time.
func (g *FetchGuard) Get(ctx context.Context, client *http.Client, u string, now time.Time) (status int, body []byte, err error) {
	g.mu.Lock()
	if g.m == nil || len(g.m) >= maxFetchEntries {
		g.m = map[string]*fetched{}
	}
	f := g.m[u]
	if f == nil {
		f = &fetched{lim: rate.NewLimiter(fetchesPerSecond, fetchBurst)}
		g.m[u] = f
	}
	if !f.lim.AllowN(now, 1) {
		defer g.mu.Unlock()
		if f.at.IsZero() || now.Sub(f.at) > fetchReuse || now.Before(f.at) {
			return 0, nil, ErrFetchBudget{}
		}
		return f.status, f.body, f.err
	}
	g.mu.Unlock()

	status, body, err = fetchOnce(ctx, client, u)
	g.mu.Lock()
	if f.at.IsZero() || !now.Before(f.at) {
		f.at, f.status, f.body, f.err = now, status, body, err
	}
	g.mu.Unlock()
	return status, body, err
}

// fetchOnce reads at most 512 KiB of GET u, with 10 s for the whole call.
func fetchOnce(ctx context.Context, client *http.Client, u string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 512<<10))
	if err != nil {
		return 0, nil, ErrUnreadable{err}
	}
	return resp.StatusCode, b, nil
}

// ErrUnreadable: an answer came but its body could not be read.
type ErrUnreadable struct{ error }
