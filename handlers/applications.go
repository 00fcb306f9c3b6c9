package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Applications serves the applications (software statements) of an
// organisation.
type Applications struct {
	*Org
	Apps  *directory.Applications
	Store applicationStore
	Algs  func() []string // SSA algorithms offered on the application page
}

// applicationStore is what Applications reads and writes.
type applicationStore interface {
	ListSoftwareStatements(ctx context.Context, orgID string) ([]store.SoftwareStatement, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
	ActiveClaimRoles(ctx context.Context, orgID string) ([]string, error)
}

func (h *Applications) showApp(s store.SoftwareStatement) store.SoftwareStatement {
	s.Status = h.Vocab.Display(s.Status)
	return s
}

// ListApps is the applications tab (a bare array on the API).
func (h *Applications) ListApps(w http.ResponseWriter, r *http.Request) {
	o, items, ok := orgItems(h.Org, w, r, h.Store.ListSoftwareStatements, h.showApp)
	if !ok {
		return
	}
	RespondPage(w, r, http.StatusOK, items, func() (templ.Component, error) {
		_, names, err := h.flagOpts(r.Context(), "Software_Statement", nil, false)
		p := views.AppsPage{OrgPage: h.orgPage(o, views.TabApplications), Apps: items, FlagNames: names}
		return views.AppsTab(h.Shell(r, "Applications", "organisations", h.orgCrumbs(&o, "Applications")...), p), err
	})
}

// AppDetailPage builds the view model of an application's page; the SSA
// handler adds to it.
func (h *Applications) AppDetailPage(r *http.Request, o store.Organisation, a store.SoftwareStatement) (views.AppDetailPage, error) {
	_, names, err := h.flagOpts(r.Context(), "Software_Statement", nil, false)
	if err != nil {
		return views.AppDetailPage{}, err
	}
	held, err := h.Store.ActiveClaimRoles(r.Context(), o.OrganisationID)
	p := views.AppDetailPage{OrgPage: h.orgPage(o, views.TabApplications), App: h.showApp(a), FlagNames: names,
		AppStatus: h.nextStatuses(lifecycle.Application, a.Status), StaleRoles: notIn(a.Roles, held)}
	if refused := directory.SSARefused(h.Vocab, o, a); refused != nil {
		p.SSARefused = sentence(refused.Message)
		p.OrgNotActive = refused.Code == directory.CodeOrganisationNotActive
	}
	return p, err
}

// notIn lists the entries of l that are not in of.
func notIn(l, of []string) []string {
	var out []string
	for _, v := range l {
		if !contains(of, v) {
			out = append(out, v)
		}
	}
	return out
}

// GetApp is one application.
func (h *Applications) GetApp(w http.ResponseWriter, r *http.Request) {
	o, a, ok := orgAndItem(h.Org, w, r, h.Store.GetSoftwareStatement, "appID", "Application")
	if !ok {
		return
	}
	SetETag(w, a)
	RespondPage(w, r, http.StatusOK, h.showApp(a), func() (templ.Component, error) {
		p, err := h.AppDetailPage(r, o, a)
		if h.Algs != nil {
			p.Algs = h.Algs()
		}
		if len(p.Algs) > 0 {
			p.SSAAlg = p.Algs[0]
		}
		return views.AppDetailWithSSA(h.Shell(r, a.ClientName, "organisations", h.orgCrumbs(&o, a.ClientName)...), p), err
	})
}

// validateApp checks an application, the CIBA rule and WebAuthn origins.
func (h *Applications) renderAppForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, a store.SoftwareStatement, isNew bool, errs map[string]string) {
	if canon, ok := lifecycle.ParseStatus(lifecycle.Application, a.Status); ok {
		a.Status = canon
	}
	flagOpts, _, err := h.flagOpts(r.Context(), "Software_Statement", a.Flags, false)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	modes := []views.Option{{Value: "", Label: "None (no CIBA)", Selected: a.BackchannelTokenDeliveryMode == ""}}
	for _, m := range formats.DeliveryModes {
		modes = append(modes, views.Option{Value: m, Label: m, Selected: a.BackchannelTokenDeliveryMode == m})
	}
	action := paths.OrganisationTab(o.OrganisationID, "softwarestatements")
	if !isNew {
		action += "/" + a.SoftwareStatementID
	}
	// Roles are chosen among the organisation's Active claims; a role the
	// application carries without a claim any more is shown, marked.
	held, err := h.Store.ActiveClaimRoles(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	var roleOpts []views.Option
	for _, ro := range held {
		roleOpts = append(roleOpts, views.Option{Value: ro, Label: ro, Selected: contains(a.Roles, ro)})
	}
	for _, ro := range notIn(a.Roles, held) {
		roleOpts = append(roleOpts, views.Option{Value: ro, Label: ro + " (no Active claim)", Selected: true})
	}
	f := views.AppForm{OrgID: o.OrganisationID, App: a, IsNew: isNew, Action: action, Errors: errs,
		StatusOpts: h.statusOpts(lifecycle.Application, a.Status, false), FlagOpts: flagOpts, ModeOpts: modes, RoleOpts: roleOpts}
	Render(w, r, status, views.AppFormPage(h.Shell(r, "Application", "organisations", h.orgCrumbs(&o, "Application")...), f))
}

// AppForm shows the empty form (…/new) or an application's (…/{appID}/edit).
func (h *Applications) AppForm(w http.ResponseWriter, r *http.Request) {
	if o, a, ok := orgAndForm(h.Org, w, r, h.Store.GetSoftwareStatement, "appID", "Application", store.SoftwareStatement{Status: lifecycle.Active}); ok {
		h.renderAppForm(w, r, http.StatusOK, o, a, a.SoftwareStatementID == "", nil)
	}
}

// CreateApp adds an application.
func (h *Applications) CreateApp(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	var in store.SoftwareStatement
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	// Server-set fields sent by the client are ignored (docs/decisions.md).
	in.OrganisationID, in.SoftwareStatementID, in.ClientID = o.OrganisationID, "", ""
	a, err := h.Apps.Create(r.Context(), h.actor(r), in, refused)
	h.appSaved(w, r, o, in, a, err, true, false, "")
}

// UpdateApp replaces an application.
func (h *Applications) UpdateApp(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	id := PathParam(r, "appID")
	var in store.SoftwareStatement
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.SoftwareStatement, error) { return h.Apps.Get(r.Context(), o.OrganisationID, id) }))
	if !ok {
		return
	}
	in.OrganisationID, in.SoftwareStatementID = o.OrganisationID, id
	h.saveApp(w, r, o, in, refused, false)
}

