package handlers

import (
	"context"
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/lifecycle"
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
		_, names, err := h.flagOpts(r.Context(), "Authorisation_Server", nil, false)
		p := views.ServersPage{OrgPage: h.orgPage(o, views.TabServers), Servers: items, FlagNames: names}
		return views.ServersTab(h.Shell(r, "Authorisation servers", "organisations", h.orgCrumbs(&o, "Authorisation servers")...), p), err
	})
}

// GetServer is one authorisation server.
func (h *Servers) GetServer(w http.ResponseWriter, r *http.Request) {
	s, err := h.Store.GetAuthorisationServer(r.Context(), PathParam(r, "orgID"), PathParam(r, "serverID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Authorisation server"))
		return
	}
	SetETag(w, s)
	WriteJSON(w, http.StatusOK, h.showAS(s))
}

func (h *Servers) renderServerForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, s store.AuthorisationServer, isNew bool, err error) {
	flagOpts, _, ferr := h.flagOpts(r.Context(), "Authorisation_Server", s.Flags, false)
	if ferr != nil {
		WriteError(w, r, ferr)
		return
	}
	action := paths.OrganisationTab(o.OrganisationID, "authorisationservers")
	if !isNew {
		action += "/" + s.AuthorisationServerID
	}
	f := views.ServerForm{OrgID: o.OrganisationID, Server: s, IsNew: isNew, Action: action, Errors: map[string]string{},
		StatusOpts: h.statusOpts(lifecycle.AuthorisationServer, s.Status, false), FlagOpts: flagOpts}
	if err != nil {
		for _, fe := range AsError(err).Fields {
			if fe.Field == "Issuer" {
				f.IssuerErrors = append(f.IssuerErrors, fe.Message)
			} else if fe.Field != "" {
				f.Errors[fe.Field] = fe.Message
			}
		}
		if len(AsError(err).Fields) == 0 {
			f.Errors["CustomerFriendlyName"] = AsError(err).Message
		}
	}
	Render(w, r, status, views.ServerFormPage(h.Shell(r, "Authorisation server", "organisations", h.orgCrumbs(&o, "Authorisation server")...), f))
}

// ServerForm shows the empty form (…/new) or a server's (…/{serverID}/edit).
func (h *Servers) ServerForm(w http.ResponseWriter, r *http.Request) {
	if o, s, ok := orgAndForm(h.Org, w, r, h.Store.GetAuthorisationServer, "serverID", "Authorisation server", store.AuthorisationServer{Status: lifecycle.Active}); ok {
		h.renderServerForm(w, r, http.StatusOK, o, s, s.AuthorisationServerID == "", nil)
	}
}

// CreateServer adds an authorisation server after validating its issuer.
func (h *Servers) CreateServer(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	var in store.AuthorisationServer
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	in.OrganisationID = o.OrganisationID
	s, err := h.Servers.Create(r.Context(), h.actor(r), in, refused)
	h.serverSaved(w, r, o, in, s, err, true, "")
}

// UpdateServer replaces an authorisation server (its issuer re-validated).
func (h *Servers) UpdateServer(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	id := PathParam(r, "serverID")
	var in store.AuthorisationServer
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.AuthorisationServer, error) { return h.Servers.Get(r.Context(), o.OrganisationID, id) }))
	if !ok {
		return
	}
	in.OrganisationID, in.AuthorisationServerID = o.OrganisationID, id
	var from string
	// The transition is checked in the status's canonical word; a status
	// that has none is refused with the fields, before the check runs.
	next, _ := lifecycle.ParseStatus(lifecycle.AuthorisationServer, in.Status)
	s, err := h.Servers.Update(r.Context(), h.actorBecause(r, in.StatusReason), in, refused, func(cur store.AuthorisationServer) error {
		return h.checkStatus(r, cur, &from, cur.Status, next, in.StatusReason)
	})
	h.serverSaved(w, r, o, in, s, err, false, from)
}

// serverSaved answers a create or an update; from is the status before an update.
func (h *Servers) serverSaved(w http.ResponseWriter, r *http.Request, o store.Organisation, in, s store.AuthorisationServer, err error, isNew bool, from string) {
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: h.savedMessage("Authorisation server ", s.CustomerFriendlyName, from, s.Status), Page: paths.OrganisationTab(o.OrganisationID, "authorisationservers"),
			Status: http.StatusOK, Body: h.showAS(s), ETag: s}.Created(isNew, paths.API(paths.Server(o.OrganisationID, s.AuthorisationServerID))))
	case inForm(r, err):
		in.Validate(isNew, h.Vocab, h.AllowPrivateURLs) // the form shows what the layer read (Active)
		h.renderServerForm(w, r, AsError(err).Status, o, in, isNew, err)
	default:
		WriteError(w, r, err)
	}
}
