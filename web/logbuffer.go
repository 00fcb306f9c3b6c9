package web

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// maxLogBuffer is how much a LogBuffer holds before it writes at once.
const maxLogBuffer = 64 << 10

// LogBuffer gathers log lines and writes them out together, at most
// `after` later: one write a few times a second instead of one system call
// per request (the access log was 3 % of a point read's CPU, issue 19).
// What the process knows when it stops is never held back: FlushingHandler
// writes a warning or an error out at once, with every line before it, and
// serve flushes when it stops. A process killed outright loses at most
// `after` of access-log lines; the audit log, which records the changes,
// is in the database (docs/design.md §9).
type LogBuffer struct {
	mu    sync.Mutex
	w     io.Writer
	after time.Duration
	buf   []byte
	timer *time.Timer // set while lines wait
}

// NewLogBuffer writes to w what it gathers, at most after later.
func NewLogBuffer(w io.Writer, after time.Duration) *LogBuffer {
	return &LogBuffer{w: w, after: after}
}

// Write keeps p (one log line: the handlers write a whole line per call).
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var err error
	if len(b.buf)+len(p) > maxLogBuffer {
		err = b.flushLocked()
	}
	b.buf = append(b.buf, p...)
	if b.timer == nil {
		b.timer = time.AfterFunc(b.after, func() { _ = b.Flush() })
	}
	return len(p), err
}

// Flush writes out every line kept. A failed write drops them (what would
// take them instead?) and is returned.
func (b *LogBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *LogBuffer) flushLocked() error {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if len(b.buf) > maxLogBuffer {
		b.buf = nil // a burst of lines: do not keep its array
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// FlushingHandler wraps h, which writes to b: a record at level or above
// (a warning, an error) is written out at once, with the lines before it.
func FlushingHandler(h slog.Handler, b *LogBuffer, level slog.Level) slog.Handler {
	return flushing{h: h, b: b, level: level}
}

type flushing struct {
	h     slog.Handler
	b     *LogBuffer
	level slog.Level
}

func (f flushing) Enabled(ctx context.Context, l slog.Level) bool { return f.h.Enabled(ctx, l) }

func (f flushing) Handle(ctx context.Context, r slog.Record) error {
	err := f.h.Handle(ctx, r)
	if r.Level >= f.level {
		if ferr := f.b.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (f flushing) WithAttrs(as []slog.Attr) slog.Handler {
	return flushing{h: f.h.WithAttrs(as), b: f.b, level: f.level}
}

func (f flushing) WithGroup(name string) slog.Handler {
	return flushing{h: f.h.WithGroup(name), b: f.b, level: f.level}
}
