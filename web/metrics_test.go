package web_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// The metrics count requests by route pattern (never by raw path), with a
// consistent duration histogram, in the Prometheus text format.
func TestMetrics(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	for i := 0; i < 3; i++ {
		a.must(200, "GET", "/organisations/"+id, "")
	}
	a.must(404, "GET", "/organisations/00000000-0000-4000-8000-000000000000", "")
	http.Get(env.URL + "/no/such/page")

	rec := httptest.NewRecorder()
	env.Server.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("content type %q", rec.Header().Get("Content-Type"))
	}
	for _, want := range []string{
		`trustframe_http_requests_total{code="200",method="GET",route="/api/organisations/{orgID}"} 3`,
		`trustframe_http_requests_total{code="404",method="GET",route="/api/organisations/{orgID}"} 1`,
		`trustframe_http_requests_total{code="201",method="POST",route="/api/organisations"} 1`,
		`trustframe_http_request_duration_seconds_count{route="/api/organisations/{orgID}"} 4`,
		`trustframe_http_request_duration_seconds_bucket{route="/api/organisations/{orgID}",le="+Inf"} 4`,
		`# TYPE trustframe_http_request_duration_seconds histogram`,
		`trustframe_build_info{`,
		`trustframe_outbox_undelivered 0`,
		`trustframe_goroutines `,
		`trustframe_heap_bytes `,
		`trustframe_start_time_seconds `,
		"\ngo_goroutines ",                 // the Go runtime collector
		"\nprocess_resident_memory_bytes ", // the process collector
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, id) || strings.Contains(body, "/no/such/page") {
		t.Error("a raw path became a label")
	}
	// Buckets are cumulative and end at the count.
	re := regexp.MustCompile(`(?m)^trustframe_http_request_duration_seconds_bucket\{route="/api/organisations/\{orgID\}",le="[^"]+"\} (\d+)$`)
	prev := -1
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[1])
		if n < prev {
			t.Fatalf("buckets not cumulative: %v", re.FindAllString(body, -1))
		}
		prev = n
	}
	if prev != 4 {
		t.Fatalf("last bucket %d, want 4", prev)
	}
	// Every line is a comment or "name{labels} value".
	line := regexp.MustCompile(`^[a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? [0-9.e+-]+$`)
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		if !strings.HasPrefix(l, "# ") && !line.MatchString(l) {
			t.Errorf("not exposition format: %q", l)
		}
	}
}

// TestMetricsMethodLabelIsBounded: a method the client makes up is counted
// as "other", not as a label of its own (each would be a series kept for
// good, so anyone could grow the metrics without bound).
func TestMetricsMethodLabelIsBounded(t *testing.T) {
	env := webtest.Start(t, nil)
	for _, m := range []string{"MADEUP1", "MADEUP2", "get"} {
		req, _ := http.NewRequest(m, env.URL+"/healthz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	rec := httptest.NewRecorder()
	env.Server.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	if strings.Contains(body, "MADEUP") || strings.Contains(body, `method="get"`) {
		t.Fatalf("a made-up method became a label:\n%s", body)
	}
	if !strings.Contains(body, `method="other"`) {
		t.Fatal(`no method="other"`)
	}
}
