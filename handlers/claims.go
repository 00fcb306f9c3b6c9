package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// claimChoices lists what the Roles tab's form offers: the authorities and
// the roles of their domains.
type claimChoices interface {
	ListAuthorities(ctx context.Context) ([]store.Authority, error)
	ListDomainRoles(ctx context.Context, domain string) ([]store.DomainRole, error)
}

// Claims serves an organisation's authority claims: the Roles tab and
// /organisations/{OrganisationId}/authority-claims (Data Administrators
// and Super Users).
type Claims struct {
	*Base
	Org    *Org
	Claims *directory.Claims
	Store  claimChoices
}

// claimIn is a claim as a client sends it; the read-only fields of a
// claim it read are accepted and ignored.
type claimIn struct {
	ClaimID             string `json:"ClaimId"`
	OrganisationID      string `json:"OrganisationId"`
	AuthorityID         string `json:"AuthorityId"`
	AuthorityName       string `json:"AuthorityName"`
	AuthorisationDomain string `json:"AuthorisationDomain"`
	Role                string `json:"Role"`
	RegistrationID      string `json:"RegistrationId"`
	Status              string `json:"Status"`
	CreatedOn           any    `json:"CreatedOn"`
	UpdatedOn           any    `json:"UpdatedOn"`
}

// claimForm is the Roles tab's form: the domain and role are one choice.
type claimForm struct {
	AuthorityID    string `json:"AuthorityId"`
	DomainRole     string `json:"DomainRole"` // Domain/Role
	RegistrationID string `json:"RegistrationId"`
	Status         string `json:"Status"`
}

// read decodes a claim from the API's JSON or the Roles tab's form; true
// for the API. For an update, stored reads the claim as it is: text sent
// back as it holds it (a RegistrationId saved before the text rule, in a
// PUT of the claim as read) is spared by the text rule (keptText).
func (h *Claims) read(w http.ResponseWriter, r *http.Request, stored func() (store.AuthorityClaim, error)) (store.AuthorityClaim, bool, error) {
	var in claimIn
	var form claimForm
	isAPI, err := DecodeAs(w, r, &in, &form)
	if stored != nil {
		var sent any = &form
		if isAPI {
			sent = &in
		}
		err = keptText(err, storedOf(sent, stored))
	}
	if isAPI || (err != nil && FormRefusal(r, err) == nil) {
		return store.AuthorityClaim{ClaimID: in.ClaimID, AuthorityID: strings.TrimSpace(in.AuthorityID), AuthorisationDomain: in.AuthorisationDomain,
			Role: in.Role, RegistrationID: in.RegistrationID, Status: in.Status}, isAPI, err
	}
	dom, role, _ := strings.Cut(form.DomainRole, "/")
	// A field the text rule refused comes back with what was typed, to be
	// shown beside it (FormRefusal).
	return store.AuthorityClaim{AuthorityID: form.AuthorityID, AuthorisationDomain: dom, Role: role, RegistrationID: form.RegistrationID, Status: form.Status}, false, err
}