func (h *Applications) saveApp(w http.ResponseWriter, r *http.Request, o store.Organisation, in store.SoftwareStatement, refused map[string]string, statusOnly bool) {
	var from string
	// The transition is checked in the status's canonical word; a status
	// that has none is refused with the fields, before the check runs.
	next, _ := lifecycle.ParseStatus(lifecycle.Application, in.Status)
	a, err := h.Apps.Update(r.Context(), h.actorBecause(r, in.StatusReason), in, refused, func(cur store.SoftwareStatement) error {
		return h.checkStatus(r, cur, &from, cur.Status, next, in.StatusReason)
	})
	h.appSaved(w, r, o, in, a, err, false, statusOnly, from)
}

// appSaved answers a create or an update; from is the status before an update.
func (h *Applications) appSaved(w http.ResponseWriter, r *http.Request, o store.Organisation, in, a store.SoftwareStatement, err error, isNew, statusOnly bool, from string) {
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: h.savedMessage("Application ", a.ClientName, from, a.Status), Page: paths.Application(o.OrganisationID, a.SoftwareStatementID),
			Status: http.StatusOK, Body: h.showApp(a), ETag: a}.Created(isNew, paths.API(paths.Application(o.OrganisationID, a.SoftwareStatementID))))
	case !inForm(r, err):
		WriteError(w, r, err)
	case statusOnly:
		h.Refused(w, r, "Not changed: ", paths.Application(o.OrganisationID, in.SoftwareStatementID))(AsError(err))
	default:
		in.Validate(isNew, h.Vocab, h.AllowPrivateURLs) // the form shows what the layer read (Version 1, Active)
		h.renderAppForm(w, r, AsError(err).Status, o, in, isNew, orMessage(err, "ClientName"))
	}
}

// SetAppStatus is the status buttons of the application page.
func (h *Applications) SetAppStatus(w http.ResponseWriter, r *http.Request) {
	o, a, ok := orgAndItem(h.Org, w, r, h.Store.GetSoftwareStatement, "appID", "Application")
	if !ok {
		return
	}
	var in struct {
		Status string `json:"Status"`
	}
	if err := Decode(w, r, &in); err != nil {
		if FormRefusal(r, err) != nil {
			// Said like the button's other refusals (appSaved).
			h.Refused(w, r, "Not changed: ", paths.Application(o.OrganisationID, a.SoftwareStatementID))(AsError(err))
			return
		}
		WriteError(w, r, err)
		return
	}
	a.Status = strings.TrimSpace(in.Status)
	h.saveApp(w, r, o, a, nil, true)
}
