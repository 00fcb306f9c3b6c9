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
	Store applicationStore
	Algs  func() []string // SSA algorithms offered on the application page
}

// applicationStore is what Applications reads and writes.
type applicationStore interface {
	ListSoftwareStatements(ctx context.Context, orgID string) ([]store.SoftwareStatement, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
	CreateSoftwareStatement(ctx context.Context, a store.Audit, s store.SoftwareStatement) (store.SoftwareStatement, error)
	UpdateSoftwareStatement(ctx context.Context, a store.Audit, s store.SoftwareStatement, check func(store.SoftwareStatement) error) (store.SoftwareStatement, error)
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
// listedTwice reports the first item of list that appears again.
func listedTwice(list []string) (string, bool) {
	seen := map[string]bool{}
	for _, v := range list {
		if seen[v] {
			return v, true
		}
		seen[v] = true
	}
	return "", false
}

func (h *Applications) validateApp(s *store.SoftwareStatement, isNew bool) map[string]string {
	f := map[string]string{}
	required(f, "ClientName", s.ClientName, "Client name")
	checkLen(f, "ClientName", s.ClientName, maxName)
	checkLen(f, "Description", s.Description, maxDescription)
	if s.Version == "" {
		s.Version = "1"
	}
	for _, u := range s.RedirectURI {
		if !formats.ValidRedirectURI(u) {
			f["RedirectUri"] = "Redirect URIs must be https URLs (http only on loopback), without fragment: " + u
			break
		}
	}
	// Each once, as origins and flags: the SSA lists them as they are.
	if u, twice := listedTwice(s.RedirectURI); twice && f["RedirectUri"] == "" {
		f["RedirectUri"] = "The redirect URI " + u + " is listed twice."
	}
	if r, twice := listedTwice(s.Roles); twice {
		f["Roles"] = "The role " + r + " is listed twice."
	}
	if s.JwksURI != "" && !formats.ValidHTTPSURL(s.JwksURI) {
		f["JwksUri"] = "The JWKS URI must be an https URL."
	}
	h.checkFederationEntityID(f, s.FederationEntityID)
	if s.Status == "" && isNew {
		s.Status = lifecycle.Active
	} else if canon, ok := lifecycle.ParseStatus(lifecycle.Application, s.Status); ok {
		s.Status = canon
	} else {
		f["Status"] = lifecycle.StatusHelp(lifecycle.Application, h.Vocab)
	}
	mode := s.BackchannelTokenDeliveryMode
	switch mode {
	case "", "poll", "ping", "push":
	default:
		f["backchannel_token_delivery_mode"] = "The delivery mode must be poll, ping or push."
	}
	ep := s.BackchannelClientNotificationEndpoint
	if ep != "" && !formats.ValidHTTPSURL(ep) {
		f["backchannel_client_notification_endpoint"] = "The notification endpoint must be an https URL."
	} else if ep == "" && (mode == "ping" || mode == "push") {
		f["backchannel_client_notification_endpoint"] = "A notification endpoint is required for the " + mode + " delivery mode (CIBA)."
	}
	seen := map[string]bool{}
	for _, o := range s.SoftwareOriginsURI {
		if !formats.ValidWebAuthnOrigin(o) {
			f["software_origins_uri"] = "Each origin must be https://host[:port] with no path: " + o
			break
		}
		if seen[o] {
			f["software_origins_uri"] = "The origin " + o + " is listed twice."
			break
		}
		seen[o] = true
	}
	if s.Flags == nil {
		s.Flags = []string{}
	}
	// Limits last: "too long" is the message that says what to fix.
	checkLen(f, "Version", s.Version, maxVersion)
	checkLen(f, "JwksUri", s.JwksURI, maxURL)
	checkLen(f, "FederationEntityId", s.FederationEntityID, maxURL)
	checkLen(f, "backchannel_client_notification_endpoint", ep, maxURL)
	checkList(f, "RedirectUri", s.RedirectURI, maxRedirects, maxURL)
	checkList(f, "Roles", s.Roles, maxRoles, maxRole)
	checkList(f, "software_origins_uri", s.SoftwareOriginsURI, maxOrigins, maxOrigin)
	checkList(f, "Flags", s.Flags, maxFlags, 0)
	return f
}

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
	o, in, ok := orgAndBody(h.Org, w, r, func(o store.Organisation, in store.SoftwareStatement, f map[string]string) {
		h.renderAppForm(w, r, http.StatusUnprocessableEntity, o, in, true, withRefused(h.validateApp(&in, true), f))
	})
	if !ok {
		return
	}
	// Server-set fields sent by the client are ignored (docs/decisions.md).
	in.OrganisationID, in.SoftwareStatementID, in.ClientID = o.OrganisationID, "", ""
	var err error
	var a store.SoftwareStatement
	if errs := h.validateApp(&in, true); len(errs) > 0 {
		err = Validation(withStoreChecks(r.Context(), errs, func(ctx context.Context) error {
			_, err := h.Store.CreateSoftwareStatement(ctx, h.actor(r), in)
			return err
		}))
	} else {
		a, err = h.Store.CreateSoftwareStatement(r.Context(), h.actor(r), in)
		err = directory.Named(err, "Application")
	}
	h.appSaved(w, r, o, in, a, err, true, false, "")
}

// UpdateApp replaces an application.
func (h *Applications) UpdateApp(w http.ResponseWriter, r *http.Request) {
	o, in, ok := orgAndUpdate(h.Org, w, r, h.Store.GetSoftwareStatement, "appID", func(o store.Organisation, in store.SoftwareStatement, f map[string]string) {
		in.SoftwareStatementID = PathParam(r, "appID")
		h.renderAppForm(w, r, http.StatusUnprocessableEntity, o, in, false, withRefused(h.validateApp(&in, false), f))
	})
	if !ok {
		return
	}
	in.OrganisationID, in.SoftwareStatementID = o.OrganisationID, PathParam(r, "appID")
	h.saveApp(w, r, o, in, false)
}

func (h *Applications) saveApp(w http.ResponseWriter, r *http.Request, o store.Organisation, in store.SoftwareStatement, statusOnly bool) {
	var err error
	var a store.SoftwareStatement
	var from string
	if errs := h.validateApp(&in, false); len(errs) > 0 {
		err = Validation(withStoreChecks(r.Context(), errs, func(ctx context.Context) error {
			_, err := h.Store.UpdateSoftwareStatement(ctx, h.actor(r), in, func(store.SoftwareStatement) error { return nil })
			return err
		}))
	} else {
		a, err = h.Store.UpdateSoftwareStatement(r.Context(), h.actorBecause(r, in.StatusReason), in, func(cur store.SoftwareStatement) error {
			return h.checkStatus(r, cur, &from, cur.Status, in.Status, in.StatusReason)
		})
		err = directory.Named(err, "Application")
	}
	h.appSaved(w, r, o, in, a, err, false, statusOnly, from)
}

// appSaved answers a create or an update; from is the status before an update.
func (h *Applications) appSaved(w http.ResponseWriter, r *http.Request, o store.Organisation, in, a store.SoftwareStatement, err error, isNew, statusOnly bool, from string) {
	sv := Saved{Err: err, Flash: h.savedMessage("Application ", a.ClientName, from, a.Status), Page: paths.Application(o.OrganisationID, a.SoftwareStatementID),
		Status: http.StatusOK, Body: h.showApp(a), ETag: a,
		Again: formAgain(func(e *Error) { h.renderAppForm(w, r, e.Status, o, in, isNew, orMessage(err, "ClientName")) })}
	if statusOnly {
		sv.Again = formAgain(h.Refused(w, r, "Not changed: ", paths.Application(o.OrganisationID, in.SoftwareStatementID)))
	}
	h.Saved(w, r, sv.Created(isNew, paths.API(paths.Application(o.OrganisationID, a.SoftwareStatementID))))
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
	h.saveApp(w, r, o, a, true)
}