func (h *Claims) tab(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, p views.ClaimsPage) {
	ctx := r.Context()
	claims, err := h.Claims.List(ctx, o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	auths, err := h.Store.ListAuthorities(ctx)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	roles, err := h.Store.ListDomainRoles(ctx, "")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p.OrgPage, p.Claims = h.Org.orgPage(o, views.TabRoles), claims
	covered := map[string]bool{} // domains an Active authority covers: only their roles can be claimed
	for _, a := range auths {
		if a.Status == "Active" {
			for _, d := range a.AuthorisationDomains {
				covered[d] = true
			}
			p.AuthorityOpts = append(p.AuthorityOpts, views.Option{Value: a.AuthorityID, Label: a.AuthorityName + " (" + a.AuthorityCode + "; " + strings.Join(a.AuthorisationDomains, ", ") + ")", Selected: a.AuthorityID == p.Form.AuthorityID})
		}
	}
	p.Exclusive = map[string]bool{}
	for _, ro := range roles {
		key := ro.AuthorisationDomain + "/" + ro.Name
		p.Exclusive[key] = ro.Exclusive
		chosen := key == p.Form.AuthorisationDomain+"/"+p.Form.Role
		if ro.Status == "Active" && (covered[ro.AuthorisationDomain] || chosen) {
			label := ro.AuthorisationDomain + ": " + ro.Name
			if ro.Exclusive {
				label += " (Exclusive)"
			}
			p.RoleOpts = append(p.RoleOpts, views.Option{Value: key, Label: label, Selected: chosen})
		}
	}
	if p.Errors == nil {
		p.Errors = map[string]string{}
	}
	Render(w, r, status, views.ClaimsTab(h.Shell(r, "Roles", "organisations", h.Org.orgCrumbs(&o, "Roles")...), p))
}

func (h *Claims) failed(w http.ResponseWriter, r *http.Request, o store.Organisation, e *Error, form store.AuthorityClaim) {
	err := error(e)
	p := views.ClaimsPage{Form: form}
	if e.Status == http.StatusConflict {
		p.Conflict, p.InTheWay = views.Conflict(e.Message, e.InTheWay)
	} else {
		p.Errors = FieldMap(err)
		if p.Errors["AuthorisationDomain"] != "" {
			p.Errors["DomainRole"] = p.Errors["AuthorisationDomain"]
		}
		if p.Errors["Role"] != "" {
			p.Errors["DomainRole"] = p.Errors["Role"]
		}
		if len(p.Errors) == 0 {
			p.Errors["_"] = e.Message
		}
	}
	h.tab(w, r, e.Status, o, p)
}

// List is the Roles tab (a bare array on the API).
func (h *Claims) List(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	if HTMLPage(w, r, func() { h.tab(w, r, http.StatusOK, o, views.ClaimsPage{Form: store.AuthorityClaim{Status: "Active"}}) }) {
		return
	}
	claims, err := h.Claims.List(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, claims)
}

// Get is one claim.
func (h *Claims) Get(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	c, err := h.Claims.Get(r.Context(), o.OrganisationID, PathParam(r, "claimID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	SetETag(w, c)
	WriteJSON(w, http.StatusOK, c)
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
	c, err := h.Claims.Create(r.Context(), h.Org.actor(r), in, refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The role " + c.Role + " (" + c.AuthorisationDomain + ") was recorded.", Page: paths.OrganisationTab(o.OrganisationID, "authority-claims"),
			Status: http.StatusCreated, Body: c, ETag: c, Location: paths.API(paths.Claim(o.OrganisationID, c.ClaimID))})
	case inForm(r, err):
		in.Validate(true) // the form shows what the layer read (Active)
		h.failed(w, r, o, AsError(err), in)
	default:
		WriteError(w, r, err)
	}
}

// Update changes a claim's RegistrationId or Status (Inactive ends it;
// Active again is checked like a new claim).
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
		// The tab's buttons change the status only.
		if cur, err = h.Claims.Get(r.Context(), o.OrganisationID, id); err != nil {
			WriteError(w, r, err)
			return
		}
		in.RegistrationID = cur.RegistrationID
	}
	in.OrganisationID = o.OrganisationID
	c, err := h.Claims.Update(r.Context(), h.Org.actor(r), id, in, refused, func(cur store.AuthorityClaim) error { return CheckIfMatch(r, cur) })
	switch status := AsError(err).Status; {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The role " + c.Role + " (" + c.AuthorisationDomain + ") is " + c.Status + ".", Page: paths.OrganisationTab(o.OrganisationID, "authority-claims"),
			Status: http.StatusOK, Body: c, ETag: c})
	case !inForm(r, err) || status == http.StatusPreconditionFailed:
		WriteError(w, r, err)
	case status == http.StatusConflict:
		// A button's refusal is about its row, not the new claim form: a
		// conflict lists what is in the way, anything else is said at the
		// top of the tab.
		h.failed(w, r, o, AsError(err), store.AuthorityClaim{Status: "Active"})
	default:
		rowRefused(h.Base, r, "the role "+cur.Role+" ("+cur.AuthorisationDomain+")", AsError(err))
		h.tab(w, r, status, o, views.ClaimsPage{Form: store.AuthorityClaim{Status: "Active"}})
	}
}

// NoDelete answers DELETE on a claim: claims are kept, Status Inactive
// ends one.
func (h *Claims) NoDelete(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "GET, PUT")
	WriteError(w, r, CodeMethodNotAllowed.New("authority claims are never deleted; set Status to Inactive instead"))
}
