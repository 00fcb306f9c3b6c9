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

// page renders the policies with the form: empty, or what was sent when
// it was refused with errs.
func (h *Policies) page(w http.ResponseWriter, r *http.Request, status int, sent store.RoleMetadataPolicy, errs map[string]string) {
	pg, err := h.Rules.Page(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, status, views.Policies(h.Shell(r, "Role metadata policies", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Role metadata policies"}),
		views.PoliciesPage{Policies: pg.Policies, Form: views.NewPolicyForm(sent, errs, pg.Roles)}))
}

// List lists the policies.
func (h *Policies) List(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() {
		h.page(w, r, http.StatusOK, store.RoleMetadataPolicy{}, nil)
	}, h.Rules.List)
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
	saved, err := h.Rules.Save(r.Context(), h.actor(r), &p, refused, func(cur store.RoleMetadataPolicy) error { return CheckIfMatch(r, cur) })
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The policy for " + saved.AuthorisationDomain + ": " + saved.Role + " / " + saved.EntityType + " was saved.",
			Page: "/references/role-metadata-policies", Status: http.StatusOK, Body: saved, ETag: saved,
		}.Created(p.PolicyID == "", "/api/references/role-metadata-policies/"+saved.PolicyID))
	case !WantsJSON(r) && AsError(err).Status < 500:
		// Every refusal is shown in the page's form, beside its fields.
		Vary(w)
		h.page(w, r, AsError(err).Status, p, entityTypeWords(fieldMessages(err, "DomainRole")))
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
