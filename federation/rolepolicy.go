package federation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/store"
)

// CodeUnsupportedEntityType refuses a role metadata policy for an entity
// type trustframe does not accept (400, docs/design.md §7).
const CodeUnsupportedEntityType directory.Code = "unsupported_entity_type"

// The codes of a problem with Policy, beside the field's name.
const (
	problemRequired      = "required"
	problemInvalidPolicy = "invalid_policy"
)

// policyRequired is the message of a policy left empty.
const policyRequired = "Write the policy: a JSON object naming each metadata parameter and its operators, for example {\"grant_types\": {\"subset_of\": [\"authorization_code\"]}}."

// ValidateRolePolicy checks a role metadata policy (docs/design.md §7): an
// unsupported entity type is CodeUnsupportedEntityType alone; the fields
// and each problem of the policy are one refusal, every problem named. A
// policy that passes is compacted in place.
func ValidateRolePolicy(p *store.RoleMetadataPolicy, isNew bool) error {
	if !ValidEntityType(p.EntityType) {
		msg := "EntityType " + p.EntityType + " is not supported; use one of " + strings.Join(EntityTypes, ", ")
		return &directory.Error{Code: CodeUnsupportedEntityType, Message: msg, Fields: directory.Fields{"EntityType": msg}}
	}
	f := directory.Fields{}
	f.Required("AuthorisationDomain", p.AuthorisationDomain, "AuthorisationDomain")
	f.MaxLen("AuthorisationDomain", p.AuthorisationDomain, 30)
	f.Required("Role", p.Role, "Role")
	f.MaxLen("Role", p.Role, 30)
	f.MaxLen("Description", p.Description, 500)
	f.Status(&p.Status, isNew)
	var more []directory.Problem
	switch {
	case len(bytes.TrimSpace(p.Policy)) == 0:
		// Nothing written (the console's field starts empty, its example is
		// a placeholder: docs/decisions.md).
		more = append(more, directory.Problem{Field: "Policy", Code: problemRequired, Message: policyRequired})
	case deep(p.Policy) != "":
		more = append(more, directory.Problem{Field: "Policy", Code: problemInvalidPolicy, Message: deep(p.Policy)})
	case jsonMistake(p.Policy) != "":
		more = append(more, directory.Problem{Field: "Policy", Code: problemInvalidPolicy, Message: jsonMistake(p.Policy)})
	default:
		for _, pe := range ValidatePolicy(p.Policy) {
			msg := pe.Message
			if pe.Parameter != "" {
				msg = pe.Parameter + ": " + msg
			}
			more = append(more, directory.Problem{Field: "Policy", Code: problemInvalidPolicy, Message: msg})
		}
	}
	if len(f) > 0 || len(more) > 0 {
		return &directory.Error{Code: directory.CodeInvalid, Message: "Some fields need attention.", Fields: f, More: more}
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, p.Policy)
	p.Policy = compact.Bytes()
	return nil
}

// deep says that what nests deeper than formats.MaxJSONDepth, or "".
func deep(raw []byte) string {
	if at, deep := formats.JSONTooDeep(raw); deep {
		return tooDeep("The policy", at) + "."
	}
	return ""
}

// tooDeep says that JSON (what: "The policy") nests deeper than
// formats.MaxJSONDepth; at is the byte offset of the bracket one level too
// deep. The words are the request decoder's.
func tooDeep(what string, at int) string {
	return fmt.Sprintf("%s nests objects and arrays deeper than the limit of %d levels (at byte %d)", what, formats.MaxJSONDepth, at)
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
	if !errors.As(err, &se) {
		return "The policy is not valid JSON."
	}
	// Said in plain words, not the decoder's: where, and what to look for.
	if strings.HasPrefix(se.Error(), "unexpected end") {
		return fmt.Sprintf("The policy is not valid JSON: it ends at character %d before every { and [ is closed, or with a quote left open.", utf8.RuneCount(bytes.TrimSpace(raw)))
	}
	bad, size := utf8.DecodeLastRune(raw[:se.Offset])
	line, col := 1, 1
	for _, c := range string(raw[:se.Offset-int64(size)]) {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("The policy is not valid JSON: %q at line %d, character %d is out of place (look for a missing value, comma or quote just before it).",
		string(bad), line, col)
}

// RolePolicyStore reads and saves role metadata policies; a save's check
// is run on the stored one (an If-Match) inside the write's transaction,
// which also refuses a role that is not a Federation role of the domain.
type RolePolicyStore interface {
	ListRoleMetadataPolicies(ctx context.Context) ([]store.RoleMetadataPolicy, error)
	GetRoleMetadataPolicy(ctx context.Context, id string) (store.RoleMetadataPolicy, error)
	ListDomainRoles(ctx context.Context, domain string) ([]store.DomainRole, error)
	SaveRoleMetadataPolicy(ctx context.Context, a store.Audit, p store.RoleMetadataPolicy, check func(store.RoleMetadataPolicy) error) (store.RoleMetadataPolicy, error)
}

// RolePolicies are the use cases of Reference Data > Role metadata policies.
type RolePolicies struct {
	Store RolePolicyStore
}

// List is every policy, by domain, role and entity type.
func (s *RolePolicies) List(ctx context.Context) ([]store.RoleMetadataPolicy, error) {
	return s.Store.ListRoleMetadataPolicies(ctx)
}

// Get is one policy.
func (s *RolePolicies) Get(ctx context.Context, id string) (store.RoleMetadataPolicy, error) {
	p, err := s.Store.GetRoleMetadataPolicy(ctx, id)
	return p, directory.Named(err, "Role metadata policy")
}

// RolePoliciesPage is what the policies' page shows: every policy, and
// every domain's roles for the form that adds one.
type RolePoliciesPage struct {
	Policies []store.RoleMetadataPolicy
	Roles    []store.DomainRole
}

// Page reads the policies' page.
func (s *RolePolicies) Page(ctx context.Context) (RolePoliciesPage, error) {
	var p RolePoliciesPage
	var err error
	if p.Policies, err = s.Store.ListRoleMetadataPolicies(ctx); err != nil {
		return p, err
	}
	p.Roles, err = s.Store.ListDomainRoles(ctx, "")
	return p, err
}

// Save creates (no PolicyID) or replaces a policy. refused are problems
// the caller found while reading the input (the text rule): they are
// reported with the rest, each as a field to fix, and nothing is written.
// A policy that passes is compacted in p, as it is stored.
func (s *RolePolicies) Save(ctx context.Context, a store.Audit, p *store.RoleMetadataPolicy, refused directory.Fields, check func(store.RoleMetadataPolicy) error) (store.RoleMetadataPolicy, error) {
	err := ValidateRolePolicy(p, p.PolicyID == "")
	if len(refused) > 0 {
		return store.RoleMetadataPolicy{}, directory.Fields(problemsOf(err)).Merge(refused).Err()
	}
	if err != nil {
		return store.RoleMetadataPolicy{}, err
	}
	saved, err := s.Store.SaveRoleMetadataPolicy(ctx, a, *p, check)
	return saved, directory.Named(err, "Role metadata policy")
}

// problemsOf is the message of each field of a refusal, the last of a
// field's problems when it has several (as a form shows one).
func problemsOf(err error) map[string]string {
	out := map[string]string{}
	var e *directory.Error
	if !errors.As(err, &e) {
		return out
	}
	for k, v := range e.Fields {
		out[k] = v
	}
	for _, p := range e.More {
		out[p.Field] = p.Message
	}
	return out
}
