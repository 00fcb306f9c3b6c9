package web

import (
	"net/http"
	"net/http/pprof"
)

// PrivateHandler is what the private listener (--metrics-addr) serves:
// the Prometheus metrics at /metrics and Go's profiler at /debug/pprof/
// (CPU, heap, goroutines, mutex and block profiles, execution traces), so
// the next profile of a live server needs no perf. Never serve it on the
// public address.
func (s *Server) PrivateHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.MetricsHandler())
	mux.HandleFunc("/debug/pprof/", pprof.Index) // and every named profile under it
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
