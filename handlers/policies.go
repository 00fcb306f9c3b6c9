package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Policies serves Reference Data > Role metadata policies and the policy
// simulator.
type Policies struct {
	*Base
	Rules     *federation.RolePolicies
	Simulator *federation.Simulator
}

type policyIn struct {
	PolicyID            string          `json:"PolicyId"`
	AuthorisationDomain string          `json:"AuthorisationDomain"`
	Role                string          `json:"Role"`
	EntityType          string          `json:"EntityType"`
	Policy              json.RawMessage `json:"Policy"`
	Description         string          `json:"Description"`
	Status              string          `json:"Status"`
	CreatedOn           any             `json:"CreatedOn"`
	UpdatedOn           any             `json:"UpdatedOn"`
}

// policyForm is the browser form (the policy as text).
type policyForm struct {
	DomainRole          string `json:"DomainRole"` // the console's one list: "Payments/PISP"
	AuthorisationDomain string `json:"AuthorisationDomain"`
	Role                string `json:"Role"`
	EntityType          string `json:"EntityType"`
	Policy              string `json:"Policy" text:"raw"`
	Description         string `json:"Description"`
	Status              string `json:"Status"`
}

const policiesPath = "/references/role-metadata-policies"

// List lists the policies (the page, or the API's list).
func (h *Policies) List(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() {
		pg, err := h.Rules.Page(r.Context())
		if err != nil {
			WriteError(w, r, err)
			return
		}
		Render(w, r, http.StatusOK, views.Policies(h.referenceShell(r, "Role metadata policies", "Role metadata policies", policiesPath), views.PoliciesPage{Policies: pg.Policies}))
	}, h.Rules.List)
}

// formPage renders the page that adds p (no PolicyID) or edits it: p as
// stored, or as sent when it was refused with errs (status).
func (h *Policies) formPage(w http.ResponseWriter, r *http.Request, status int, p store.RoleMetadataPolicy, errs map[string]string) {
	pg, err := h.Rules.Page(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f := views.NewPolicyForm(p, errs, pg.Roles)
	if p.PolicyID != "" {
		f.Version = editVersion(r, status, p, func() (store.RoleMetadataPolicy, error) { return h.Rules.Get(r.Context(), p.PolicyID) }, nil, nil)
	}
	title := f.Title()
	Render(w, r, status, views.PolicyFormPage(h.referenceShell(r, title, "Role metadata policies", policiesPath, views.Crumb{Label: title}), f))
}

// New is the page that adds a policy.
func (h *Policies) New(w http.ResponseWriter, r *http.Request) {
	h.formPage(w, r, http.StatusOK, store.RoleMetadataPolicy{}, nil)
}

// Edit is the page that changes a policy.
func (h *Policies) Edit(w http.ResponseWriter, r *http.Request) {
	p, err := h.Rules.Get(r.Context(), PathParam(r, "policyID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Policy"))
		return
	}
	h.formPage(w, r, http.StatusOK, p, nil)
}

// Get is one policy.
func (h *Policies) Get(w http.ResponseWriter, r *http.Request) {
	p, err := h.Rules.Get(r.Context(), PathParam(r, "policyID"))
	writeTagged(w, r, p, err)
}

// Save creates (POST) or replaces (PUT …/{id}) a policy.
func (h *Policies) Save(w http.ResponseWriter, r *http.Request) {
	var in policyIn
	var form policyForm
	isAPI, err := DecodeAs(w, r, &in, &form)
	if id := PathParam(r, "policyID"); id != "" {
		// The edit form sends the description back in a hidden field.
		err = keptText(err, func() map[string]directory.StoredText {
			cur, gerr := h.Rules.Get(r.Context(), id)
			if gerr != nil {
				return nil
			}
			sent := &form.Description
			if isAPI {
				sent = &in.Description
			}
			return map[string]directory.StoredText{"Description": {Sent: sent, Stored: cur.Description}}
		})
	}
	refused := FormRefusal(r, err) // shown beside the fields with the checks below
	if err != nil && refused == nil {
		WriteError(w, r, err)
		return
	}
	p := store.RoleMetadataPolicy{AuthorisationDomain: in.AuthorisationDomain, Role: in.Role, EntityType: in.EntityType, Policy: in.Policy, Description: in.Description, Status: in.Status}
	if !isAPI {
		if form.DomainRole != "" {
			form.AuthorisationDomain, form.Role, _ = strings.Cut(form.DomainRole, "/")
		}
		p = store.RoleMetadataPolicy{AuthorisationDomain: form.AuthorisationDomain, Role: form.Role, EntityType: form.EntityType, Policy: json.RawMessage(form.Policy), Description: form.Description, Status: form.Status}
	}
	p.PolicyID = PathParam(r, "policyID")
	useFormVersion(r)
	saved, err := h.Rules.Save(r.Context(), h.actor(r), &p, refused, func(cur store.RoleMetadataPolicy) error { return CheckIfMatch(r, cur) })
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The policy for " + saved.AuthorisationDomain + ": " + saved.Role + " / " + saved.EntityType + " " + views.SaveWord(p.PolicyID == "") + ".",
			Page: "/references/role-metadata-policies", Status: http.StatusOK, Body: saved, ETag: saved,
		}.Created(p.PolicyID == "", "/api/references/role-metadata-policies/"+saved.PolicyID))
	case !WantsJSON(r) && AsError(err).Status < 500:
		// Every refusal is shown in the policy's page, beside its fields.
		Vary(w)
		errs := entityTypeWords(fieldMessages(err, "DomainRole"))
		if stale(r, err) {
			errs = nil // said by the form's version
		}
		h.formPage(w, r, AsError(err).Status, p, errs)
	default:
		WriteError(w, r, err)
	}
}

// entityTypeWords says a refused entity type in the console's words: the
// API's message names the member EntityType, the form its label.
func entityTypeWords(errs map[string]string) map[string]string {
	if rest, ok := strings.CutPrefix(errs["EntityType"], "EntityType "); ok {
		errs["EntityType"] = "The entity type " + rest
		if !strings.HasSuffix(rest, ".") {
			errs["EntityType"] += "."
		}
	}
	return errs
}
