package handlers

import (
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// AppForm shows the empty form (…/new) or an application's (…/{appID}/edit).
func (h *Applications) AppForm(w http.ResponseWriter, r *http.Request) {
	if o, a, ok := orgAndForm(h.Org, w, r, h.Apps.Get, "appID", "Application", store.SoftwareStatement{Status: lifecycle.Active}); ok {
		h.renderAppForm(w, r, http.StatusOK, o, a, a.SoftwareStatementID == "", nil)
	}
}

func (h *Applications) renderAppForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, a store.SoftwareStatement, isNew bool, errs map[string]string) {
	c, err := h.Apps.Choices(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f := views.NewAppForm(h.Vocab, o, a, isNew, errs, c.Flags, c.HeldRoles)
	if !isNew {
		f.Version = editVersion(r, status, a, func() (store.SoftwareStatement, error) {
			return h.Apps.Get(r.Context(), o.OrganisationID, a.SoftwareStatementID)
		},
			appFieldLabels, views.OptionNames(f.FlagOpts, f.RoleOpts, f.ModeOpts))
	}
	title := "Edit application"
	if isNew {
		title = "Add application"
	}
	crumbs := views.OrgFormCrumbs(&o, "Applications", paths.OrganisationTab(o.OrganisationID, "softwarestatements"), title)
	Render(w, r, status, views.AppFormPage(h.Shell(r, title, "organisations", crumbs...), f))
}

// appFieldLabels name the application form's fields where their member
// names read badly (as the form's labels do).
var appFieldLabels = map[string]string{"RedirectUri": "Redirect URIs", "JwksUri": "JWKS URI", "FederationEntityId": "Federation entity ID",
	"backchannel_token_delivery_mode": "CIBA token delivery mode", "backchannel_client_notification_endpoint": "CIBA client notification endpoint",
	"software_origins_uri": "WebAuthn origins"}

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
	if inForm(r, err) {
		h.renderAppForm(w, r, AsError(err).Status, o, a, true, orMessage(err, "ClientName"))
		return
	}
	h.appSaved(w, r, o, a, "", err, true)
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
	useFormVersion(r)
	a, from, err := h.Apps.Update(r.Context(), h.actor(r), in, refused, bySuperUser(r), ifMatchCheck[store.SoftwareStatement](r))
	if stale(r, err) {
		h.renderAppForm(w, r, http.StatusPreconditionFailed, o, in, false, nil)
		return
	}
	if inForm(r, err) {
		h.renderAppForm(w, r, AsError(err).Status, o, a, false, orMessage(err, "ClientName"))
		return
	}
	h.appSaved(w, r, o, a, from, err, false)
}

// SetAppStatus is the status buttons of the application page: a refusal
// is a message on the page.
func (h *Applications) SetAppStatus(w http.ResponseWriter, r *http.Request) {
	o, a, ok := orgAndItem(h.Org, w, r, h.Apps.Get, "appID", "Application")
	if !ok {
		return
	}
	var in struct {
		Status string `json:"Status"`
	}
	err := Decode(w, r, &in)
	var from string
	if err == nil {
		a.Status = strings.TrimSpace(in.Status)
		a, from, err = h.Apps.Update(r.Context(), h.actor(r), a, nil, bySuperUser(r), ifMatchCheck[store.SoftwareStatement](r))
	} else if FormRefusal(r, err) == nil {
		WriteError(w, r, err)
		return
	}
	if inForm(r, err) {
		h.Refused(w, r, "Not changed: ", paths.Application(o.OrganisationID, a.SoftwareStatementID))(AsError(err))
		return
	}
	h.appSaved(w, r, o, a, from, err, false)
}

// appSaved answers a saved application (from is the status it had), or
// an error.
func (h *Applications) appSaved(w http.ResponseWriter, r *http.Request, o store.Organisation, a store.SoftwareStatement, from string, err error, isNew bool) {
	h.Saved(w, r, Saved{Err: err, Flash: views.SavedMessage(h.Vocab, "Application ", a.ClientName, from, a.Status), Page: paths.Application(o.OrganisationID, a.SoftwareStatementID),
		Status: http.StatusOK, Body: h.showApp(a), ETag: a}.Created(isNew, paths.API(paths.Application(o.OrganisationID, a.SoftwareStatementID))))
}
