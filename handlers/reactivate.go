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
// and applications.
type Reactivations struct {
	*Org
	Store reactivationStore
}

// reactivationStore is what Reactivations reads and writes.
type reactivationStore interface {
	UpdateOrganisation(ctx context.Context, a store.Audit, o store.Organisation, problems directory.Fields, check directory.Check[store.Organisation]) (store.Organisation, error)
	ListAuthorisationServers(ctx context.Context, orgID string) ([]store.AuthorisationServer, error)
	GetAuthorisationServer(ctx context.Context, orgID, id string) (store.AuthorisationServer, error)
	UpdateAuthorisationServer(ctx context.Context, a store.Audit, s store.AuthorisationServer, problems directory.Fields, check directory.Check[store.AuthorisationServer]) (store.AuthorisationServer, error)
	ListSoftwareStatements(ctx context.Context, orgID string) ([]store.SoftwareStatement, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
	UpdateSoftwareStatement(ctx context.Context, a store.Audit, s store.SoftwareStatement, problems directory.Fields, check directory.Check[store.SoftwareStatement]) (store.SoftwareStatement, error)
}

// Reactivation (issue 13): a Super User sets a withdrawn organisation,
// authorisation server or application back to Active from a page that
// says what that affects and asks why; the reason goes into the audit
// record (docs/design.md §4). The API does the same with PUT {Status:
// Active, StatusReason}.

// reactivation is one thing that can be reactivated, loaded for its page.
type reactivation struct {
	page   views.ReactivatePage
	crumbs []views.Crumb
	// save sets it Active with the reason, checking the transition in the
	// store's transaction; from receives the status it had.
	save func(ctx context.Context, r *http.Request, reason string, from *string) error
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
		var from string
		err := re.save(r.Context(), r, in.StatusReason, &from)
		if err != nil {
			e := AsError(directory.Named(err, re.page.What))
			if e.Status >= 500 || e.Status == http.StatusForbidden || e.Status == http.StatusNotFound {
				WriteError(w, r, e)
				return
			}
			re.page.Reason = in.StatusReason
			re.page.Error = e.Message
			h.renderReactivation(w, r, e.Status, re)
			return
		}
		h.Flash.Put(r.Context(), h.savedMessage("", re.page.Name, from, lifecycle.Active))
		Redirect(w, r, re.page.Back)
	}
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
	var re reactivation
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
		re.save = func(ctx context.Context, r *http.Request, reason string, from *string) error {
			cur := o
			cur.Status, cur.StatusReason = lifecycle.Active, reason
			_, err := h.Store.UpdateOrganisation(ctx, h.actorBecause(r, reason), cur, nil, func(c store.Organisation) error {
				return h.checkStatus(r, c, from, c.Status, lifecycle.Active, reason)
			})
			return err
		}
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
		re.save = func(ctx context.Context, r *http.Request, reason string, from *string) error {
			cur := a
			cur.Status, cur.StatusReason = lifecycle.Active, reason
			_, err := h.Store.UpdateSoftwareStatement(ctx, h.actorBecause(r, reason), cur, nil, func(c store.SoftwareStatement) error {
				return h.checkStatus(r, c, from, c.Status, lifecycle.Active, reason)
			})
			return err
		}
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
		re.save = func(ctx context.Context, r *http.Request, reason string, from *string) error {
			cur := s
			cur.Status, cur.StatusReason = lifecycle.Active, reason
			_, err := h.Store.UpdateAuthorisationServer(ctx, h.actorBecause(r, reason), cur, nil, func(c store.AuthorisationServer) error {
				return h.checkStatus(r, c, from, c.Status, lifecycle.Active, reason)
			})
			return err
		}
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
