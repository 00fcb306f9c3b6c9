package handlers

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/trustframe/trustframe/participants"
)

// TestServeAnswer: the answer goes with its ETag and Last-Modified; either
// validator matching is a 304, an If-Modified-Since before the change
// gets the body, and a client that takes gzip gets it gzipped.
func TestServeAnswer(t *testing.T) {
	modified := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := participants.NewAnswer(4, modified, []byte(`["A","B","C"]`))
	serve := func(header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/api/participants", nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		serveAnswer(rec, req, a, "60")
		return rec
	}
	rec := serve()
	if rec.Code != 200 || rec.Header().Get("ETag") != a.ETag || rec.Header().Get("Last-Modified") != modified.Format(http.TimeFormat) || rec.Body.String() != `["A","B","C"]` {
		t.Fatalf("serve: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	for _, h := range [][2]string{{"If-None-Match", a.ETag}, {"If-Modified-Since", modified.Format(http.TimeFormat)}} {
		if rec := serve(h[0], h[1]); rec.Code != http.StatusNotModified {
			t.Fatalf("%s: %d", h[0], rec.Code)
		}
	}
	if rec := serve("If-Modified-Since", modified.Add(-time.Second).Format(http.TimeFormat)); rec.Code != 200 {
		t.Fatalf("If-Modified-Since before the change: %d", rec.Code)
	}
	rec = serve("Accept-Encoding", "gzip")
	zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil || rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip: %v %v", err, rec.Header())
	}
	if b, _ := io.ReadAll(zr); string(b) != `["A","B","C"]` {
		t.Fatalf("gzipped body %q", b)
	}
}
