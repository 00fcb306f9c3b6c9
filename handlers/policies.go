package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/formats"
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

// Policies serves Reference Data > Role metadata policies.
type Policies struct {
	*Base
	Store policyStore
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

// policyRequired is the message of a policy left empty.
const policyRequired = "Write the policy: a JSON object naming each metadata parameter and its operators, for example {\"grant_types\": {\"subset_of\": [\"authorization_code\"]}}."

// validate checks a policy: an unsupported entity type is a 400 (docs/design.md §7);
// field and operator problems are a 422, one entry per problem.
func validatePolicy(in *store.RoleMetadataPolicy, isNew bool) error {
	if !federation.ValidEntityType(in.EntityType) {
		msg := "EntityType " + in.EntityType + " is not supported; use one of " + strings.Join(federation.EntityTypes, ", ")
		return CodeUnsupportedEntityType.New(msg).WithFields(FieldError{Code: CodeUnsupportedEntityType.Name, Field: "EntityType", Message: msg})
	}
	f := map[string]string{}
	required(f, "AuthorisationDomain", in.AuthorisationDomain, "AuthorisationDomain")
	checkLen(f, "AuthorisationDomain", in.AuthorisationDomain, 30)
	required(f, "Role", in.Role, "Role")
	checkLen(f, "Role", in.Role, 30)
	checkLen(f, "Description", in.Description, 500)
	statusIn(f, &in.Status, isNew)
	e := Validation(f)
	if len(bytes.TrimSpace(in.Policy)) == 0 {
		// Nothing written (the console's field starts empty, its example is
		// a placeholder: docs/decisions.md).
		e.Fields = append(e.Fields, FieldError{Code: FieldRequired, Field: "Policy", Message: policyRequired})
		return e
	}
	if at, deep := formats.JSONTooDeep(in.Policy); deep {
		e.Fields = append(e.Fields, FieldError{Code: FieldInvalidPolicy, Field: "Policy", Message: tooDeep("The policy", at) + "."})
		return e
	}
	if msg := jsonMistake(in.Policy); msg != "" {
		e.Fields = append(e.Fields, FieldError{Code: FieldInvalidPolicy, Field: "Policy", Message: msg})
		return e
	}
	for _, pe := range federation.ValidatePolicy(in.Policy) {
		msg := pe.Message
		if pe.Parameter != "" {
			msg = pe.Parameter + ": " + msg
		}
		e.Fields = append(e.Fields, FieldError{Code: FieldInvalidPolicy, Field: "Policy", Message: msg})
	}
	if len(e.Fields) == 0 {
		var compact bytes.Buffer
		_ = json.Compact(&compact, in.Policy)
		in.Policy = compact.Bytes()
		return nil
	}
	return e
}

// Save creates (POST) or replaces (PUT …/{id}) a policy.
func (h *Policies) Save(w http.ResponseWriter, r *http.Request) {
	var p store.RoleMetadataPolicy
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
	if isAPI {
		p = store.RoleMetadataPolicy{AuthorisationDomain: in.AuthorisationDomain, Role: in.Role, EntityType: in.EntityType, Policy: in.Policy, Description: in.Description, Status: in.Status}
	} else {
		if form.DomainRole != "" {
			form.AuthorisationDomain, form.Role, _ = strings.Cut(form.DomainRole, "/")
		}
		p = store.RoleMetadataPolicy{AuthorisationDomain: form.AuthorisationDomain, Role: form.Role, EntityType: form.EntityType, Policy: json.RawMessage(form.Policy), Description: form.Description, Status: form.Status}
	}
	p.PolicyID = PathParam(r, "policyID")
	isNew := p.PolicyID == ""
	err = validatePolicy(&p, isNew)
	if refused != nil {
		err = Validation(withRefused(FieldMap(err), refused))
	}
	var saved store.RoleMetadataPolicy
	if err == nil {
		saved, err = h.Store.SaveRoleMetadataPolicy(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, p, func(cur store.RoleMetadataPolicy) error { return CheckIfMatch(r, cur) })
		err = directory.Named(err, "Role metadata policy")
	}
	h.Saved(w, r, Saved{Err: err, Flash: "The policy for " + saved.AuthorisationDomain + ": " + saved.Role + " / " + saved.EntityType + " was saved.",
		Page: "/references/role-metadata-policies", Status: http.StatusOK, Body: saved, ETag: saved,
		Again: anyAgain(func(e *Error) {
			h.page(w, r, e.Status, views.PolicyForm{PolicyID: p.PolicyID, AuthorisationDomain: p.AuthorisationDomain, Role: p.Role, EntityType: p.EntityType, Policy: string(p.Policy),
				Description: p.Description, Errors: domainRoleErrors(fieldMessages(e, "DomainRole"))})
		}),
	}.Created(isNew, "/api/references/role-metadata-policies/"+saved.PolicyID))
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

// jsonMistake says what is wrong with a policy typed in the console that is
// not JSON, and where ("" when it is JSON, or empty: ValidatePolicy names
// that).
func jsonMistake(raw []byte) string {
	if len(bytes.TrimSpace(raw)) == 0 || json.Valid(raw) {
		return ""
	}
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("The policy is not valid JSON: %s (at character %d).", se.Error(), se.Offset)
	}
	return "The policy is not valid JSON: " + err.Error() + "."
}
