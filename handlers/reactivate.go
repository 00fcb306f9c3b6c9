package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Reactivations serves the reactivation pages of organisations, servers
// and applications: a Super User sets a withdrawn one back to Active from
// a page that says what that affects and asks why; the reason goes into
// the audit record (docs/design.md §4). The API does the same with PUT
// {Status: Active, StatusReason}.
type Reactivations struct {
	*Org
	Store         reactivationStore
	Reactivations *directory.Reactivations
}

// reactivationStore is what the reactivation pages read.
type reactivationStore interface {
	ListAuthorisationServers(ctx context.Context, orgID string) ([]store.AuthorisationServer, error)
	GetAuthorisationServer(ctx context.Context, orgID, id string) (store.AuthorisationServer, error)
	ListSoftwareStatements(ctx context.Context, orgID string) ([]store.SoftwareStatement, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
}

// reactivation is one thing that can be reactivated, loaded for its page:
// the organisation, and the server or application when it is one of
// those.
type reactivation struct {
	page   views.ReactivatePage
	crumbs []views.Crumb
	org    store.Organisation
	server *store.AuthorisationServer
	app    *store.SoftwareStatement
}

// ReactivateForm is the page of a reactivation: GET …/reactivate.
func (h *Reactivations) ReactivateForm(k lifecycle.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		re, ok := h.loadReactivation(w, r, k)
		if !ok {
			return
		}
		if !PrincipalFrom(r.Context()).IsSuperUser() {
			WriteError(w, r, CodeForbidden.New("Only a Super User can set something "+h.Vocab.EndWord()+" back to Active."))
			return
		}
		h.renderReactivation(w, r, http.StatusOK, re)
	}
}

// Reactivate is the form post of a reactivation page.
func (h *Reactivations) Reactivate(k lifecycle.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		re, ok := h.loadReactivation(w, r, k)
		if !ok {
			return
		}
		var in struct {
			StatusReason string `json:"StatusReason" text:"lines"`
		}
		if err := Decode(w, r, &in); err != nil {
			if f := FormRefusal(r, err); f["StatusReason"] != "" {
				re.page.Reason, re.page.Error = in.StatusReason, f["StatusReason"]
				h.renderReactivation(w, r, http.StatusUnprocessableEntity, re)
				return
			}
			WriteError(w, r, err)
			return
		}
		from, err := h.save(r, re, in.StatusReason)
		switch e := AsError(err); {
		case err == nil:
			h.Flash.Put(r.Context(), h.savedMessage("", re.page.Name, from, lifecycle.Active))
			Redirect(w, r, re.page.Back)
		case e.Status >= 500 || e.Status == http.StatusForbidden || e.Status == http.StatusNotFound:
			WriteError(w, r, e)
		default:
			re.page.Reason = in.StatusReason
			re.page.Error = e.Message
			h.renderReactivation(w, r, e.Status, re)
		}
	}
}

// save sets what re names Active again for reason (directory.Reactivations)
// and returns the status it had.
func (h *Reactivations) save(r *http.Request, re reactivation, reason string) (string, error) {
	ctx, a, super := r.Context(), h.actor(r), PrincipalFrom(r.Context()).IsSuperUser()
	switch {
	case re.server != nil:
		return h.Reactivations.Server(ctx, a, *re.server, reason, super, func(c store.AuthorisationServer) error { return CheckIfMatch(r, c) })
	case re.app != nil:
		return h.Reactivations.Application(ctx, a, *re.app, reason, super, func(c store.SoftwareStatement) error { return CheckIfMatch(r, c) })
	}
	return h.Reactivations.Organisation(ctx, a, re.org, reason, super, func(c store.Organisation) error { return CheckIfMatch(r, c) })
}

func (h *Reactivations) renderReactivation(w http.ResponseWriter, r *http.Request, status int, re reactivation) {
	re.page.EndWord = h.Vocab.EndWord()
	Render(w, r, status, views.Reactivate(h.Shell(r, "Reactivate "+re.page.Name, "organisations", re.crumbs...), re.page))
}

func (h *Reactivations) loadReactivation(w http.ResponseWriter, r *http.Request, k lifecycle.Kind) (reactivation, bool) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return reactivation{}, false
	}
	ctx := r.Context()
	orgPath := paths.Organisation(o.OrganisationID)
	re := reactivation{org: o}
	switch k {
	case lifecycle.Organisation:
		servers, err := h.Store.ListAuthorisationServers(ctx, o.OrganisationID)
		if err != nil {
			WriteError(w, r, err)
			return re, false
		}
		apps, err := h.Store.ListSoftwareStatements(ctx, o.OrganisationID)
		if err != nil {
			WriteError(w, r, err)
			return re, false
		}
		ended := 0
		for _, s := range servers {
			if s.Status == lifecycle.Withdrawn {
				ended++
			}
		}
		for _, a := range apps {
			if a.Status == lifecycle.Withdrawn {
				ended++
			}
		}
		re.page = views.ReactivatePage{What: "Organisation", Name: o.OrganisationName, Status: o.Status, Action: orgPath + "/reactivate", Back: orgPath,
			Affects: []string{
				o.OrganisationName + " is listed again in the public participants list (/api/participants), with its Active authorisation servers.",
				"Its " + countOf(len(servers), "authorisation server", "authorisation servers") + " and " + countOf(len(apps), "application", "applications") +
					" keep their own status: " + strconv.Itoa(ended) + " of them " + isAre(ended) + " " + h.Vocab.EndWord() + " and stay so until reactivated on their own pages.",
				"Its regulatory documents and certifications count again on the home page's expiry list.",
			}}
		re.crumbs = h.orgCrumbs(&o, "Reactivate")
	case lifecycle.Application:
		a, err := h.Store.GetSoftwareStatement(ctx, o.OrganisationID, PathParam(r, "appID"))
		if err != nil {
			WriteError(w, r, directory.Named(err, "Application"))
			return re, false
		}
		page := orgPath + "/softwarestatements/" + a.SoftwareStatementID
		re.page = views.ReactivatePage{What: "Application", Name: a.ClientName, Status: a.Status, Action: page + "/reactivate", Back: page,
			Affects: []string{
				"Software statement assertions (SSAs) can be issued for " + a.ClientName + " (client ID " + a.ClientID + ") again.",
				"It counts again among the Active applications of " + o.OrganisationName + " (" + h.Vocab.Display(o.Status) + ").",
			}}
		re.crumbs = h.orgCrumbs(&o, "Reactivate "+a.ClientName)
		re.app = &a
	default:
		s, err := h.Store.GetAuthorisationServer(ctx, o.OrganisationID, PathParam(r, "serverID"))
		if err != nil {
			WriteError(w, r, directory.Named(err, "Authorisation server"))
			return re, false
		}
		re.page = views.ReactivatePage{What: "Authorisation server", Name: s.CustomerFriendlyName, Status: s.Status,
			Action: orgPath + "/authorisationservers/" + s.AuthorisationServerID + "/reactivate", Back: orgPath + "/authorisationservers",
			Affects: []string{
				"Its issuer " + s.Issuer + " is listed again under " + o.OrganisationName + " in the public participants list (/api/participants) while the organisation is Active (it is " + h.Vocab.Display(o.Status) + ").",
				"Its issuer stays reserved to it: no other authorisation server can take it.",
			}}
		re.crumbs = h.orgCrumbs(&o, "Reactivate "+s.CustomerFriendlyName)
		re.server = &s
	}
	re.page.Status = h.Vocab.Display(re.page.Status)
	return re, true
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// countOf is "1 server" or "3 servers".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
