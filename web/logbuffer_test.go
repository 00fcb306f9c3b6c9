package web_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web"
)

// syncBuffer is the writer under a LogBuffer (its timer writes from
// another goroutine).
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func bufferedLogger(after time.Duration) (*slog.Logger, *web.LogBuffer, *syncBuffer) {
	out := &syncBuffer{}
	lb := web.NewLogBuffer(out, after)
	return slog.New(web.FlushingHandler(slog.NewTextHandler(lb, nil), lb, slog.LevelWarn)), lb, out
}

// An Info line waits (it is not written by the request that logs it) and
// is written within the delay, by nobody's call.
func TestLogBufferWritesInfoWithinDelay(t *testing.T) {
	log, _, out := bufferedLogger(30 * time.Millisecond)
	log.Info("request", "path", "/api/organisations/x")
	if s := out.String(); s != "" {
		t.Fatalf("an Info line was written at once: %q", s)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "path=/api/organisations/x") {
		if time.Now().After(deadline) {
			t.Fatal("the Info line was never written")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A warning or an error is written at once, after the lines before it, in
// order; so is one logged through With and WithGroup.
func TestLogBufferWritesWarningAtOnce(t *testing.T) {
	log, _, out := bufferedLogger(time.Hour)
	log.Info("first")
	log.Warn("second")
	if s := out.String(); !strings.Contains(s, "msg=first") || !strings.Contains(s, "msg=second") || strings.Index(s, "msg=first") > strings.Index(s, "msg=second") {
		t.Fatalf("after a warning: %q", s)
	}
	log.Info("third")
	log.With("a", 1).WithGroup("g").Error("fourth", "b", 2)
	if s := out.String(); !strings.Contains(s, "msg=third") || !strings.Contains(s, "msg=fourth a=1 g.b=2") {
		t.Fatalf("after an error through With and WithGroup: %q", s)
	}
}

// A burst larger than the buffer is written without waiting for the delay,
// and Flush writes the rest: every line once, whole, in order.
func TestLogBufferBurstAndFlush(t *testing.T) {
	log, lb, out := bufferedLogger(time.Hour)
	const n = 2000 // ~100 KB of lines: more than the buffer holds
	for i := range n {
		log.Info("line", "n", i, "pad", strings.Repeat("x", 20))
	}
	if out.String() == "" {
		t.Fatal("a burst larger than the buffer waited for the delay")
	}
	if err := lb.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines written, want %d", len(lines), n)
	}
	for i, l := range lines {
		if !strings.Contains(l, fmt.Sprintf("msg=line n=%d pad=", i)) {
			t.Fatalf("line %d: %q", i, l)
		}
	}
}

// Lines logged from many goroutines at once are each written whole, and
// far fewer writes reach the writer than lines (run with -race).
func TestLogBufferConcurrentLines(t *testing.T) {
	log, lb, out := bufferedLogger(time.Millisecond)
	const workers, each = 8, 250
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				log.Info("req", "w", w, "i", i)
			}
		}()
	}
	wg.Wait()
	_ = lb.Flush()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != workers*each {
		t.Fatalf("%d lines, want %d", len(lines), workers*each)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if !strings.HasPrefix(l, "time=") || !strings.Contains(l, " msg=req w=") || seen[l] {
			t.Fatalf("a line written broken or twice: %q", l)
		}
		seen[l] = true
	}
	out.mu.Lock()
	writes := out.writes
	out.mu.Unlock()
	if writes >= workers*each {
		t.Fatalf("%d writes for %d lines: nothing was gathered", writes, workers*each)
	}
}
