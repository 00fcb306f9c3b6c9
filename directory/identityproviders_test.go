package directory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
)

func TestIdentityProviderValidate(t *testing.T) {
	ok := directory.IdentityProvider{Name: "kc", Issuer: "https://idp.example", EmailDomains: []string{"Example.com, @b.example"}}
	for _, tc := range []struct {
		name  string
		edit  func(p *directory.IdentityProvider)
		field string
	}{
		{"a complete provider passes", func(*directory.IdentityProvider) {}, ""},
		{"the service's own issuer", func(p *directory.IdentityProvider) { p.Issuer = "https://signin.example/" }, "Issuer"},
		{"a name with a slash", func(p *directory.IdentityProvider) { p.Name = "k/c" }, "Name"},
		{"no e-mail domain", func(p *directory.IdentityProvider) { p.EmailDomains = nil }, "EmailDomains"},
		{"* beside a domain", func(p *directory.IdentityProvider) { p.EmailDomains = []string{"*", "a.example"} }, "EmailDomains"},
		{"a claim name with a space", func(p *directory.IdentityProvider) { p.GroupsClaim = "my groups" }, "GroupsClaim"},
		{"a group mapped twice", func(p *directory.IdentityProvider) {
			p.GroupRoles = []directory.GroupRole{{Group: "ops", Role: directory.RoleSuperUser}, {Group: " ops", Role: directory.RoleDataAdmin}}
		}, "GroupRoles[1].Group"},
		{"a role that is none", func(p *directory.IdentityProvider) {
			p.GroupRoles = []directory.GroupRole{{Group: "ops", Role: "Owner"}}
		}, "GroupRoles[0].Role"},
		{"a group with a direction mark", func(p *directory.IdentityProvider) {
			p.GroupRoles = []directory.GroupRole{{Group: "o\u202eps", Role: directory.RoleDataAdmin}}
		}, "GroupRoles[0].Group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok
			p.EmailDomains = append([]string(nil), ok.EmailDomains...)
			tc.edit(&p)
			f := p.Validate(true, "https://signin.example")
			if tc.field == "" {
				if len(f) != 0 {
					t.Fatalf("refused: %v", f)
				}
				if strings.Join(p.EmailDomains, ",") != "example.com,b.example" || p.EmailClaim != "email" || p.GroupsClaim != "groups" || p.Status != "Active" {
					t.Errorf("not put in its stored form: %+v", p)
				}
				return
			}
			if len(f) != 1 || f[tc.field] == "" {
				t.Fatalf("want one message on %s, got %v", tc.field, f)
			}
		})
	}
}

// idpIssuers is a ProviderChecker that counts its calls and finds the issuer
// good unless it is bad.
type idpIssuers struct {
	calls int
	bad   string
}

func (c *idpIssuers) CheckProvider(_ context.Context, iss string) (string, []string) {
	c.calls++
	if iss == c.bad {
		return "", []string{"no discovery document", "not https"}
	}
	return iss + "/jwks", nil
}

func openProviders(t *testing.T) (*directory.IdentityProviders, *idpIssuers) {
	t.Helper()
	c := &idpIssuers{bad: "https://bad.example"}
	return &directory.IdentityProviders{Store: mustOpen(t), Issuers: c,
		SealSecret: func(name string, secret []byte) []byte { return append([]byte(name+":"), secret...) },
		OpenSecret: func(name string, sealed []byte) ([]byte, error) {
			return []byte(strings.TrimPrefix(string(sealed), name+":")), nil
		},
	}, c
}

// A provider with a field to correct and an issuer another provider has
// is refused naming both at once, without fetching the issuer's discovery
// document; a good one is bound with the keys its issuer names.
func TestIdentityProviderCreate(t *testing.T) {
	s, c := openProviders(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	first, err := s.Create(ctx, a, directory.Binding{Provider: directory.IdentityProvider{Name: "kc", Issuer: "https://idp.example", EmailDomains: []string{"*"}}}, nil)
	if err != nil || first.JwksURI != "https://idp.example/jwks" || c.calls != 1 {
		t.Fatalf("a good provider: %+v %v (%d checks)", first, err, c.calls)
	}
	_, err = s.Create(ctx, a, directory.Binding{Provider: directory.IdentityProvider{Name: "kc2", Issuer: "https://idp.example"}}, nil)
	if e := refusal(err); e.Fields["EmailDomains"] == "" || !strings.Contains(e.Fields["Issuer"], "kc") || c.calls != 1 {
		t.Fatalf("want EmailDomains and Issuer refused without a check: %v (%d checks)", err, c.calls)
	}
	_, err = s.Create(ctx, a, directory.Binding{Provider: directory.IdentityProvider{Name: "bad", Issuer: "https://bad.example", EmailDomains: []string{"*"}}}, nil)
	if e := refusal(err); e.Code != directory.CodeInvalid || len(e.More) != 2 || e.More[0].Code != directory.FieldInvalidIssuer {
		t.Fatalf("want each issuer problem listed: %v %+v", err, e)
	}
}

// In the console a group newly mapped to SuperUser waits for the box to be
// ticked; the API, and a mapping already saved, do not ask.
func TestIdentityProviderConfirmsNewSuperUserGroups(t *testing.T) {
	s, _ := openProviders(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	p := directory.IdentityProvider{Name: "kc", Issuer: "https://idp.example", EmailDomains: []string{"*"},
		GroupRoles: []directory.GroupRole{{Group: "admins", Role: directory.RoleSuperUser}}}
	_, err := s.Create(ctx, a, directory.Binding{Provider: p, Console: true}, nil)
	if !strings.Contains(refusal(err).Fields["ConfirmSuperUser"], "admins") {
		t.Fatalf("a console form without the box ticked: %v", err)
	}
	if _, err := s.Create(ctx, a, directory.Binding{Provider: p, Console: true, ConfirmSuperUser: true, ClientSecret: "s3cret"}, nil); err == nil {
		t.Fatal("a client secret without a client ID was accepted")
	}
	p.ClientID = "trustframe"
	if _, err := s.Create(ctx, a, directory.Binding{Provider: p, Console: true, ConfirmSuperUser: true, ClientSecret: "s3cret"}, nil); err != nil {
		t.Fatal(err)
	}
	saved, err := s.Update(ctx, a, "kc", directory.Binding{Provider: p, Console: true, ClientSecret: "s3cret"}, nil, nil)
	if err != nil || !saved.HasClientSecret {
		t.Fatalf("the same mapping and secret sent again: %+v %v", saved, err)
	}
	if _, err := s.Update(ctx, a, "kc", directory.Binding{Provider: directory.IdentityProvider{Name: "other"}}, nil, nil); refusal(err).Fields["Name"] == "" {
		t.Fatalf("a rename: %v", err)
	}
}

// The console's group mappings are read one "group = Role" a line; a line
// without "=" keeps its text as the group with no role, for Validate to
// name, and blank lines are skipped.
func TestGroupRolesOf(t *testing.T) {
	got := directory.GroupRolesOf([]string{" ops = SuperUser \r\n\n  \nauditors\n", "staff=DataAdministrator"})
	want := []directory.GroupRole{{Group: "ops", Role: directory.RoleSuperUser}, {Group: "auditors"}, {Group: "staff", Role: directory.RoleDataAdmin}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := directory.GroupRolesOf(nil); got == nil || len(got) != 0 {
		t.Errorf("no text: got %#v, want an empty list (the mappings removed)", got)
	}
}
