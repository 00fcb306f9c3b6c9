package web_test

import (
	"net/http/httptest"
	"net/url"
	"runtime"
	"testing"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// mustAllocateUnder runs f and fails t when the heap allocations of the
// whole process (the test server's handlers too) during f exceed limit
// bytes; it returns what they were.
func mustAllocateUnder(t *testing.T, limit uint64, f func()) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	n := after.TotalAlloc - before.TotalAlloc
	if n > limit {
		t.Errorf("%d bytes allocated, want under %d", n, limit)
	}
	return n
}
