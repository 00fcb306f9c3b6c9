package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// fakeBuild is a build whose every call waits for the test to release it.
type fakeBuild struct {
	mu      sync.Mutex
	calls   int
	started chan int
	release chan any // the value to build, or an error
}

func newFakeBuild() *fakeBuild {
	return &fakeBuild{started: make(chan int, 10), release: make(chan any)}
}

func (f *fakeBuild) build(ctx context.Context) ([]byte, error) {
	v, err := f.value(ctx)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// value is what build is released with, as a value.
func (f *fakeBuild) value(context.Context) (any, error) {
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.mu.Unlock()
	f.started <- n
	v := <-f.release
	if err, ok := v.(error); ok {
		return nil, err
	}
	return v, nil
}

func (f *fakeBuild) count() int { f.mu.Lock(); defer f.mu.Unlock(); return f.calls }

// waitBuilt waits for the running rebuild to end.
func waitBuilt(c *publicCache) {
	c.mu.Lock()
	done := c.built
	c.mu.Unlock()
	<-done
}

func body(a *publicAnswer) string { return string(a.Body) }

// TestPublicCacheServesStaleWhileRebuilding: after a change the previous
// answer is served at once while one rebuild runs; when it ends the new
// answer is served under a new ETag and Last-Modified; a rebuild that finds
// nothing new keeps both; a failed rebuild keeps the answer; rebuilds are
// at most one per interval.
func TestPublicCacheServesStaleWhileRebuilding(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := &publicCache{rebuilt[*publicAnswer]{now: clock}}
	f := newFakeBuild()
	ctx := context.Background()

	// The first request has nothing to serve: it waits for the build.
	first := make(chan *publicAnswer)
	go func() {
		a, err := c.get(ctx, 1, f.build)
		if err != nil {
			t.Error(err)
		}
		first <- a
	}()
	<-f.started
	select {
	case <-first:
		t.Fatal("the first request was answered before anything was built")
	default:
	}
	f.release <- []string{"A"}
	a1 := <-first
	if body(a1) != `["A"]` {
		t.Fatalf("first answer %s", a1.Body)
	}

	// The store changes: the old answer is served at once, one rebuild runs.
	advance(rebuildEvery + time.Second)
	for range 3 {
		a, err := c.get(ctx, 2, f.build)
		if err != nil || a != a1 {
			t.Fatalf("during the rebuild: %v %s, want the previous answer", err, a.Body)
		}
	}
	<-f.started
	if f.count() != 2 {
		t.Fatalf("%d builds, want 2 (one rebuild for three requests)", f.count())
	}
	advance(3 * time.Millisecond)
	f.release <- []string{"A", "B"}
	waitBuilt(c)
	a2, _ := c.get(ctx, 2, f.build)
	if body(a2) != `["A","B"]` || a2.ETag == a1.ETag || !a2.Modified.After(a1.Modified) {
		t.Fatalf("after the rebuild: %s etag %s (was %s), modified %v (was %v)", a2.Body, a2.ETag, a1.ETag, a2.Modified, a1.Modified)
	}

	// Another change within the interval: served as is, no rebuild yet.
	a, _ := c.get(ctx, 3, f.build)
	if a != a2 || f.count() != 2 {
		t.Fatalf("within the interval: %d builds", f.count())
	}
	// After the interval: a rebuild that finds the same list keeps the
	// ETag and Last-Modified (nothing a client has changed).
	advance(rebuildEvery)
	c.get(ctx, 3, f.build)
	<-f.started
	f.release <- []string{"A", "B"}
	waitBuilt(c)
	a3, _ := c.get(ctx, 3, f.build)
	if a3.Version != 3 || a3.ETag != a2.ETag || !a3.Modified.Equal(a2.Modified) {
		t.Fatalf("same list: etag %s (was %s), modified %v (was %v)", a3.ETag, a2.ETag, a3.Modified, a2.Modified)
	}

	// A failed rebuild keeps the answer.
	advance(time.Minute)
	c.get(ctx, 4, f.build)
	<-f.started
	f.release <- errors.New("database gone")
	waitBuilt(c)
	if a, err := c.get(ctx, 4, f.build); err != nil || a != a3 {
		t.Fatalf("after a failed rebuild: %v", err)
	}
	if f.count() != 4 {
		t.Fatalf("%d builds: a rebuild started within the interval of the failed one", f.count())
	}
	advance(rebuildEvery)
	if a, err := c.get(ctx, 4, f.build); err != nil || a != a3 {
		t.Fatalf("after a failed rebuild: %v", err)
	}
	<-f.started // the next request past the interval tries again
	f.release <- []string{"A", "B", "C"}
	waitBuilt(c)

	// The HTTP side: ETag, Last-Modified, 304 for either validator.
	a4, _ := c.get(ctx, 4, f.build)
	rec := httptest.NewRecorder()
	a4.serve(rec, httptest.NewRequest("GET", "/api/participants", nil), "60")
	if rec.Code != 200 || rec.Header().Get("ETag") != a4.ETag || rec.Header().Get("Last-Modified") != a4.Modified.Format(http.TimeFormat) || rec.Body.String() != `["A","B","C"]` {
		t.Fatalf("serve: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	for _, h := range [][2]string{{"If-None-Match", a4.ETag}, {"If-Modified-Since", a4.Modified.Format(http.TimeFormat)}} {
		req := httptest.NewRequest("GET", "/api/participants", nil)
		req.Header.Set(h[0], h[1])
		rec := httptest.NewRecorder()
		a4.serve(rec, req, "60")
		if rec.Code != http.StatusNotModified {
			t.Fatalf("%s: %d", h[0], rec.Code)
		}
	}
	req := httptest.NewRequest("GET", "/api/participants", nil)
	req.Header.Set("If-Modified-Since", a4.Modified.Add(-time.Second).Format(http.TimeFormat))
	rec = httptest.NewRecorder()
	a4.serve(rec, req, "60")
	if rec.Code != 200 {
		t.Fatalf("If-Modified-Since before the change: %d", rec.Code)
	}
}

// TestPublicCacheNeverGoesBack: a rebuild started from an older store
// version than the answer in hand does not replace it.
func TestPublicCacheNeverGoesBack(t *testing.T) {
	c := &publicCache{}
	f := newFakeBuild()
	ctx := context.Background()
	go func() { f.release <- []string{"new"} }()
	if a, err := c.get(ctx, 5, f.build); err != nil || body(a) != `["new"]` {
		t.Fatalf("%v %v", a, err)
	}
	<-f.started
	// A request that read the store version before the last build (5)
	// asks with 4: whatever it builds must not replace version 5.
	c.mu.Lock()
	c.lastBuild = time.Time{}
	c.mu.Unlock()
	c.get(ctx, 4, f.build)
	<-f.started
	f.release <- []string{"old"}
	waitBuilt(c)
	if a, _ := c.get(ctx, 5, f.build); body(a) != `["new"]` || a.Version != 5 {
		t.Fatalf("went back to %s (version %d)", a.Body, a.Version)
	}
}

// TestRebuildsArePacedByTheirLength: under a steady stream of changes a
// rebuild that took long is not followed at once by the next one: the next
// starts no sooner than three times its length after it started, so that
// rebuilding a large list keeps to a third of a core.
func TestRebuildsArePacedByTheirLength(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := &rebuilt[[]string]{now: clock}
	f := newFakeBuild()
	build := func(ctx context.Context) ([]string, error) {
		v, err := f.value(ctx)
		if err != nil {
			return nil, err
		}
		return v.([]string), nil
	}
	ctx := context.Background()
	go func() { <-f.started; advance(4 * time.Second); f.release <- []string{"A"} }() // the first build takes 4 s
	if v, err := c.get(ctx, 1, build); err != nil || v.val[0] != "A" {
		t.Fatalf("%v %v", v, err)
	}
	// 4 s after the first build started; a change: not before 12 s.
	for _, at := range []time.Duration{time.Second, 4 * time.Second} {
		advance(at)
		if v, _ := c.get(ctx, 2, build); v.val[0] != "A" || rebuilding(c) {
			t.Fatalf("a rebuild started %v into the pause", at)
		}
	}
	advance(3 * time.Second) // 12 s after the first build started
	c.get(ctx, 2, build)
	if !rebuilding(c) {
		t.Fatal("no rebuild once the pause is over")
	}
	<-f.started
	f.release <- []string{"B"}
	waitRebuilt(c)
	// A quick rebuild brings the pause back to its least.
	advance(rebuildEvery)
	c.get(ctx, 3, build)
	<-f.started
	f.release <- []string{"C"}
	waitRebuilt(c)
	if v, _ := c.get(ctx, 3, build); v.val[0] != "C" || f.count() != 3 {
		t.Fatalf("%v after %d builds", v.val, f.count())
	}
}

func rebuilding[T any](c *rebuilt[T]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.building
}

func waitRebuilt[T any](c *rebuilt[T]) {
	c.mu.Lock()
	done := c.built
	c.mu.Unlock()
	<-done
}

// TestLastModifiedIsWhenTheBuildBegan: two instances each build the list.
// A's build starts first and is slow; a change lands; B's build starts
// after it, holds it and ends first. A client that read A's list and asks
// B with A's Last-Modified must get B's list, not a 304: each date is when
// its build began to read (stamped at the end, A's would be the later one
// and B would answer 304 for a change the client has not seen).
func TestLastModifiedIsWhenTheBuildBegan(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	a := &publicCache{rebuilt[*publicAnswer]{now: clock}}
	b := &publicCache{rebuilt[*publicAnswer]{now: clock}}
	fa, fb := newFakeBuild(), newFakeBuild()
	ctx := context.Background()

	gotA := make(chan *publicAnswer)
	go func() {
		ans, err := a.get(ctx, 1, fa.build)
		if err != nil {
			t.Error(err)
		}
		gotA <- ans
	}()
	<-fa.started         // A begins to read: the store without the change
	advance(time.Second) // the change is committed
	advance(time.Second) // B begins to read: the store with it
	gotB := make(chan *publicAnswer)
	go func() {
		ans, err := b.get(ctx, 2, fb.build)
		if err != nil {
			t.Error(err)
		}
		gotB <- ans
	}()
	<-fb.started
	advance(time.Second)
	fb.release <- []string{"old", "change"}
	ansB := <-gotB
	advance(10 * time.Second) // A is slow
	fa.release <- []string{"old"}
	ansA := <-gotA

	if !ansB.Modified.After(ansA.Modified) {
		t.Fatalf("B's list holds the change but is dated %v, A's without it %v", ansB.Modified, ansA.Modified)
	}
	req := httptest.NewRequest("GET", "/api/participants", nil)
	req.Header.Set("If-Modified-Since", ansA.Modified.Format(http.TimeFormat))
	rec := httptest.NewRecorder()
	ansB.serve(rec, req, "60")
	if rec.Code != http.StatusOK || rec.Body.String() != `["old","change"]` {
		t.Fatalf("B answered A's Last-Modified with %d %q, want its list", rec.Code, rec.Body)
	}
}
