package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/trustframe/trustframe/participants"
)

// publicCache holds one public, expensive answer (the participants list of
// a large directory: tens of megabytes) ready to send, plain and gzipped,
// rebuilt in the background after a change (rebuilt.go). Its ETag is a hash
// of the body and Last-Modified the time the build of the body last
// changed began: both stay the same when a rebuild finds nothing new.
type publicCache struct {
	rebuilt[*publicAnswer]
}

// publicAnswer is one built answer (participants.Answer) with what the
// cache and the response need of it.
type publicAnswer participants.Answer

// get returns the answer to serve for the store at version; build reads
// the store (from a version at least that one) and writes the body.
func (c *publicCache) get(ctx context.Context, version int64, build func(context.Context) ([]byte, error)) (*publicAnswer, error) {
	v, err := c.rebuilt.get(ctx, version, func(ctx context.Context) (*publicAnswer, error) {
		began := c.clock() // Last-Modified (participants.NewAnswer says why)
		body, err := build(ctx)
		if err != nil {
			return nil, err
		}
		return (*publicAnswer)(participants.NewAnswer(version, began, body)), nil
	})
	if err != nil {
		return nil, err
	}
	return v.val, nil
}

// carryFrom keeps Last-Modified when a rebuild found the same body.
func (a *publicAnswer) carryFrom(old *publicAnswer) {
	if old.ETag == a.ETag {
		a.Modified = old.Modified
	}
}

// large: the build's garbage is worth handing back to the system at once.
func (a *publicAnswer) large() bool { return (*participants.Answer)(a).Large() }

// serve writes the answer: 304 for a matching If-None-Match (or, without
// one, an If-Modified-Since not older than Last-Modified), gzip when the
// client takes it.
func (a *publicAnswer) serve(w http.ResponseWriter, r *http.Request, maxAge string) {
	h := w.Header()
	h.Set("ETag", a.ETag)
	h.Set("Last-Modified", a.Modified.UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "public, max-age="+maxAge)
	h.Add("Vary", "Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if inm == a.ETag || strings.Contains(inm, a.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !a.Modified.Truncate(time.Second).After(ims) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	body := a.Body
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = a.Gzip
	}
	_, _ = w.Write(body)
}
