package handlers

import (
	"context"
	"net/http"
	"sync"

	"github.com/trustframe/trustframe/participants"
	"github.com/trustframe/trustframe/store"
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
// (publiccache.go). The list and its JSON are the participants package's.
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
	c, err := cache.get(r.Context(), h.Store.DirectoryVersion(), func(ctx context.Context) ([]byte, error) {
		l, err := participants.Read(ctx, h.Store, domain, role, h.Vocab)
		if err != nil {
			return nil, err
		}
		return l.JSON(), nil
	})
	if err != nil {
		WriteError(w, r, err)
		return
	}
	c.serve(w, r, "60")
}

// orgAnswer is an organisation as the API answers it: it writes its own
// JSON with the participants list's encoder, byte for byte json.Marshal's,
// without reflection, for the API's hottest read.
type orgAnswer store.Organisation

func (o *orgAnswer) appendJSON(b []byte) []byte {
	return participants.AppendOrganisation(b, (*store.Organisation)(o))
}
