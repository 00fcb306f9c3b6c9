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
// a large directory: tens of megabytes) ready to send, plain and gzipped,
// until the store changes or maxAge passes (changes made by another
// process). One request builds it; the others wait for it.
type publicCache struct {
	mu      sync.Mutex
	version int64
	at      time.Time
	body    []byte
	gz      []byte
	etag    string
}

const publicCacheMaxAge = 60 * time.Second

func (c *publicCache) get(ctx context.Context, version int64, build func(context.Context) (any, error)) (*publicCache, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.body != nil && c.version == version && time.Since(c.at) < publicCacheMaxAge {
		return c, nil
	}
	// A client that goes away must not fail the build the others wait for.
	v, err := build(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	var body []byte
	if l, ok := v.(participantList); ok {
		body = l.appendJSON(make([]byte, 0, 1024*len(l)+2))
	} else if body, err = json.Marshal(v); err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	_, _ = zw.Write(body)
	_ = zw.Close()
	sum := sha256.Sum256(body)
	c.version, c.at, c.body, c.gz, c.etag = version, time.Now(), body, gz.Bytes(), `"`+hex.EncodeToString(sum[:12])+`"`
	return c, nil
}

// serve writes the cached answer: 304 for a matching If-None-Match, gzip
// when the client takes it.
func (c *publicCache) serve(w http.ResponseWriter, r *http.Request, maxAge string) {
	h := w.Header()
	h.Set("ETag", c.etag)
	h.Set("Cache-Control", "public, max-age="+maxAge)
	h.Add("Vary", "Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" && (inm == c.etag || strings.Contains(inm, c.etag)) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	body := c.body
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = c.gz
	}
	_, _ = w.Write(body)
}

// filteredCaches holds the participants answers of AuthorisationDomain=
// and Role= filters, one per filter; there are as many as roles, and the
// map is emptied should it ever grow past maxFilteredCaches.
type filteredCaches struct {
	mu sync.Mutex
	m  map[string]*publicCache
}

const maxFilteredCaches = 256

func (f *filteredCaches) get(key string) *publicCache {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil || len(f.m) >= maxFilteredCaches {
		f.m = map[string]*publicCache{}
	}
	c, ok := f.m[key]
	if !ok {
		c = &publicCache{}
		f.m[key] = c
	}
	return c
}

// Participants is GET /participants (public): Active organisations with
// their Active authorisation servers and Active authority claims
// (OrgDomainClaims, OrgDomainRoleClaims); AuthorisationDomain= and Role=
// keep the organisations with an Active claim on them. The answer is
// built once per change of the store (at most a minute old) and sent with
// an ETag, gzipped when the client accepts it.
func (h *Directory) Participants(w http.ResponseWriter, r *http.Request) {
	domain, role, err := h.roleFilter(r.Context(), r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	cache := &h.participants
	if domain != "" || role != "" {
		cache = h.participantsBy.get(domain + "\x00" + role)
	}
	c, err := cache.get(r.Context(), h.Store.WriteVersion(), func(ctx context.Context) (any, error) {
		ps, err := h.Store.Participants(ctx)
		if err != nil {
			return nil, err
		}
		if domain != "" || role != "" {
			kept := ps[:0]
			for _, p := range ps {
				for _, c := range p.OrgDomainRoleClaims {
					if (domain == "" || c.AuthorisationDomain == domain) && (role == "" || c.Role == role) {
						kept = append(kept, p)
						break
					}
				}
			}
			ps = kept
		}
		for i := range ps {
			ps[i].Status = h.Vocab.Display(ps[i].Status)
			for j := range ps[i].AuthorisationServers {
				ps[i].AuthorisationServers[j].Status = h.Vocab.Display(ps[i].AuthorisationServers[j].Status)
			}
		}
		return participantList(ps), nil
	})
	if err != nil {
		WriteError(w, r, err)
		return
	}
	c.serve(w, r, "60")
}
