package handlers

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/issuer"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Servers serves the authorisation servers of an organisation.
type Servers struct {
	*Org
	Store   serverStore
	Issuers IssuerChecker
}

// IssuerChecker validates an authorisation server's issuer.
type IssuerChecker interface {
	Check(ctx context.Context, issuer, discovery string) []string
}

// serverStore is what Servers reads and writes.
type serverStore interface {
	ListAuthorisationServers(ctx context.Context, orgID string) ([]store.AuthorisationServer, error)
	GetAuthorisationServer(ctx context.Context, orgID, id string) (store.AuthorisationServer, error)
	CreateAuthorisationServer(ctx context.Context, a store.Audit, s store.AuthorisationServer) (store.AuthorisationServer, error)
	UpdateAuthorisationServer(ctx context.Context, a store.Audit, s store.AuthorisationServer, check func(store.AuthorisationServer) error) (store.AuthorisationServer, error)
	IssuerTaken(ctx context.Context, issuer, exceptID string) (string, error)
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

// validateServer checks the fields, then the issuer against its discovery
// document and the other servers: each issuer problem is its own entry.
// serverFieldChecks are a server's checks that need neither the network nor
// the store: a form refused by the text rule shows them beside their fields
// too, so that one save names every field to fix.
func (h *Servers) serverFieldChecks(s *store.AuthorisationServer, isNew bool) map[string]string {
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
	return f
}

func (h *Servers) validateServer(r *http.Request, s *store.AuthorisationServer, isNew bool) error {
	f := h.serverFieldChecks(s, isNew)
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
	// What the store would refuse too (an unknown flag), named now; its
	// issuer check is the one above, said once.
	withStoreChecks(r.Context(), f, func(ctx context.Context) error {
		var err error
		if isNew {
			_, err = h.Store.CreateAuthorisationServer(ctx, h.actor(r), *s)
		} else {
			_, err = h.Store.UpdateAuthorisationServer(ctx, h.actor(r), *s, func(store.AuthorisationServer) error { return nil })
		}
		if fe := (*store.FieldError)(nil); errors.As(err, &fe) && fe.Field == "Issuer" {
			return nil
		}
		return err
	})
	e := Validation(f)
	for _, p := range issuerProblems {
		e.Fields = append(e.Fields, FieldError{Code: FieldInvalidIssuer, Field: "Issuer", Message: p})
	}
	return e
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
	o, in, ok := orgAndBody(h.Org, w, r, func(o store.Organisation, in store.AuthorisationServer, f map[string]string) {
		h.renderServerForm(w, r, http.StatusUnprocessableEntity, o, in, true, Validation(withRefused(h.serverFieldChecks(&in, true), f)))
	})
	if !ok {
		return
	}
	in.OrganisationID, in.AuthorisationServerID = o.OrganisationID, ""
	err := h.validateServer(r, &in, true)
	var s store.AuthorisationServer
	if err == nil {
		s, err = h.Store.CreateAuthorisationServer(r.Context(), h.actor(r), in)
		err = directory.Named(err, "Authorisation server")
	}
	h.serverSaved(w, r, o, in, s, err, true, "")
}

// UpdateServer replaces an authorisation server (its issuer re-validated).
func (h *Servers) UpdateServer(w http.ResponseWriter, r *http.Request) {
	o, in, ok := orgAndUpdate(h.Org, w, r, h.Store.GetAuthorisationServer, "serverID", func(o store.Organisation, in store.AuthorisationServer, f map[string]string) {
		in.AuthorisationServerID = PathParam(r, "serverID")
		h.renderServerForm(w, r, http.StatusUnprocessableEntity, o, in, false, Validation(withRefused(h.serverFieldChecks(&in, false), f)))
	})
	if !ok {
		return
	}
	in.OrganisationID, in.AuthorisationServerID = o.OrganisationID, PathParam(r, "serverID")
	if _, err := h.Store.GetAuthorisationServer(r.Context(), o.OrganisationID, in.AuthorisationServerID); err != nil {
		WriteError(w, r, directory.Named(err, "Authorisation server"))
		return
	}
	err := h.validateServer(r, &in, false)
	var s store.AuthorisationServer
	var from string
	if err == nil {
		s, err = h.Store.UpdateAuthorisationServer(r.Context(), h.actorBecause(r, in.StatusReason), in, func(cur store.AuthorisationServer) error {
			return h.checkStatus(r, cur, &from, cur.Status, in.Status, in.StatusReason)
		})
		err = directory.Named(err, "Authorisation server")
	}
	h.serverSaved(w, r, o, in, s, err, false, from)
}

// serverSaved answers a create or an update; from is the status before an update.
func (h *Servers) serverSaved(w http.ResponseWriter, r *http.Request, o store.Organisation, in, s store.AuthorisationServer, err error, isNew bool, from string) {
	sv := Saved{Err: err, Flash: h.savedMessage("Authorisation server ", s.CustomerFriendlyName, from, s.Status), Page: paths.OrganisationTab(o.OrganisationID, "authorisationservers"),
		Status: http.StatusOK, Body: h.showAS(s), ETag: s,
		Again: formAgain(func(e *Error) { h.renderServerForm(w, r, e.Status, o, in, isNew, err) })}
	h.Saved(w, r, sv.Created(isNew, paths.API(paths.Server(o.OrganisationID, s.AuthorisationServerID))))
}
