package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
)

// metrics counts requests and their durations by route pattern (a bounded
// set: the router's patterns, not the paths), for the Prometheus text
// exposition at --metrics-addr.
type metrics struct {
	mu       sync.Mutex
	requests map[requestKey]uint64
	latency  map[string]*histogram // by route
}

type requestKey struct {
	route, method string
	code          int
}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

// latencyBuckets are the upper bounds of the duration histogram, seconds.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

func newMetrics() *metrics {
	return &metrics{requests: map[requestKey]uint64{}, latency: map[string]*histogram{}}
}

func (m *metrics) observe(route, method string, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[requestKey{route, method, code}]++
	h := m.latency[route]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets)+1)}
		m.latency[route] = h
	}
	s := d.Seconds()
	i, _ := slices.BinarySearch(latencyBuckets, s)
	h.counts[i]++
	h.sum += s
	h.n++
}

// routeOf is the route pattern the router matched, "unmatched" for none.
func routeOf(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return strings.TrimSuffix(p, "/*")
		}
	}
	return "unmatched"
}

func label(v string) string {
	return strconv.Quote(v) // Prometheus label values escape like Go strings for \, " and newlines
}

// MetricsHandler serves the metrics in the Prometheus text format. Serve it
// on a separate, private address (--metrics-addr), not the public one.
func (s *Server) MetricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		s.writeMetrics(r.Context(), w)
	})
}

func (s *Server) writeMetrics(ctx context.Context, w io.Writer) {
	m := s.metrics
	m.mu.Lock()
	keys := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b requestKey) int {
		return strings.Compare(fmt.Sprint(a.route, a.method, a.code), fmt.Sprint(b.route, b.method, b.code))
	})
	fmt.Fprintln(w, "# HELP trustframe_http_requests_total HTTP requests answered, by route pattern, method and status code.")
	fmt.Fprintln(w, "# TYPE trustframe_http_requests_total counter")
	for _, k := range keys {
		fmt.Fprintf(w, "trustframe_http_requests_total{route=%s,method=%s,code=\"%d\"} %d\n", label(k.route), label(k.method), k.code, m.requests[k])
	}
	routes := make([]string, 0, len(m.latency))
	for r := range m.latency {
		routes = append(routes, r)
	}
	slices.Sort(routes)
	fmt.Fprintln(w, "# HELP trustframe_http_request_duration_seconds Time to answer HTTP requests, by route pattern.")
	fmt.Fprintln(w, "# TYPE trustframe_http_request_duration_seconds histogram")
	for _, route := range routes {
		h := m.latency[route]
		var cum uint64
		for i, le := range latencyBuckets {
			cum += h.counts[i]
			fmt.Fprintf(w, "trustframe_http_request_duration_seconds_bucket{route=%s,le=\"%g\"} %d\n", label(route), le, cum)
		}
		fmt.Fprintf(w, "trustframe_http_request_duration_seconds_bucket{route=%s,le=\"+Inf\"} %d\n", label(route), h.n)
		fmt.Fprintf(w, "trustframe_http_request_duration_seconds_sum{route=%s} %g\n", label(route), h.sum)
		fmt.Fprintf(w, "trustframe_http_request_duration_seconds_count{route=%s} %d\n", label(route), h.n)
	}
	m.mu.Unlock()

	fmt.Fprintln(w, "# HELP trustframe_build_info The running version.")
	fmt.Fprintln(w, "# TYPE trustframe_build_info gauge")
	fmt.Fprintf(w, "trustframe_build_info{version=%s,goversion=%s} 1\n", label(s.cfg.Version), label(runtime.Version()))
	fmt.Fprintln(w, "# HELP trustframe_start_time_seconds When the service started (Unix time).")
	fmt.Fprintln(w, "# TYPE trustframe_start_time_seconds gauge")
	fmt.Fprintf(w, "trustframe_start_time_seconds %d\n", s.started.Unix())
	fmt.Fprintln(w, "# HELP trustframe_goroutines Goroutines now.")
	fmt.Fprintln(w, "# TYPE trustframe_goroutines gauge")
	fmt.Fprintf(w, "trustframe_goroutines %d\n", runtime.NumGoroutine())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintln(w, "# HELP trustframe_heap_bytes Bytes of allocated heap objects.")
	fmt.Fprintln(w, "# TYPE trustframe_heap_bytes gauge")
	fmt.Fprintf(w, "trustframe_heap_bytes %d\n", ms.HeapAlloc)
	if s.cfg.DataDir != "" {
		var size int64
		for _, f := range []string{"trustframe.db", "trustframe.db-wal"} {
			if st, err := os.Stat(filepath.Join(s.cfg.DataDir, f)); err == nil {
				size += st.Size()
			}
		}
		fmt.Fprintln(w, "# HELP trustframe_database_bytes Size of the SQLite database and its write-ahead log.")
		fmt.Fprintln(w, "# TYPE trustframe_database_bytes gauge")
		fmt.Fprintf(w, "trustframe_database_bytes %d\n", size)
	}
	if undelivered, err := s.db.UndeliveredMessages(ctx); err == nil {
		fmt.Fprintln(w, "# HELP trustframe_outbox_undelivered Messages in the outbox that SMTP has not taken (or no SMTP is configured).")
		fmt.Fprintln(w, "# TYPE trustframe_outbox_undelivered gauge")
		fmt.Fprintf(w, "trustframe_outbox_undelivered %d\n", undelivered)
	}
}
