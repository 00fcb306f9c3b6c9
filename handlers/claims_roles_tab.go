package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// tab renders the Roles tab of o, or with add its Add authority claim
// page; p carries the form and a refusal.
func (h *Claims) tab(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, p views.ClaimsPage, add ...bool) {
	t, err := h.Claims.Tab(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p.OrgPage = views.NewOrgPage(h.Vocab, o, views.TabRoles)
	p = p.WithChoices(t.Claims, t.Authorities, t.Roles)
	crumbs := views.OrgCrumbs(&o, "Roles")
	if len(add) == 0 || !add[0] {
		Render(w, r, status, views.ClaimsTab(h.Shell(r, "Roles", "organisations", crumbs...), p))
		return
	}
	crumbs[len(crumbs)-1].Href = paths.OrganisationTab(o.OrganisationID, "authority-claims")
	crumbs = append(crumbs, views.Crumb{Label: "Add authority claim"})
	Render(w, r, status, views.ClaimNew(h.Shell(r, "Add authority claim", "organisations", crumbs...), p))
}

// New is the Add authority claim page (…/authority-claims/new).
func (h *Claims) New(w http.ResponseWriter, r *http.Request) {
	if o, ok := h.Org.loadOrg(w, r); ok {
		h.tab(w, r, http.StatusOK, o, views.ClaimsPage{Form: store.AuthorityClaim{Status: "Active"}}, true)
	}
}

// failed renders refusal e: a conflict listed, or the messages beside the
// form's fields (form as sent); on the Add page with add, else on the tab.
func (h *Claims) failed(w http.ResponseWriter, r *http.Request, o store.Organisation, e *Error, form store.AuthorityClaim, add bool) {
	p := views.ClaimsPage{Form: form}
	if e.Status == http.StatusConflict {
		p.Conflict, p.InTheWay = views.Conflict(e.Message, e.InTheWay)
	} else {
		p = p.Refused(FieldMap(e), e.Message)
	}
	h.tab(w, r, e.Status, o, p, add)
}

// Create adds a claim: the authority must cover the domain (422 on
// AuthorityId), the role must be a role of the domain (422 on Role), and
// the Exclusive rule holds both ways (409 naming the claims).
func (h *Claims) Create(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	in, _, err := h.read(w, r, nil)
	refused := FormRefusal(r, err)
	if err != nil && refused == nil {
		WriteError(w, r, err)
		return
	}
	in.OrganisationID = o.OrganisationID
	c, err := h.Claims.Create(r.Context(), h.actor(r), in, refused)
	if err != nil && inForm(r, err) {
		in.Validate(true) // the form shows what the layer read (Active)
		h.failed(w, r, o, AsError(err), in, true)
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "The role " + c.Role + " (" + c.AuthorisationDomain + ") " + views.SaveWord(true) + ".", Page: paths.OrganisationTab(o.OrganisationID, "authority-claims"),
		Status: http.StatusCreated, Body: c, ETag: c, Location: paths.API(paths.Claim(o.OrganisationID, c.ClaimID))})
}

// Update changes a claim's RegistrationId or Status (Inactive ends it;
// Active again is checked like a new claim). The tab's buttons change the
// Status only.
func (h *Claims) Update(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	id := PathParam(r, "claimID")
	in, isAPI, err := h.read(w, r, func() (store.AuthorityClaim, error) { return h.Claims.Get(r.Context(), o.OrganisationID, id) })
	refused := FormRefusal(r, err)
	if err != nil && refused == nil {
		WriteError(w, r, err)
		return
	}
	var cur store.AuthorityClaim
	if !isAPI {
		if cur, err = h.Claims.Get(r.Context(), o.OrganisationID, id); err != nil {
			WriteError(w, r, err)
			return
		}
		in.RegistrationID = cur.RegistrationID
	}
	in.OrganisationID = o.OrganisationID
	c, err := h.Claims.Update(r.Context(), h.actor(r), id, in, refused, func(cur store.AuthorityClaim) error { return CheckIfMatch(r, cur) })
	switch e, here := refusedHere(r, err); {
	case !here || e.Status == http.StatusPreconditionFailed:
		h.Saved(w, r, Saved{Err: err, Flash: "The role " + c.Role + " (" + c.AuthorisationDomain + ") is " + c.Status + ".", Page: paths.OrganisationTab(o.OrganisationID, "authority-claims"),
			Status: http.StatusOK, Body: c, ETag: c})
	case e.Status == http.StatusConflict:
		// A button's refusal is about its row, not the new claim form: a
		// conflict lists what is in the way, anything else is said at the
		// top of the tab.
		h.failed(w, r, o, e, store.AuthorityClaim{Status: "Active"}, false)
	default:
		rowRefused(h.Base, r, "the role "+cur.Role+" ("+cur.AuthorisationDomain+")", e)
		h.tab(w, r, e.Status, o, views.ClaimsPage{Form: store.AuthorityClaim{Status: "Active"}})
	}
}
