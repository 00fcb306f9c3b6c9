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
	"time"
)

// publicCache holds one public, expensive answer (the participants list of
// a large directory: tens of megabytes) ready to send, plain and gzipped,
// rebuilt in the background after a change (rebuilt.go). Its ETag is a hash
// of the body and Last-Modified the time the build of the body last
// changed began: both stay the same when a rebuild finds nothing new.
type publicCache struct {
	rebuilt[*publicAnswer]
}

// publicAnswer is one built answer; never changed once built.
type publicAnswer struct {
	version  int64
	modified time.Time // when the build that last changed its body began
	body, gz []byte
	etag     string
}

// get returns the answer to serve for the store at version; build reads
// the store (from a version at least that one).
func (c *publicCache) get(ctx context.Context, version int64, build func(context.Context) (any, error)) (*publicAnswer, error) {
	v, err := c.rebuilt.get(ctx, version, func(ctx context.Context) (*publicAnswer, error) {
		return c.answer(ctx, version, build)
	})
	if err != nil {
		return nil, err
	}
	return v.val, nil
}

// publicGzipLevel compresses the public answers. Level 5 makes the
// participants list of 100,000 organisations a fifth smaller than
// gzip.BestSpeed (11.4 against 14.3 MB) in the same time (about half a
// second, in the background rebuild); every client that takes gzip gets
// fewer bytes. Levels above it cost more time for little (docs/design.md
// §5, docs/benchmarks.md).
const publicGzipLevel = 5

// carryFrom keeps Last-Modified when a rebuild found the same body.
func (a *publicAnswer) carryFrom(old *publicAnswer) {
	if old.etag == a.etag {
		a.modified = old.modified
	}
}

// large: the participants list of a large directory (tens of megabytes,
// built from several times that in rows).
func (a *publicAnswer) large() bool { return len(a.body) >= 16<<20 }

func (c *publicCache) answer(ctx context.Context, version int64, build func(context.Context) (any, error)) (*publicAnswer, error) {
	// Last-Modified is when the build began to read: every change the body
	// lacks was committed after it. Stamped when the build ends, a slow
	// build on one instance could carry a later date than a quicker one on
	// another instance that holds a newer change, and that instance would
	// answer the slow one's date with a 304 for a body the client has not
	// seen (docs/design.md §14).
	began := c.clock()
	v, err := build(ctx)
	if err != nil {
		return nil, err
	}
	var body []byte
	if l, ok := v.(participantList); ok {
		// The participants list writes its own JSON (participants_json.go).
		body = l.appendJSON(make([]byte, 0, l.sizeHint()))
	} else if body, err = json.Marshal(v); err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, publicGzipLevel)
	_, _ = zw.Write(body)
	_ = zw.Close()
	sum := sha256.Sum256(body)
	return &publicAnswer{version: version, modified: began, body: body, gz: gz.Bytes(), etag: `"` + hex.EncodeToString(sum[:12]) + `"`}, nil
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
