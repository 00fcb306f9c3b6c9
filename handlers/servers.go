package handlers

import (
	"context"
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Servers serves the authorisation servers of an organisation.
type Servers struct {
	*Org
	Servers *directory.Servers
}

func (h *Servers) showAS(s store.AuthorisationServer) store.AuthorisationServer {
	s.Status = h.Vocab.Display(s.Status)
	return s
}

// ListServers is the authorisation servers tab (a bare array on the API).
func (h *Servers) ListServers(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	PageOrList(w, r, func() {
		t, err := h.Servers.Tab(r.Context(), o.OrganisationID)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		p := views.ServersPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabServers), Servers: shownAll(t.Servers, h.showAS), FlagNames: views.FlagNames(t.Flags)}
		Render(w, r, http.StatusOK, views.ServersTab(h.Shell(r, "Authorisation servers", "organisations", views.OrgCrumbs(&o, "Authorisation servers")...), p))
	}, func(ctx context.Context) ([]store.AuthorisationServer, error) {
		items, err := h.Servers.List(ctx, o.OrganisationID)
		return shownAll(items, h.showAS), err
	})
}

// GetServer is one authorisation server.
func (h *Servers) GetServer(w http.ResponseWriter, r *http.Request) {
	s, err := h.Servers.Get(r.Context(), PathParam(r, "orgID"), PathParam(r, "serverID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	SetETag(w, s)
	WriteJSON(w, http.StatusOK, h.showAS(s))
}
