package handlers

import (
	"context"
	"net/http"
)

// Participants is GET /participants (public): Active organisations with
// their Active authorisation servers. The answer is rebuilt in the
// background after the store changes (at most a minute old otherwise) and
// sent with an ETag and Last-Modified, gzipped when the client accepts it;
// until a rebuild ends the previous answer is served (publiccache.go).
func (h *Directory) Participants(w http.ResponseWriter, r *http.Request) {
	c, err := h.participants.get(r.Context(), h.Store.WriteVersion(), func(ctx context.Context) (any, error) {
		ps, err := h.Store.Participants(ctx)
		if err != nil {
			return nil, err
		}
		for i := range ps {
			ps[i].Status = h.Vocab.Display(ps[i].Status)
			for j := range ps[i].AuthorisationServers {
				ps[i].AuthorisationServers[j].Status = h.Vocab.Display(ps[i].AuthorisationServers[j].Status)
			}
		}
		return ps, nil
	})
	if err != nil {
		WriteError(w, r, err)
		return
	}
	c.serve(w, r, "60")
}
