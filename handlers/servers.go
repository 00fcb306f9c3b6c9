package handlers

import (
	"context"
	"net/http"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Servers serves the authorisation servers of an organisation.
type Servers struct {
	*Org
	Servers *directory.Servers
	Store   serverStore
}

// serverStore is what Servers reads and writes.
type serverStore interface {
	ListAuthorisationServers(ctx context.Context, orgID string) ([]store.AuthorisationServer, error)
	GetAuthorisationServer(ctx context.Context, orgID, id string) (store.AuthorisationServer, error)
}

func (h *Servers) showAS(s store.AuthorisationServer) store.AuthorisationServer {
	s.Status = h.Vocab.Display(s.Status)
	return s
}

// ListServers is the authorisation servers tab (a bare array on the API).
func (h *Servers) ListServers(w http.ResponseWriter, r *http.Request) {
	o, items, ok := orgItems(h.Org, w, r, h.Store.ListAuthorisationServers, h.showAS)
	if !ok {
		return
	}
	RespondPage(w, r, http.StatusOK, items, func() (templ.Component, error) {
		flags, err := h.flags(r, "Authorisation_Server")
		p := views.ServersPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabServers), Servers: items, FlagNames: views.FlagNames(flags)}
		return views.ServersTab(h.Shell(r, "Authorisation servers", "organisations", views.OrgCrumbs(&o, "Authorisation servers")...), p), err
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
