package handlers

import (
	"net/http"
	"net/url"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/views"
)

// OrgAdmins serves the administrators of an organisation (docs/design.md
// §19): /api/organisations/{orgID}/administrators and the organisation's
// People tab.
type OrgAdmins struct {
	*Org
	Admins *directory.OrgAdministrators
}

func orgAdminsPage(orgID string) string { return paths.OrganisationTab(orgID, "administrators") }

// List answers the organisation's administrators; in the browser, the
// People tab.
func (h *OrgAdmins) List(w http.ResponseWriter, r *http.Request) {
	h.list(w, r, http.StatusOK)
}

// New is the page that invites an administrator (…/administrators/new).
func (h *OrgAdmins) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, "", nil)
}

// newPage is the invitation page showing email and errs beside its field.
func (h *OrgAdmins) newPage(w http.ResponseWriter, r *http.Request, status int, email string, errs map[string]string) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	crumbs := append(views.OrgCrumbs(&o, "People"), views.Crumb{Label: "Invite an administrator"})
	crumbs[len(crumbs)-2].Href = orgAdminsPage(o.OrganisationID)
	p := views.OrgAdminsPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabPeople), Email: email, Errors: errs}
	Render(w, r, status, views.OrgAdminNew(h.Shell(r, "Invite an administrator", "organisations", crumbs...), p))
}

// list answers the list with status.
func (h *OrgAdmins) list(w http.ResponseWriter, r *http.Request, status int) {
	admins, err := h.Admins.List(r.Context(), h.actor(r), PathParam(r, "orgID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if WantsJSON(r) {
		Vary(w)
		WriteJSON(w, status, admins)
		return
	}
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	a := h.actor(r)
	p := views.OrgAdminsPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabPeople), Admins: admins, Me: a.Actor, Limited: a.Limited()}
	Render(w, r, status, views.OrgAdminsTab(h.Shell(r, "People", "organisations", views.OrgCrumbs(&o, "People")...), p))
}

// Get answers one administrator of the organisation.
func (h *OrgAdmins) Get(w http.ResponseWriter, r *http.Request) {
	a, err := h.Admins.Get(r.Context(), h.actor(r), PathParam(r, "orgID"), PathParam(r, "email"))
	writeTagged(w, r, a, err)
}

// Invite records an invitation to administer the organisation and sends it.
func (h *OrgAdmins) Invite(w http.ResponseWriter, r *http.Request) {
	orgID := PathParam(r, "orgID")
	var in struct {
		Email string `json:"Email"`
	}
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	a, err := h.Admins.Invite(r.Context(), h.actor(r), orgID, in.Email, refused)
	if err != nil && inForm(r, err) {
		h.newPage(w, r, AsError(err).Status, in.Email, orMessage(err, "Email"))
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Invitation sent to " + a.Email + ".", Page: orgAdminsPage(orgID),
		Status: http.StatusCreated, Body: a, ETag: a, Location: "/api/organisations/" + url.PathEscape(orgID) + "/administrators/" + url.PathEscape(a.Email)})
}

// Update deactivates or reactivates an administrator of the organisation
// (PUT {Status} with If-Match; the row's button in the browser). A
// refusal of the button shows the list again with the refusal at its top.
func (h *OrgAdmins) Update(w http.ResponseWriter, r *http.Request) {
	orgID, email := PathParam(r, "orgID"), PathParam(r, "email")
	var in struct {
		Status string `json:"Status"`
	}
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	// The If-Match comparison runs inside the write's transaction.
	next, err := h.Admins.SetStatus(r.Context(), h.actor(r), orgID, email, in.Status, refused,
		func(cur directory.OrganisationAdministrator) error { return CheckIfMatch(r, cur) })
	if err == nil {
		h.Saved(w, r, Saved{Flash: next.Email + " is now " + next.Status + ".", Page: orgAdminsPage(orgID), Status: http.StatusOK, Body: next, ETag: next})
		return
	}
	switch e := AsError(err); {
	case WantsJSON(r) || e.Status >= 500 || e.Status == http.StatusNotFound || e.Status == http.StatusPreconditionFailed:
		WriteError(w, r, err)
	default:
		rowRefused(h.Base, r, email, e)
		h.list(w, r, e.Status)
	}
}
