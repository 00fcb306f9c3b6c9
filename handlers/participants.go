package handlers

import (
	"context"
	"net/http"
	"sync"
)

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
// rebuilt in the background after the store changes (at most a minute old
// otherwise) and sent with an ETag and Last-Modified, gzipped when the
// client accepts it; until a rebuild ends the previous answer is served
// (publiccache.go).
func (h *Organisations) Participants(w http.ResponseWriter, r *http.Request) {
	domain, role, err := h.roleFilter(r.Context(), r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	cache := &h.participants
	if domain != "" || role != "" {
		cache = h.participantsBy.get(domain + "\x00" + role)
	}
	c, err := cache.get(r.Context(), h.Store.DirectoryVersion(), func(ctx context.Context) (any, error) {
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
