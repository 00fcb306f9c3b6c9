package federation

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/trustframe/trustframe/store"
)

// protocolTypes are the OpenID Federation protocol entity types; the
// other entity types a policy may target are the wallet types.
var protocolTypes = []string{"openid_relying_party", "oauth_client", "openid_provider", "oauth_authorization_server"}

// SubjectTypes are the protocol entity types the directory lists a
// subordinate of kind under: an application as a client, a server as a
// provider (docs/design.md §13).
func SubjectTypes(kind string) []string {
	if kind == "Application" {
		return []string{"openid_relying_party", "oauth_client"}
	}
	return []string{"openid_provider", "oauth_authorization_server"}
}

// StatementError is a subordinate statement that cannot be made (a clash
// of policies, no signing key): the answer is 400 invalid_subject naming
// Reason, and the subject leaves the list.
type StatementError struct{ Reason string }

func (e *StatementError) Error() string { return e.Reason }

// HeldPolicies merges the held policies that apply to a subject, per
// entity type, in a fixed order (domain, role). An application's policies
// are those of its own roles; a server's those of every Federation role its
// organisation holds (docs/decisions.md). A policy that cannot be read or
// merged is a *StatementError naming the roles.
func HeldPolicies(sub store.FederationSubject, held []store.HeldPolicy) (map[string]Policy, error) {
	out := map[string]Policy{}
	from := map[string][]string{} // entity type → roles merged so far
	for _, p := range held {
		if sub.Roles != nil && !slices.Contains(sub.Roles, p.Role) {
			continue
		}
		// The protocol types of the other kind do not apply (an RP policy
		// does not shape a server); wallet types apply to both.
		if slices.Contains(protocolTypes, p.EntityType) && !slices.Contains(SubjectTypes(sub.Kind), p.EntityType) {
			continue
		}
		pol, err := ParsePolicy(p.Policy)
		if err != nil {
			return nil, &StatementError{fmt.Sprintf("the policy of role %s/%s for %s is not a metadata policy", p.AuthorisationDomain, p.Role, p.EntityType)}
		}
		role := p.AuthorisationDomain + "/" + p.Role
		cur, ok := out[p.EntityType]
		if !ok {
			out[p.EntityType], from[p.EntityType] = pol, []string{role}
			continue
		}
		merged, err := MergePolicies(cur, pol)
		if err != nil {
			return nil, &StatementError{fmt.Sprintf("the %s policies of roles %s and %s cannot be merged: %v",
				p.EntityType, strings.Join(from[p.EntityType], ", "), role, err)}
		}
		out[p.EntityType], from[p.EntityType] = merged, append(from[p.EntityType], role)
	}
	return out, nil
}

// AllowedTypes are the entity types the directory vouches for in a
// subject of kind: its protocol types, and the wallet types its roles'
// policies name (federation_entity is always allowed, and never named).
// They are []any, as the claim reads once decoded (ParseConstraints).
func AllowedTypes(kind string, policies map[string]Policy) []any {
	types := slices.Clone(SubjectTypes(kind))
	for t := range policies {
		if !slices.Contains(protocolTypes, t) && t != "federation_entity" && !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	sort.Strings(types)
	out := make([]any, len(types))
	for i, t := range types {
		out[i] = t
	}
	return out
}
