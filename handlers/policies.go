package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

type policyStore interface {
	ActiveRolePolicies(ctx context.Context, domain, role string) ([]store.HeldPolicy, error)
	ListRoleMetadataPolicies(ctx context.Context) ([]store.RoleMetadataPolicy, error)
	GetRoleMetadataPolicy(ctx context.Context, id string) (store.RoleMetadataPolicy, error)
	SaveRoleMetadataPolicy(ctx context.Context, a store.Audit, p store.RoleMetadataPolicy, check func(store.RoleMetadataPolicy) error) (store.RoleMetadataPolicy, error)
	ListDomainRoles(ctx context.Context, domain string) ([]store.DomainRole, error)
}

// Policies serves Reference Data > Role metadata policies and the policy
// simulator.
type Policies struct {
	*Base
	Store     policyStore
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

func (h *Policies) page(w http.ResponseWriter, r *http.Request, status int, form views.PolicyForm) {
	ps, err := h.Store.ListRoleMetadataPolicies(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	form.EntityTypes = federation.EntityTypes
	roles, err := h.Store.ListDomainRoles(r.Context(), "")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	for _, ro := range roles {
		if ro.Type == "Federation" {
			form.RoleOpts = append(form.RoleOpts, views.Option{Value: ro.AuthorisationDomain + "/" + ro.Name, Label: ro.AuthorisationDomain + ": " + ro.Name,
				Selected: ro.Name == form.Role && ro.AuthorisationDomain == form.AuthorisationDomain})
		}
	}
	Render(w, r, status, views.Policies(h.Shell(r, "Role metadata policies", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Role metadata policies"}),
		views.PoliciesPage{Policies: ps, Form: form}))
}

// List lists the policies.
func (h *Policies) List(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() {
		h.page(w, r, http.StatusOK, views.PolicyForm{})
	}, h.Store.ListRoleMetadataPolicies)
}

// Get is one policy.
func (h *Policies) Get(w http.ResponseWriter, r *http.Request) {
	p, err := h.Store.GetRoleMetadataPolicy(r.Context(), PathParam(r, "policyID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Role metadata policy"))
		return
	}
	SetETag(w, p)
	WriteJSON(w, http.StatusOK, p)
}

// Save creates (POST) or replaces (PUT …/{id}) a policy.
func (h *Policies) Save(w http.ResponseWriter, r *http.Request) {
	var in policyIn
	var form policyForm
	isAPI, err := DecodeAs(w, r, &in, &form)
	if id := PathParam(r, "policyID"); id != "" {
		// The edit form sends the description back in a hidden field.
		err = keptText(err, func() map[string]storedText {
			cur, gerr := h.Store.GetRoleMetadataPolicy(r.Context(), id)
			if gerr != nil {
				return nil
			}
			sent := &form.Description
			if isAPI {
				sent = &in.Description
			}
			return map[string]storedText{"Description": {sent, cur.Description}}
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
	saved, err := h.Rules.Save(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, &p, refused, func(cur store.RoleMetadataPolicy) error { return CheckIfMatch(r, cur) })
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The policy for " + saved.AuthorisationDomain + ": " + saved.Role + " / " + saved.EntityType + " was saved.",
			Page: "/references/role-metadata-policies", Status: http.StatusOK, Body: saved, ETag: saved,
		}.Created(p.PolicyID == "", "/api/references/role-metadata-policies/"+saved.PolicyID))
	case !WantsJSON(r) && AsError(err).Status < 500:
		// Every refusal is shown in the page's form, beside its fields.
		vary(w)
		h.page(w, r, AsError(err).Status, views.PolicyForm{PolicyID: p.PolicyID, AuthorisationDomain: p.AuthorisationDomain, Role: p.Role, EntityType: p.EntityType,
			Policy: string(p.Policy), Description: p.Description, Errors: domainRoleErrors(fieldMessages(err, "DomainRole"))})
	default:
		WriteError(w, r, err)
	}
}

// domainRoleErrors shows the errors of AuthorisationDomain and Role beside
// the console's one list of domain roles (DomainRole).
func domainRoleErrors(m map[string]string) map[string]string {
	for _, f := range []string{"AuthorisationDomain", "Role"} {
		if m[f] != "" {
			m["DomainRole"] = strings.TrimSpace(m["DomainRole"] + " " + m[f])
			delete(m, f)
		}
	}
	return m
}
