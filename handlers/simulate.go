package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// SimulateInput is the policy simulator's question (docs/design.md §13).
type SimulateInput struct {
	Roles      []SimulateRole  `json:"Roles"`
	EntityType string          `json:"EntityType"`
	Metadata   json.RawMessage `json:"Metadata"`
}

// SimulateRole names a role of a domain.
type SimulateRole struct {
	AuthorisationDomain string `json:"AuthorisationDomain"`
	Role                string `json:"Role"`
}

// simulate merges the Active policies of the roles for one entity type and
// applies the result to the metadata; a failure is a field error naming the
// role, parameter and operator.
func (h *Policies) simulate(r *http.Request, in SimulateInput) (federation.Policy, map[string]any, error) {
	f := map[string]string{}
	if !federation.ValidEntityType(in.EntityType) {
		f["EntityType"] = "EntityType must be one of " + strings.Join(federation.EntityTypes, ", ")
	}
	if len(in.Roles) == 0 {
		f["Roles"] = "Name at least one role."
	}
	metadata := map[string]any{}
	if at, deep := formats.JSONTooDeep(in.Metadata); deep {
		f["Metadata"] = tooDeep("The metadata", at) + "."
	} else if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		if err := json.Unmarshal(in.Metadata, &metadata); err != nil || metadata == nil {
			f["Metadata"] = "Metadata must be a JSON object of metadata parameters."
		} else if err := federation.CheckMetadata(map[string]any{in.EntityType: metadata}); err != nil {
			// As resolve refuses it (docs/design.md §13): no parameter is null.
			f["Metadata"] = "Metadata must not hold a null parameter: " + err.Error() + "."
		}
	}
	if len(f) > 0 {
		return nil, nil, Validation(f)
	}
	// steps[i] is the policy merged from the first i+1 roles that have one
	// for the entity type, by[i] that role.
	merged := federation.Policy{}
	var steps []federation.Policy
	var by []SimulateRole
	for _, role := range in.Roles {
		name := role.AuthorisationDomain + "/" + role.Role
		held, err := h.Store.ActiveRolePolicies(r.Context(), role.AuthorisationDomain, role.Role)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil, Validation(map[string]string{"Roles": "There is no role " + role.Role + " of domain " + role.AuthorisationDomain + "."})
		}
		if err != nil {
			return nil, nil, err
		}
		for _, p := range held {
			if p.EntityType != in.EntityType {
				continue
			}
			pol, err := federation.ParsePolicy(p.Policy)
			if err != nil {
				return nil, nil, roleRefusal("Roles", "The policy of role "+name+" is not a metadata policy.", role)
			}
			m, err := federation.MergePolicies(merged, pol)
			if err != nil {
				var me *federation.MergeError
				msg := err.Error()
				if errors.As(err, &me) {
					msg = fmt.Sprintf("role %s: parameter %s, operator %s: %s (merged with %s)", name, me.Parameter, orAll(me.Operator), me.Message, roleNames(by))
				}
				return nil, nil, roleRefusal("Roles", msg, role)
			}
			merged = m
			steps, by = append(steps, m), append(by, role)
		}
	}
	out, err := applyPolicy(merged, metadata)
	if err != nil && len(steps) == 0 {
		return nil, nil, Validation(map[string]string{"Metadata": "The metadata does not satisfy the merged policy: " + err.Error()})
	}
	if err != nil {
		// The role the metadata breaks is the last one whose policy,
		// merged with those before it, turns a passing policy into a
		// refusing one: the roles after it keep the refusal.
		i := len(steps) - 1
		for i > 0 {
			if _, err := applyPolicy(steps[i-1], metadata); err == nil {
				break
			}
			i--
		}
		role := by[i]
		msg := "The metadata does not satisfy the policy of role " + role.AuthorisationDomain + "/" + role.Role
		if i > 0 {
			msg += " (merged with " + roleNames(by[:i]) + ")"
		}
		return nil, nil, roleRefusal("Metadata", msg+": "+err.Error(), role)
	}
	return merged, out, nil
}

