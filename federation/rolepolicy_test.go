package federation

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// TestValidateRolePolicy: an unsupported entity type is refused alone with
// its own code; an empty or broken policy is one problem on Policy with its
// kind; a good policy is compacted as it is stored.
func TestValidateRolePolicy(t *testing.T) {
	refusal := func(p store.RoleMetadataPolicy) *directory.Error {
		t.Helper()
		var e *directory.Error
		if err := ValidateRolePolicy(&p, true); !errors.As(err, &e) {
			t.Fatalf("%+v: %v, want a refusal", p, err)
		}
		return e
	}
	base := store.RoleMetadataPolicy{AuthorisationDomain: "Payments", Role: "PISP", EntityType: "openid_relying_party"}

	p := base
	p.EntityType = "openid_wallet"
	if e := refusal(p); e.Code != CodeUnsupportedEntityType || e.Fields["EntityType"] == "" || len(e.More) != 0 {
		t.Errorf("unsupported entity type: %+v", e)
	}
	p = base
	p.Role = ""
	if e := refusal(p); e.Code != directory.CodeInvalid || e.Fields["Role"] != "Role is required." || len(e.More) != 1 || e.More[0].Code != "required" {
		t.Errorf("no role, no policy: %+v", e)
	}
	p = base
	p.Policy = json.RawMessage(`{"grant_types": {"subset_of": ["authorization_code"]`)
	if e := refusal(p); len(e.More) != 1 || e.More[0].Code != "invalid_policy" || !strings.Contains(e.More[0].Message, "not valid JSON") {
		t.Errorf("broken JSON: %+v", e.More)
	}
	p = base
	p.Policy = json.RawMessage("{\n  \"grant_types\": {\"subset_of\": [\"authorization_code\"]}\n}")
	if err := ValidateRolePolicy(&p, true); err != nil || string(p.Policy) != `{"grant_types":{"subset_of":["authorization_code"]}}` || p.Status != "Active" {
		t.Errorf("good policy: %v %s %q", err, p.Policy, p.Status)
	}
}

// The policies' page lists the policies and every role; a policy that
// does not exist is not found, named.
func TestRolePoliciesReads(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "policies.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := &RolePolicies{Store: db}
	if p, err := s.Page(ctx); err != nil || len(p.Policies) != 0 {
		t.Fatalf("page: %+v %v", p, err)
	}
	var e *directory.Error
	if _, err := s.Get(ctx, "no-such-policy"); !errors.As(err, &e) || e.Code != directory.CodeNotFound || !strings.Contains(e.Message, "Role metadata policy") {
		t.Fatalf("get: %v", err)
	}
}
