package rebuild

import (
	"context"
	"errors"
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

func (f *fakeBuild) build(context.Context) ([]string, error) {
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.mu.Unlock()
	f.started <- n
	v := <-f.release
	if err, ok := v.(error); ok {
		return nil, err
	}
	return v.([]string), nil
}

func (f *fakeBuild) count() int { f.mu.Lock(); defer f.mu.Unlock(); return f.calls }

// testClock is a clock the test moves on.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *testClock { return &testClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *testClock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func rebuilding[T any](c *Cache[T]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.building
}

// waitRebuilt waits for the running rebuild to end.
func waitRebuilt[T any](c *Cache[T]) {
	c.mu.Lock()
	done := c.built
	c.mu.Unlock()
	<-done
}

// TestServesStaleWhileRebuilding: the first request waits for the build;
// after a change the previous value is served at once while one rebuild
// runs, and the new one when it ends; a failed rebuild keeps the value;
// rebuilds are at most one per interval.
func TestServesStaleWhileRebuilding(t *testing.T) {
	clock := newClock()
	c := &Cache[[]string]{Now: clock.Now}
	f := newFakeBuild()
	ctx := context.Background()

	first := make(chan *Version[[]string])
	go func() {
		v, err := c.Get(ctx, 1, f.build)
		if err != nil {
			t.Error(err)
		}
		first <- v
	}()
	<-f.started
	select {
	case <-first:
		t.Fatal("the first request was answered before anything was built")
	default:
	}
	f.release <- []string{"A"}
	v1 := <-first
	if v1.Val[0] != "A" || v1.Store != 1 {
		t.Fatalf("first value %v", v1)
	}

	// The store changes: the old value is served at once, one rebuild runs.
	clock.advance(every + time.Second)
	for range 3 {
		if v, err := c.Get(ctx, 2, f.build); err != nil || v != v1 {
			t.Fatalf("during the rebuild: %v %v, want the previous value", err, v)
		}
	}
	<-f.started
	if f.count() != 2 {
		t.Fatalf("%d builds, want 2 (one rebuild for three requests)", f.count())
	}
	f.release <- []string{"B"}
	waitRebuilt(c)
	v2, _ := c.Get(ctx, 2, f.build)
	if v2.Val[0] != "B" || v2.Store != 2 {
		t.Fatalf("after the rebuild: %v", v2)
	}

	// Another change within the interval: served as is, no rebuild yet.
	if v, _ := c.Get(ctx, 3, f.build); v != v2 || f.count() != 2 {
		t.Fatalf("within the interval: %d builds", f.count())
	}

	// A failed rebuild keeps the value, and the next waits its interval.
	clock.advance(time.Minute)
	c.Get(ctx, 3, f.build)
	<-f.started
	f.release <- errors.New("database gone")
	waitRebuilt(c)
	if v, err := c.Get(ctx, 3, f.build); err != nil || v != v2 || f.count() != 3 {
		t.Fatalf("after a failed rebuild: %v, %d builds", err, f.count())
	}
	clock.advance(every)
	c.Get(ctx, 3, f.build)
	<-f.started // the next request past the interval tries again
	f.release <- []string{"C"}
	waitRebuilt(c)
	if v, _ := c.Get(ctx, 3, f.build); v.Val[0] != "C" {
		t.Fatalf("after the retry: %v", v.Val)
	}
}

// TestFirstBuildFails: with nothing to serve, the failure of the first
// build is the request's.
func TestFirstBuildFails(t *testing.T) {
	c := &Cache[[]string]{}
	f := newFakeBuild()
	go func() { f.release <- errors.New("database gone") }()
	if v, err := c.Get(context.Background(), 1, f.build); err == nil {
		t.Fatalf("got %v, want the build's error", v)
	}
}

// TestNeverGoesBack: a rebuild started from an older store version than
// the value in hand does not replace it.
func TestNeverGoesBack(t *testing.T) {
	c := &Cache[[]string]{}
	f := newFakeBuild()
	ctx := context.Background()
	go func() { f.release <- []string{"new"} }()
	if v, err := c.Get(ctx, 5, f.build); err != nil || v.Val[0] != "new" {
		t.Fatalf("%v %v", v, err)
	}
	<-f.started
	// A request that read the store version before the last build (5)
	// asks with 4: whatever it builds must not replace version 5.
	c.mu.Lock()
	c.lastBuild = time.Time{}
	c.mu.Unlock()
	c.Get(ctx, 4, f.build)
	<-f.started
	f.release <- []string{"old"}
	waitRebuilt(c)
	if v, _ := c.Get(ctx, 5, f.build); v.Val[0] != "new" || v.Store != 5 {
		t.Fatalf("went back to %v (version %d)", v.Val, v.Store)
	}
}

// TestRebuildsArePacedByTheirLength: under a steady stream of changes a
// rebuild that took long is not followed at once by the next one: the next
// starts no sooner than three times its length after it started, so that
// rebuilding a large list keeps to a third of a core.
func TestRebuildsArePacedByTheirLength(t *testing.T) {
	clock := newClock()
	c := &Cache[[]string]{Now: clock.Now}
	f := newFakeBuild()
	ctx := context.Background()
	go func() { <-f.started; clock.advance(4 * time.Second); f.release <- []string{"A"} }() // the first build takes 4 s
	if v, err := c.Get(ctx, 1, f.build); err != nil || v.Val[0] != "A" {
		t.Fatalf("%v %v", v, err)
	}
	// 4 s after the first build started; a change: not before 12 s.
	for _, at := range []time.Duration{time.Second, 4 * time.Second} {
		clock.advance(at)
		if v, _ := c.Get(ctx, 2, f.build); v.Val[0] != "A" || rebuilding(c) {
			t.Fatalf("a rebuild started %v into the pause", at)
		}
	}
	clock.advance(3 * time.Second) // 12 s after the first build started
	c.Get(ctx, 2, f.build)
	if !rebuilding(c) {
		t.Fatal("no rebuild once the pause is over")
	}
	<-f.started
	f.release <- []string{"B"}
	waitRebuilt(c)
	// A quick rebuild brings the pause back to its least.
	clock.advance(every)
	c.Get(ctx, 3, f.build)
	<-f.started
	f.release <- []string{"C"}
	waitRebuilt(c)
	if v, _ := c.Get(ctx, 3, f.build); v.Val[0] != "C" || f.count() != 3 {
		t.Fatalf("%v after %d builds", v.Val, f.count())
	}
}
