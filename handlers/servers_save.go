package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// ServerForm shows the empty form (…/new) or a server's (…/{serverID}/edit).
func (h *Servers) ServerForm(w http.ResponseWriter, r *http.Request) {
	if o, s, ok := orgAndForm(h.Org, w, r, h.Servers.Get, "serverID", "Authorisation server", store.AuthorisationServer{Status: lifecycle.Active}); ok {
		h.renderServerForm(w, r, http.StatusOK, o, s, s.AuthorisationServerID == "", nil)
	}
}

// renderServerForm shows the form, with the refusal err beside its fields
// (on the name when it names none).
func (h *Servers) renderServerForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, s store.AuthorisationServer, isNew bool, err error) {
	flags, ferr := h.flags(r, "Authorisation_Server")
	if ferr != nil {
		WriteError(w, r, ferr)
		return
	}
	f := views.NewServerForm(h.Vocab, o, s, isNew, flags)
	if !isNew {
		f.Version = editVersion(r, status, s, func() (store.AuthorisationServer, error) {
			return h.Servers.Get(r.Context(), o.OrganisationID, s.AuthorisationServerID)
		},
			serverFieldLabels, views.OptionNames(f.FlagOpts))
		if stale(r, err) {
			err = nil // said by the form's version
		}
	}
	if e := AsError(err); err != nil {
		for _, fe := range e.Fields {
			f.Refuse(fe.Field, fe.Message)
		}
		if len(e.Fields) == 0 {
			f.Refuse("CustomerFriendlyName", e.Message)
		}
	}
	title := "Edit authorisation server"
	if isNew {
		title = "Add authorisation server"
	}
	crumbs := views.OrgFormCrumbs(&o, "Authorisation servers", paths.OrganisationTab(o.OrganisationID, "authorisationservers"), title)
	Render(w, r, status, views.ServerFormPage(h.Shell(r, title, "organisations", crumbs...), f))
}

// serverFieldLabels name the server form's fields where their member names
// read badly (as the form's labels do).
var serverFieldLabels = map[string]string{"CustomerFriendlyName": "Name", "OpenIDDiscoveryDocument": "OpenID discovery document", "FederationEntityId": "Federation entity ID"}

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
	h.serverSaved(w, r, o, s, err, true, "")
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
	useFormVersion(r)
	s, from, err := h.Servers.Update(r.Context(), h.actor(r), in, refused, bySuperUser(r), ifMatchCheck[store.AuthorisationServer](r))
	h.serverSaved(w, r, o, s, err, false, from)
}

// serverSaved answers a create or an update: the server saved (from is
// the status it had), or the form again with the refusal, or an error.
func (h *Servers) serverSaved(w http.ResponseWriter, r *http.Request, o store.Organisation, s store.AuthorisationServer, err error, isNew bool, from string) {
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: views.SavedMessage(h.Vocab, "Authorisation server ", s.CustomerFriendlyName, from, s.Status), Page: paths.OrganisationTab(o.OrganisationID, "authorisationservers"),
			Status: http.StatusOK, Body: h.showAS(s), ETag: s}.Created(isNew, paths.API(paths.Server(o.OrganisationID, s.AuthorisationServerID))))
	case inForm(r, err):
		h.renderServerForm(w, r, AsError(err).Status, o, s, isNew, err)
	default:
		WriteError(w, r, err)
	}
}
