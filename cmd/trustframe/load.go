package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/trustframe/trustframe/dpop"
)

// randPlaceholder is {rand:N} in a load path: a random integer in [0, N).
var randPlaceholder = regexp.MustCompile(`\{rand:([0-9]+)\}`)

// loadRequest is one prepared request of a load run.
type loadRequest struct {
	path   int // index of its path template
	target string
	proof  string
}

type loadResult struct {
	path    int
	status  int
	latency time.Duration
	err     error
}

// cmdLoad is the load generator: it sends API reads (GET) as the signed-in
// user, many at once, and reports throughput and latency percentiles per
// path. DPoP proofs are signed before the clock starts, so the client's
// signing is not counted as the server's time.
func cmdLoad(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	dir := fs.String("config-dir", "", "where the DPoP key and tokens are kept (sign in first with trustframe login)")
	requests := fs.Int("requests", 5000, "requests to time, spread over the paths in turn")
	warmup := fs.Int("warmup", 200, "requests sent first and not counted")
	concurrency := fs.Int("concurrency", 4, "requests in flight at once")
	pos, err := parseMixed(fs, args, getenv, stderr)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: trustframe load [flags] PATH... (GET paths under /api; {rand:N} becomes a random number below N)", errUsage)
	}
	if *requests < 1 || *warmup < 0 || *concurrency < 1 || *concurrency > 1024 {
		return fmt.Errorf("%w: --requests ≥ 1, --warmup ≥ 0 and 1 ≤ --concurrency ≤ 1024", errUsage)
	}
	for _, p := range pos {
		for _, m := range randPlaceholder.FindAllStringSubmatch(p, -1) {
			if n, err := strconv.Atoi(m[1]); err != nil || n < 1 {
				return fmt.Errorf("%w: %s: {rand:N} needs N ≥ 1", errUsage, p)
			}
		}
	}
	// A run must not outlive its token: refresh when less than 5 minutes are left.
	_, c, key, err := signedIn(ctx, getenv, *dir, stdout, stderr, 5*time.Minute)
	if err != nil {
		return err
	}
	dpopBound := strings.EqualFold(c.TokenType, "DPoP")

	total := *warmup + *requests
	prepStart := time.Now()
	prepared, err := prepareLoad(pos, total, c, key, dpopBound)
	if err != nil {
		return err
	}
	scheme := "Bearer"
	if dpopBound {
		scheme = "DPoP"
	}
	fmt.Fprintf(stdout, "Prepared %d requests (%s token of %s) in %s; %d in flight at once.\n",
		total, scheme, c.Email, time.Since(prepStart).Round(time.Millisecond), *concurrency)

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: *concurrency, MaxIdleConnsPerHost: *concurrency, IdleConnTimeout: time.Minute,
	}}
	defer client.CloseIdleConnections()
	send := func(r loadRequest) loadResult {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.target, nil)
		if err != nil {
			return loadResult{path: r.path, err: err}
		}
		req.Header.Set("Accept", "application/json")
		if r.proof != "" {
			req.Header.Set("Authorization", "DPoP "+c.AccessToken)
			req.Header.Set("DPoP", r.proof)
		} else {
			req.Header.Set("Authorization", "Bearer "+c.AccessToken)
		}
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return loadResult{path: r.path, err: err}
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return loadResult{path: r.path, status: resp.StatusCode, latency: time.Since(start)}
	}
	runAll := func(batch []loadRequest) ([]loadResult, time.Duration) {
		results := make([]loadResult, len(batch))
		next := make(chan int)
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < *concurrency; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					results[i] = send(batch[i])
				}
			}()
		}
		for i := range batch {
			if ctx.Err() != nil {
				break
			}
			next <- i
		}
		close(next)
		wg.Wait()
		return results, time.Since(start)
	}
	if *warmup > 0 {
		res, _ := runAll(prepared[:*warmup])
		for _, r := range res {
			if r.err != nil {
				return fmt.Errorf("warm-up: %s: %w", pos[r.path], r.err)
			}
		}
	}
	results, elapsed := runAll(prepared[*warmup:])
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return reportLoad(stdout, pos, results, elapsed)
}

// prepareLoad makes the total requests over the paths in turn, each with
// its {rand:N} drawn and, for a DPoP-bound token, its proof signed.
func prepareLoad(pos []string, total int, c *credentials, key *dpop.Signer, dpopBound bool) ([]loadRequest, error) {
	prepared := make([]loadRequest, total)
	for i := range prepared {
		pi := i % len(pos)
		p := randPlaceholder.ReplaceAllStringFunc(pos[pi], func(m string) string {
			n, _ := strconv.Atoi(randPlaceholder.FindStringSubmatch(m)[1])
			return strconv.Itoa(rand.IntN(n))
		})
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		target := c.Server + "/api" + escapePath(p)
		r := loadRequest{path: pi, target: target}
		if dpopBound {
			u, err := url.Parse(target)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", errUsage, pos[pi], err)
			}
			r.proof, err = key.Proof(http.MethodGet, u.Scheme+"://"+u.Host+u.EscapedPath(), c.AccessToken, c.Nonce)
			if err != nil {
				return nil, err
			}
		}
		prepared[i] = r
	}
	return prepared, nil
}

// reportLoad prints one line per path and a total; it fails when any
// request failed or answered other than 2xx.
func reportLoad(w io.Writer, paths []string, results []loadResult, elapsed time.Duration) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "requests\tfailed\tp50\tp90\tp99\tmax\t  path")
	var all []time.Duration
	failures := map[string]int{}
	line := func(name string, lat []time.Duration, failed int) {
		slices.Sort(lat)
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t  %s\n", len(lat)+failed, failed,
			pct(lat, 50), pct(lat, 90), pct(lat, 99), pct(lat, 100), name)
	}
	for pi, p := range paths {
		var lat []time.Duration
		failed := 0
		for _, r := range results {
			if r.path != pi {
				continue
			}
			switch {
			case r.err != nil:
				failed++
				failures[r.err.Error()]++
			case r.status < 200 || r.status > 299:
				failed++
				failures[fmt.Sprintf("HTTP %d from %s", r.status, p)]++
			default:
				lat = append(lat, r.latency)
			}
		}
		all = append(all, lat...)
		line(p, lat, failed)
	}
	nFailed := len(results) - len(all)
	if len(paths) > 1 {
		line("(all)", all, nFailed)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d requests in %s: %.0f requests/s\n", len(results), elapsed.Round(time.Millisecond),
		float64(len(results))/elapsed.Seconds())
	if nFailed == 0 {
		return nil
	}
	keys := make([]string, 0, len(failures))
	for k := range failures {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "failed: %d × %s\n", failures[k], k)
	}
	return &exitError{code: 1, err: errors.New("some requests failed")}
}

// pct is the p-th percentile of sorted latencies (nearest rank), shown in
// microseconds or milliseconds.
func pct(sorted []time.Duration, p int) string {
	if len(sorted) == 0 {
		return "-"
	}
	i := (len(sorted)*p + 99) / 100
	if i < 1 {
		i = 1
	}
	d := sorted[i-1]
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}
