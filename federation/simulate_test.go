package federation

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

type heldPolicies map[string][]store.HeldPolicy

func (h heldPolicies) ActiveRolePolicies(_ context.Context, domain, role string) ([]store.HeldPolicy, error) {
	held, ok := h[domain+"/"+role]
	if !ok {
		return nil, store.ErrNotFound
	}
	return held, nil
}

// ListDomainRoles is the roles that hold policies.
func (h heldPolicies) ListDomainRoles(context.Context, string) ([]store.DomainRole, error) {
	var roles []store.DomainRole
	for name := range h {
		domain, role, _ := strings.Cut(name, "/")
		roles = append(roles, store.DomainRole{AuthorisationDomain: domain, Name: role})
	}
	return roles, nil
}

// TestSimulateNamesTheRoleTheMetadataBreaks: the refusal names the first
// role whose policy, merged with those before, refuses the metadata, and
// carries it as the problem's role.
func TestSimulateNamesTheRoleTheMetadataBreaks(t *testing.T) {
	s := &Simulator{Store: heldPolicies{
		"Payments/AISP": {{EntityType: "openid_relying_party", Policy: json.RawMessage(`{"id_token_signed_response_alg": {"one_of": ["PS256", "ES256"]}}`)}},
		"Payments/PISP": {{EntityType: "openid_relying_party", Policy: json.RawMessage(`{"token_endpoint_auth_method": {"value": "private_key_jwt"}}`)}},
	}}
	in := SimulateInput{EntityType: "openid_relying_party", Roles: []SimulateRole{{"Payments", "PISP"}, {"Payments", "AISP"}},
		Metadata: json.RawMessage(`{"id_token_signed_response_alg": "RS256"}`)}
	_, _, err := s.Simulate(context.Background(), in)
	var e *directory.Error
	if !errors.As(err, &e) || !strings.Contains(e.Fields["Metadata"], "role Payments/AISP (merged with Payments/PISP)") || e.Extra["role"] != (SimulateRole{"Payments", "AISP"}) {
		t.Fatalf("%v", err)
	}
	in.Metadata = json.RawMessage(`{"id_token_signed_response_alg": "PS256"}`)
	if pol, md, err := s.Simulate(context.Background(), in); err != nil || len(pol) != 2 || md["token_endpoint_auth_method"] != "private_key_jwt" {
		t.Fatalf("%v %v %v", pol, md, err)
	}
	in.Roles = append(in.Roles, SimulateRole{"Payments", "NONE"})
	if _, _, err := s.Simulate(context.Background(), in); !errors.As(err, &e) || !strings.Contains(e.Fields["Roles"], "There is no role NONE") {
		t.Fatalf("unknown role: %v", err)
	}
}
