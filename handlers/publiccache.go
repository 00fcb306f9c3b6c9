package handlers

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// publicCache holds one public, expensive answer (the participants list of
// a large directory: tens of megabytes) ready to send, plain and gzipped.
//
// No request waits for a rebuild caused by someone else's write (issue 19):
// when the store has changed (or maxAge has passed, for changes made by
// another process) the answer in hand is still served, and one rebuild runs
// in the background — at most one at a time and one per rebuildEvery —
// whose result replaces it when done. Only the very first request, with
// nothing to serve, waits for a build. An answer is only ever replaced by
// one built from a newer (or the same) store version, so the list served
// never goes back. Its ETag is a hash of the body and Last-Modified the
// time the body last changed: both stay the same when a rebuild finds
// nothing new.
type publicCache struct {
	mu        sync.Mutex
	cur       *publicAnswer
	building  bool
	lastBuild time.Time     // start of the last rebuild
	built     chan struct{} // closed when the running rebuild ends
	lastErr   error         // of the last rebuild, for those waiting on the first
	now       func() time.Time
}

// publicAnswer is one built answer; never changed once built.
type publicAnswer struct {
	version  int64
	at       time.Time // when it was built
	modified time.Time // when its body last changed
	body, gz []byte
	etag     string
}

const (
	publicCacheMaxAge  = 60 * time.Second
	publicRebuildEvery = time.Second
)

func (c *publicCache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// get returns the answer to serve for the store at version; build reads
// the store (from a version at least that one).
func (c *publicCache) get(ctx context.Context, version int64, build func(context.Context) (any, error)) (*publicAnswer, error) {
	c.mu.Lock()
	for {
		now := c.clock()
		cur := c.cur
		if cur != nil {
			if (cur.version != version || now.Sub(cur.at) >= publicCacheMaxAge) && !c.building && now.Sub(c.lastBuild) >= publicRebuildEvery {
				c.startLocked(ctx, version, build)
			}
			c.mu.Unlock()
			return cur, nil
		}
		// Nothing to serve yet: wait for the first build.
		if !c.building {
			c.startLocked(ctx, version, build)
		}
		done := c.built
		c.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		c.mu.Lock()
		if c.cur == nil && c.lastErr != nil {
			err := c.lastErr
			c.mu.Unlock()
			return nil, err
		}
	}
}

// startLocked starts a rebuild; the caller holds mu.
func (c *publicCache) startLocked(ctx context.Context, version int64, build func(context.Context) (any, error)) {
	c.building, c.lastBuild, c.built = true, c.clock(), make(chan struct{})
	// The rebuild belongs to no request: a client that goes away must not
	// cancel it.
	ctx = context.WithoutCancel(ctx)
	go func() {
		a, err := c.build(ctx, version, build)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.lastErr = err
		if err == nil && (c.cur == nil || a.version >= c.cur.version) {
			if c.cur != nil && c.cur.etag == a.etag {
				a.modified = c.cur.modified
			}
			c.cur = a
		}
		c.building = false
		close(c.built)
	}()
}

func (c *publicCache) build(ctx context.Context, version int64, build func(context.Context) (any, error)) (*publicAnswer, error) {
	v, err := build(ctx)
	if err != nil {
		return nil, err
	}
	var body []byte
	if l, ok := v.(participantList); ok {
		// The participants list writes its own JSON (participants_json.go).
		body = l.appendJSON(make([]byte, 0, 1024*len(l)+2))
	} else if body, err = json.Marshal(v); err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	_, _ = zw.Write(body)
	_ = zw.Close()
	sum := sha256.Sum256(body)
	now := c.clock()
	return &publicAnswer{version: version, at: now, modified: now, body: body, gz: gz.Bytes(), etag: `"` + hex.EncodeToString(sum[:12]) + `"`}, nil
}

// serve writes the answer: 304 for a matching If-None-Match (or, without
// one, an If-Modified-Since not older than Last-Modified), gzip when the
// client takes it.
func (a *publicAnswer) serve(w http.ResponseWriter, r *http.Request, maxAge string) {
	h := w.Header()
	h.Set("ETag", a.etag)
	h.Set("Last-Modified", a.modified.UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "public, max-age="+maxAge)
	h.Add("Vary", "Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if inm == a.etag || strings.Contains(inm, a.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !a.modified.Truncate(time.Second).After(ims) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	body := a.body
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	_, _ = w.Write(body)
}