func applyPolicy(p federation.Policy, metadata map[string]any) (map[string]any, error) {
	pm := make(map[string]any, len(p))
	for k, v := range p {
		pm[k] = v
	}
	return federation.ApplyPolicy(pm, metadata)
}

// roleRefusal is a 422 on field naming, besides the message, the role
// whose policy is refused as the problem body's "role" member.
func roleRefusal(field, msg string, role SimulateRole) *Error {
	return Validation(map[string]string{field: msg}).WithExtra(map[string]any{"role": role})
}

func roleNames(roles []SimulateRole) string {
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = r.AuthorisationDomain + "/" + r.Role
	}
	return strings.Join(names, ", ")
}

func orAll(op string) string {
	if op == "" {
		return "(their combination)"
	}
	return op
}

// Simulate answers POST /api/references/role-metadata-policies/simulate.
func (h *Policies) Simulate(w http.ResponseWriter, r *http.Request) {
	var in SimulateInput
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
		return
	}
	pol, md, err := h.simulate(r, in)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"Policy": pol, "Metadata": md})
}

// TryIt is Reference Data > Role metadata policies > Try it: the same
// simulation as a form.
func (h *Policies) TryIt(w http.ResponseWriter, r *http.Request) {
	p := views.TryItPage{EntityTypes: federation.EntityTypes, EntityType: "openid_relying_party", Metadata: "{}"}
	status := http.StatusOK
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err != nil {
			WriteError(w, r, CodeBadForm.New("The form could not be read."))
			return
		}
		p.EntityType, p.Metadata, p.Selected = r.PostForm.Get("EntityType"), r.PostForm.Get("Metadata"), r.PostForm["Role"]
		in := SimulateInput{EntityType: p.EntityType, Metadata: json.RawMessage(p.Metadata)}
		if strings.TrimSpace(p.Metadata) == "" {
			in.Metadata = nil
		} else if _, deep := formats.JSONTooDeep(in.Metadata); !deep && !json.Valid(in.Metadata) {
			// (Too deep is valid or not, simulate refuses it by its depth.)
			in.Metadata = json.RawMessage(`"not json"`)
		}
		for _, s := range p.Selected {
			d, role, _ := strings.Cut(s, "/")
			in.Roles = append(in.Roles, SimulateRole{AuthorisationDomain: d, Role: role})
		}
		pol, md, err := h.simulate(r, in)
		if err != nil {
			e := AsError(err)
			if e.Status >= 500 {
				WriteError(w, r, err)
				return
			}
			status = http.StatusUnprocessableEntity
			for _, fe := range e.Fields {
				switch fe.Field {
				case "Roles", "EntityType", "Metadata":
					if p.FieldErrors == nil {
						p.FieldErrors = map[string]string{}
					}
					p.FieldErrors[fe.Field] = fe.Message
				default:
					p.Errors = append(p.Errors, fe.Field+": "+fe.Message)
				}
			}
			if len(e.Fields) == 0 {
				p.Errors = append(p.Errors, e.Message)
			}
		} else {
			pb, _ := json.MarshalIndent(pol, "", "  ")
			mb, _ := json.MarshalIndent(md, "", "  ")
			p.Policy, p.Result = string(pb), string(mb)
		}
	}
	{
		roles, err := h.Store.ListDomainRoles(r.Context(), "")
		if err != nil {
			WriteError(w, r, err)
			return
		}
		for _, ro := range roles {
			if ro.Type != "Federation" {
				continue
			}
			v := ro.AuthorisationDomain + "/" + ro.Name
			p.RoleOpts = append(p.RoleOpts, views.Option{Value: v, Label: v, Selected: contains(p.Selected, v)})
		}
	}
	Render(w, r, status, views.TryIt(h.Shell(r, "Try role metadata policies", "reference", views.Crumb{Label: "Reference Data", Href: "/references"},
		views.Crumb{Label: "Role metadata policies", Href: "/references/role-metadata-policies"}, views.Crumb{Label: "Try it"}), p))
}
