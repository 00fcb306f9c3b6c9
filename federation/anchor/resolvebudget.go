package anchor

import (
	"cmp"
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/trustframe/trustframe/clientlimit"
)

// A resolve is public and fetches statements (each up to 10 s): without
// a bound, anyone could hold as many outbound fetches open as they hold
// requests. Both anchors count resolves under way, in all and per client
// (an IPv6 client by its /64); past either, 429 with Retry-After. The
// standalone anchor's resolve may also look through every intermediate,
// so one resolve makes at most one fetch per configured subordinate plus
// maxResolveFetches for the chain itself (docs/design.md §8 and §13): an
// anchor with many intermediates still finds a leaf under its last one.
const (
	resolvesInFlight          = 32
	resolvesInFlightPerClient = 4
	maxResolveFetches         = 8
)

// NewResolveBudget is the count of resolves under way: all in all and
// perClient per client (clientlimit.Block); 0 is the default (32 and 4).
func NewResolveBudget(all, perClient int) *clientlimit.InFlight {
	return clientlimit.NewInFlight(cmp.Or(all, resolvesInFlight), cmp.Or(perClient, resolvesInFlightPerClient))
}

// WriteTooManyResolves answers a resolve past the budget of resolves
// under way: 429 temporarily_unavailable with Retry-After.
func WriteTooManyResolves(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	writeFedError(w, &Error{http.StatusTooManyRequests, "temporarily_unavailable", "too many resolve requests are under way; try again in a second"})
}

// peer is the client of the standalone anchor: the TCP peer. The anchor
// reads no forwarding header (it has no list of trusted proxies), so
// behind a reverse proxy every client counts as the proxy.
func peer(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// resolveFetches is the getFunc of one resolve: within each address's
// budget (Resolver.fetch), each URL fetched at most once, and at most max
// fetches in all; past that a fetch fails with errTooManyFetches and the
// resolve is refused (over reports it).
type resolveFetches struct {
	get  getFunc
	max  int
	made int
	over bool
	seen map[string]answer
}

type answer struct {
	status int
	body   []byte
	err    error
}

// errTooManyFetches: the resolve made as many fetches as it may.
var errTooManyFetches = errors.New("this resolve made as many fetches as one may")

func (r *Resolver) resolveFetches(now time.Time, intermediates int) *resolveFetches {
	return &resolveFetches{get: r.fetch(now), max: cmp.Or(r.maxResolveFetches, maxResolveFetches+intermediates), seen: map[string]answer{}}
}

func (f *resolveFetches) fetch(ctx context.Context, u string) (int, []byte, error) {
	if a, ok := f.seen[u]; ok {
		return a.status, a.body, a.err
	}
	if f.made >= f.max {
		f.over = true
		return 0, nil, errTooManyFetches
	}
	f.made++
	status, body, err := f.get(ctx, u)
	f.seen[u] = answer{status, body, err}
	return status, body, err
}

// tooManyFetches is the answer to a resolve that needed more fetches than
// it may make: the chain cannot be validated within the bound.
func tooManyFetches(sub string, max int) *Error {
	return chainError("a trust chain for %s was not found within %d fetches, the most one resolve makes", sub, max)
}
