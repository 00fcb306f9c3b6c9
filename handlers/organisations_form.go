package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// NewOrganisation shows the empty form.
func (h *Organisations) NewOrganisation(w http.ResponseWriter, r *http.Request) {
	h.renderOrgForm(w, r, http.StatusOK, store.Organisation{Status: lifecycle.Pending, Flags: []string{}}, true, nil)
}

// EditOrganisation shows the form filled in.
func (h *Organisations) EditOrganisation(w http.ResponseWriter, r *http.Request) {
	if o, ok := h.loadOrg(w, r); ok {
		h.renderOrgForm(w, r, http.StatusOK, o, false, nil)
	}
}

func (h *Organisations) renderOrgForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, isNew bool, errs map[string]string) {
	flags, err := h.flags(r, "Organisation")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	var v views.Version
	if !isNew {
		// The version being edited: the one first shown, kept across a
		// form shown again with errors, the stored one after a 412.
		v = editVersion(r, status, o, func() (store.Organisation, error) { return h.Orgs.Get(r.Context(), o.OrganisationID) },
			orgFieldLabels, views.OptionNames(views.FlagOptions(flags, nil, false)))
	}
	title, crumbs := views.OrgFormTitle(o, isNew)
	Render(w, r, status, views.OrganisationFormPage(h.Shell(r, title, "organisations", crumbs...), views.NewOrgForm(h.Vocab, o, isNew, errs, flags, v)))
}

// orgFieldLabels name the organisation form's fields where their member
// names read badly.
var orgFieldLabels = map[string]string{"AddressLine1": "Address line 1", "AddressLine2": "Address line 2"}

// CreateOrganisation adds an organisation.
func (h *Organisations) CreateOrganisation(w http.ResponseWriter, r *http.Request) {
	var in store.Organisation
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	o, err := h.Orgs.Create(r.Context(), h.actor(r), in, refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Tell: func() { h.tellCreated(r, o) }, Page: paths.Organisation(o.OrganisationID),
			Status: http.StatusCreated, Body: h.showOrg(o), ETag: o, Location: paths.API(paths.Organisation(o.OrganisationID))})
	case !WantsJSON(r) && AsError(err).Status < 500:
		h.renderOrgForm(w, r, AsError(err).Status, o, true, orMessage(err, "OrganisationName"))
	default:
		WriteError(w, r, err)
	}
}

// tellCreated is the browser's message on a new organisation: a warning
// when another one has the same registration.
func (h *Organisations) tellCreated(r *http.Request, o store.Organisation) {
	if same, err := h.Orgs.SameRegistration(r.Context(), o); err == nil && len(same) > 0 {
		h.Flash.Warn(r.Context(), views.SameRegistration(h.Vocab, o, same))
		return
	}
	h.Flash.Put(r.Context(), views.SavedMessage(h.Vocab, "", o.OrganisationName, "", o.Status))
}
