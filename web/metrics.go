package web

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics counts requests and their durations by route pattern (a bounded
// set: the router's patterns, not the paths), exposed with the Prometheus
// client library at --metrics-addr, together with its Go runtime and
// process collectors. Each server has its own registry (no global state).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// latencyBuckets are the upper bounds of the duration histogram, seconds.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

func (s *Server) newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trustframe_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "trustframe_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route pattern.",
			Buckets: latencyBuckets,
		}, []string{"route"}),
	}
	buildInfo := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "trustframe_build_info", Help: "The running version."},
		[]string{"version", "goversion"})
	buildInfo.WithLabelValues(s.cfg.Version, runtime.Version()).Set(1)
	start := prometheus.NewGauge(prometheus.GaugeOpts{Name: "trustframe_start_time_seconds", Help: "When the service started (Unix time)."})
	start.Set(float64(s.started.Unix()))
	m.reg.MustRegister(m.requests, m.latency, buildInfo, start,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "trustframe_goroutines", Help: "Goroutines now."},
			func() float64 { return float64(runtime.NumGoroutine()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "trustframe_heap_bytes", Help: "Bytes of allocated heap objects."},
			func() float64 {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				return float64(ms.HeapAlloc)
			}),
		&storeCollector{s: s},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

func (m *metrics) observe(route, method string, code int, d time.Duration) {
	m.requests.WithLabelValues(route, methodLabel(method), strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// storeCollector reports the database's size and the undelivered outbox
// messages at each scrape (nothing when they cannot be read).
type storeCollector struct{ s *Server }

var (
	dbBytesDesc = prometheus.NewDesc("trustframe_database_bytes", "Size of the SQLite database and its write-ahead log.", nil, nil)
	outboxDesc  = prometheus.NewDesc("trustframe_outbox_undelivered", "Messages in the outbox that SMTP has not taken (or no SMTP is configured).", nil, nil)
)

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- dbBytesDesc
	ch <- outboxDesc
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	if dir := c.s.cfg.DataDir; dir != "" {
		var size int64
		for _, f := range []string{"trustframe.db", "trustframe.db-wal"} {
			if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
				size += st.Size()
			}
		}
		ch <- prometheus.MustNewConstMetric(dbBytesDesc, prometheus.GaugeValue, float64(size))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if n, err := c.s.db.UndeliveredMessages(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, float64(n))
	}
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

// MetricsHandler serves the metrics in the Prometheus exposition format.
// Serve it on a separate, private address (--metrics-addr), not the public
// one.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}

// methodLabel is the method as a label: a method of RFC 9110, or "other".
// The method is whatever the client sent (any token), and every label
// value is a series kept for good: anyone could otherwise grow the
// metrics without bound, one made-up method per request.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}
