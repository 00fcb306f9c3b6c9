package handlers

import (
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/issuer"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

func (h *Directory) showAS(s store.AuthorisationServer) store.AuthorisationServer {
	s.Status = h.Vocab.Display(s.Status)
	return s
}

// ListServers is the authorisation servers tab (a bare array on the API).
func (h *Directory) ListServers(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	items, err := h.Store.ListAuthorisationServers(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	for i := range items {
		items[i] = h.showAS(items[i])
	}
	if WantsJSON(r) {
		WriteJSON(w, http.StatusOK, items)
		return
	}
	_, names, err := h.flagOpts(r.Context(), "Authorisation_Server", nil, false)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p := views.ServersPage{OrgPage: h.orgPage(o, views.TabServers), Servers: items, FlagNames: names}
	Render(w, r, http.StatusOK, views.ServersTab(h.Shell(r, "Authorisation servers", "organisations", h.orgCrumbs(&o, "Authorisation servers")...), p))
}

// GetServer is one authorisation server.
func (h *Directory) GetServer(w http.ResponseWriter, r *http.Request) {
	s, err := h.Store.GetAuthorisationServer(r.Context(), PathParam(r, "orgID"), PathParam(r, "serverID"))
	if err != nil {
		WriteError(w, r, storeError(err, "Authorisation server"))
		return
	}
	SetETag(w, s)
	WriteJSON(w, http.StatusOK, h.showAS(s))
}

// validateServer checks the fields, then the issuer against its discovery
// document and the other servers: each issuer problem is its own entry.
func (h *Directory) validateServer(r *http.Request, s *store.AuthorisationServer, isNew bool) error {
	f := map[string]string{}
	required(f, "CustomerFriendlyName", s.CustomerFriendlyName, "Name")
	checkLen(f, "CustomerFriendlyName", s.CustomerFriendlyName, maxName)
	checkLen(f, "Description", s.Description, maxDescription)
	checkLen(f, "Issuer", s.Issuer, maxURL)
	checkLen(f, "OpenIDDiscoveryDocument", s.OpenIDDiscoveryDocument, maxURL)
	checkList(f, "Flags", s.Flags, maxFlags, 0)
	h.checkFederationEntityID(f, s.FederationEntityID)
	checkLen(f, "FederationEntityId", s.FederationEntityID, maxURL)
	if s.Status == "" && isNew {
		s.Status = lifecycle.Active
	} else if canon, ok := lifecycle.ParseStatus(lifecycle.AuthorisationServer, s.Status); ok {
		s.Status = canon
	} else {
		f["Status"] = lifecycle.StatusHelp(lifecycle.AuthorisationServer, h.Vocab)
	}
	if s.Flags == nil {
		s.Flags = []string{}
	}
	var issuerProblems []string
	if strings.TrimSpace(s.Issuer) == "" {
		issuerProblems = append(issuerProblems, "Issuer is required.")
	} else if f["Issuer"] == "" && f["OpenIDDiscoveryDocument"] == "" { // one over its limit is not fetched
		disc := s.OpenIDDiscoveryDocument
		if disc == "" {
			disc = issuer.WellKnown(s.Issuer)
		}
		// The defaulted URL is kept only when the server is saved, so a form
		// shown again with errors follows a corrected issuer.
		defer func() {
			if len(f) == 0 && len(issuerProblems) == 0 {
				s.OpenIDDiscoveryDocument = disc
			}
		}()
		if other, err := h.Store.IssuerTaken(r.Context(), s.Issuer, s.AuthorisationServerID); err != nil {
			return err
		} else if other != "" {
			issuerProblems = append(issuerProblems, "Another authorisation server already has this issuer.")
		}
		issuerProblems = append(issuerProblems, h.Issuers.Check(r.Context(), s.Issuer, disc)...)
	}
	if len(f) == 0 && len(issuerProblems) == 0 {
		return nil
	}
	e := Validation(f)
	for _, p := range issuerProblems {
		e.Fields = append(e.Fields, FieldError{Code: "invalid_issuer", Field: "Issuer", Message: p})
	}
	return e
}

func (h *Directory) renderServerForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, s store.AuthorisationServer, isNew bool, err error) {
	flagOpts, _, ferr := h.flagOpts(r.Context(), "Authorisation_Server", s.Flags, false)
	if ferr != nil {
		WriteError(w, r, ferr)
		return
	}
	action := "/organisations/" + o.OrganisationID + "/authorisationservers"
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

// NewServer shows the empty form.
func (h *Directory) NewServer(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	h.renderServerForm(w, r, http.StatusOK, o, store.AuthorisationServer{Status: lifecycle.Active}, true, nil)
}

// EditServer shows a server's form.
func (h *Directory) EditServer(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	s, err := h.Store.GetAuthorisationServer(r.Context(), o.OrganisationID, PathParam(r, "serverID"))
	if err != nil {
		WriteError(w, r, storeError(err, "Authorisation server"))
		return
	}
	h.renderServerForm(w, r, http.StatusOK, o, s, false, nil)
}

// CreateServer adds an authorisation server after validating its issuer.
func (h *Directory) CreateServer(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	var in store.AuthorisationServer
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
		return
	}
	in.OrganisationID, in.AuthorisationServerID = o.OrganisationID, ""
	err := h.validateServer(r, &in, true)
	var s store.AuthorisationServer
	if err == nil {
		s, err = h.Store.CreateAuthorisationServer(r.Context(), h.actor(r), in)
		err = directoryError(err, "Authorisation server")
	}
	h.serverSaved(w, r, o, in, s, err, true, "")
}

// UpdateServer replaces an authorisation server (its issuer re-validated).
func (h *Directory) UpdateServer(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	var in store.AuthorisationServer
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
		return
	}
	in.OrganisationID, in.AuthorisationServerID = o.OrganisationID, PathParam(r, "serverID")
	if _, err := h.Store.GetAuthorisationServer(r.Context(), o.OrganisationID, in.AuthorisationServerID); err != nil {
		WriteError(w, r, storeError(err, "Authorisation server"))
		return
	}
	err := h.validateServer(r, &in, false)
	var s store.AuthorisationServer
	var from string
	if err == nil {
		s, err = h.Store.UpdateAuthorisationServer(r.Context(), h.actorBecause(r, in.StatusReason), in, func(cur store.AuthorisationServer) error {
			return h.checkStatus(r, cur, &from, cur.Status, in.Status, in.StatusReason)
		})
		err = directoryError(err, "Authorisation server")
	}
	h.serverSaved(w, r, o, in, s, err, false, from)
}

// serverSaved answers a create or an update; from is the status before an update.
func (h *Directory) serverSaved(w http.ResponseWriter, r *http.Request, o store.Organisation, in, s store.AuthorisationServer, err error, isNew bool, from string) {
	if err != nil {
		if !WantsJSON(r) && AsError(err).Status < 500 && AsError(err).Status != http.StatusNotFound {
			h.renderServerForm(w, r, AsError(err).Status, o, in, isNew, err)
			return
		}
		WriteError(w, r, err)
		return
	}
	if !WantsJSON(r) {
		h.Flash.Put(r.Context(), h.savedMessage("Authorisation server ", s.CustomerFriendlyName, from, s.Status))
		Redirect(w, r, "/organisations/"+o.OrganisationID+"/authorisationservers")
		return
	}
	SetETag(w, s)
	if isNew {
		w.Header().Set("Location", "/api/organisations/"+o.OrganisationID+"/authorisationservers/"+s.AuthorisationServerID)
		WriteJSON(w, http.StatusCreated, h.showAS(s))
		return
	}
	WriteJSON(w, http.StatusOK, h.showAS(s))
}
