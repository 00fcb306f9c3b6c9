package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Claims serves an organisation's authority claims: the Roles tab and
// /organisations/{OrganisationId}/authority-claims (Data Administrators
// and Super Users).
type Claims struct {
	*Base
	Org    *Org
	Claims *directory.Claims
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

// List is the Roles tab (a bare array on the API).
func (h *Claims) List(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	PageOrList(w, r, func() { h.tab(w, r, http.StatusOK, o, views.ClaimsPage{Form: store.AuthorityClaim{Status: "Active"}}) },
		func(ctx context.Context) ([]store.AuthorityClaim, error) { return h.Claims.List(ctx, o.OrganisationID) })
}

// Get is one claim.
func (h *Claims) Get(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	c, err := h.Claims.Get(r.Context(), o.OrganisationID, PathParam(r, "claimID"))
	writeTagged(w, r, c, err)
}

// NoDelete answers DELETE on a claim: claims are kept, Status Inactive
// ends one.
func (h *Claims) NoDelete(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "GET, PUT")
	WriteError(w, r, CodeMethodNotAllowed.New("authority claims are never deleted; set Status to Inactive instead"))
}
