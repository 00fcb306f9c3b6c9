package federation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/store"
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

func (r SimulateRole) String() string { return r.AuthorisationDomain + "/" + r.Role }

// PolicyReader reads the Active policies of one role (store.ErrNotFound:
// no such role), and every role, for the simulator's choices.
type PolicyReader interface {
	ActiveRolePolicies(ctx context.Context, domain, role string) ([]store.HeldPolicy, error)
	ListDomainRoles(ctx context.Context, domain string) ([]store.DomainRole, error)
}

// Simulator is the policy simulator: what the roles' policies, merged,
// make of a subject's metadata.
type Simulator struct {
	Store PolicyReader
}

// Roles are every domain's roles, which a simulation may name.
func (s *Simulator) Roles(ctx context.Context) ([]store.DomainRole, error) {
	return s.Store.ListDomainRoles(ctx, "")
}

// Simulate merges the Active policies of the roles for one entity type, in
// the order given, and applies the result to the metadata. A failure is a
// field refusal naming the role, parameter and operator, with the role as
// the refusal's "role" member.
func (s *Simulator) Simulate(ctx context.Context, in SimulateInput) (Policy, map[string]any, error) {
	metadata, err := in.check()
	if err != nil {
		return nil, nil, err
	}
	// steps[i] is the policy merged from the first i+1 roles that have one
	// for the entity type, by[i] that role.
	merged := Policy{}
	var steps []Policy
	var by []SimulateRole
	for _, role := range in.Roles {
		held, err := s.Store.ActiveRolePolicies(ctx, role.AuthorisationDomain, role.Role)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil, directory.Fields{"Roles": "There is no role " + role.Role + " of domain " + role.AuthorisationDomain + "."}.Err()
		}
		if err != nil {
			return nil, nil, err
		}
		for _, p := range held {
			if p.EntityType != in.EntityType {
				continue
			}
			pol, err := ParsePolicy(p.Policy)
			if err != nil {
				return nil, nil, roleRefusal("Roles", "The policy of role "+role.String()+" is not a metadata policy.", role)
			}
			m, err := MergePolicies(merged, pol)
			if err != nil {
				var me *MergeError
				msg := err.Error()
				if errors.As(err, &me) {
					msg = fmt.Sprintf("role %s: parameter %s, operator %s: %s (merged with %s)", role, me.Parameter, orAll(me.Operator), me.Message, roleNames(by))
				}
				return nil, nil, roleRefusal("Roles", msg, role)
			}
			merged = m
			steps, by = append(steps, m), append(by, role)
		}
	}
	out, err := apply(merged, metadata)
	if err == nil {
		return merged, out, nil
	}
	if len(steps) == 0 {
		return nil, nil, directory.Fields{"Metadata": "The metadata does not satisfy the merged policy: " + err.Error()}.Err()
	}
	// The role the metadata breaks is the last one whose policy, merged
	// with those before it, turns a passing policy into a refusing one: the
	// roles after it keep the refusal.
	i := len(steps) - 1
	for i > 0 {
		if _, err := apply(steps[i-1], metadata); err == nil {
			break
		}
		i--
	}
	msg := "The metadata does not satisfy the policy of role " + by[i].String()
	if i > 0 {
		msg += " (merged with " + roleNames(by[:i]) + ")"
	}
	return nil, nil, roleRefusal("Metadata", msg+": "+err.Error(), by[i])
}

// check reads the question's fields: the entity type, at least one role,
// and metadata that is a JSON object (none is {}) without null parameters.
func (in SimulateInput) check() (map[string]any, error) {
	f := directory.Fields{}
	if !ValidEntityType(in.EntityType) {
		f.Add("EntityType", "EntityType must be one of "+strings.Join(EntityTypes, ", "))
	}
	if len(in.Roles) == 0 {
		f.Add("Roles", "Name at least one role.")
	}
	metadata := map[string]any{}
	if at, deep := formats.JSONTooDeep(in.Metadata); deep {
		f.Add("Metadata", tooDeep("The metadata", at)+".")
	} else if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		if err := json.Unmarshal(in.Metadata, &metadata); err != nil || metadata == nil {
			f.Add("Metadata", "Metadata must be a JSON object of metadata parameters.")
		} else if err := CheckMetadata(map[string]any{in.EntityType: metadata}); err != nil {
			// As resolve refuses it (docs/design.md §13): no parameter is null.
			f.Add("Metadata", "Metadata must not hold a null parameter: "+err.Error()+".")
		}
	}
	return metadata, f.Err()
}

func apply(p Policy, metadata map[string]any) (map[string]any, error) {
	pm := make(map[string]any, len(p))
	for k, v := range p {
		pm[k] = v
	}
	return ApplyPolicy(pm, metadata)
}

// roleRefusal is a refusal of field naming, besides the message, the role
// whose policy is refused as the problem body's "role" member.
func roleRefusal(field, msg string, role SimulateRole) *directory.Error {
	return &directory.Error{Code: directory.CodeInvalid, Message: "Some fields need attention.", Fields: directory.Fields{field: msg},
		Extra: map[string]any{"role": role}}
}

func roleNames(roles []SimulateRole) string {
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = r.String()
	}
	return strings.Join(names, ", ")
}

func orAll(op string) string {
	if op == "" {
		return "(their combination)"
	}
	return op
}

// FormInput is the simulator's question as the console's form sends it:
// the metadata as text (blank: none) and each role as "Domain/Role". Text
// that is not JSON is refused as metadata that is not an object; text too
// deep is left for check to refuse by its depth.
func FormInput(entityType, metadata string, roles []string) SimulateInput {
	in := SimulateInput{EntityType: entityType, Metadata: json.RawMessage(metadata)}
	if strings.TrimSpace(metadata) == "" {
		in.Metadata = nil
	} else if _, deep := formats.JSONTooDeep(in.Metadata); !deep && !json.Valid(in.Metadata) {
		in.Metadata = json.RawMessage(`"not json"`)
	}
	for _, s := range roles {
		d, role, _ := strings.Cut(s, "/")
		in.Roles = append(in.Roles, SimulateRole{AuthorisationDomain: d, Role: role})
	}
	return in
}
