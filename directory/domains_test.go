package directory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

func TestDomainNameRules(t *testing.T) {
	for _, tc := range []struct {
		name, value, want string // want: part of the message, "" when it passes
	}{
		{"a plain name passes", "Payments", ""},
		{"a name is required", "", "is required"},
		{"over 30 characters", strings.Repeat("a", 31), "at most 30"},
		{"a slash", "a/b", "cannot contain"},
		{"surrounding spaces", " Payments", "cannot contain"},
		{"a dot segment", "..", "cannot be . or .."},
		{"a direction mark wins over the rest", "a/\u202eb", "direction mark"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := directory.AuthorisationDomain{Name: tc.value}
			f := d.Validate(true)
			if tc.want == "" {
				if len(f) != 0 {
					t.Fatalf("refused: %v", f)
				}
				if d.Status != "Active" {
					t.Errorf("a new domain without a status is %q, want Active", d.Status)
				}
				return
			}
			if !strings.Contains(f["Name"], tc.want) {
				t.Fatalf("Name: %q, want it to say %q", f["Name"], tc.want)
			}
		})
	}
}

func TestAuthorityValidate(t *testing.T) {
	ok := directory.Authority{AuthorityName: "Central Bank", AuthorityCode: "CB", Country: "GB"}
	for _, tc := range []struct {
		name  string
		edit  func(a *directory.Authority)
		field string
	}{
		{"a complete authority passes", func(*directory.Authority) {}, ""},
		{"a name is required", func(a *directory.Authority) { a.AuthorityName = "" }, "AuthorityName"},
		{"a code over 40 characters", func(a *directory.Authority) { a.AuthorityCode = strings.Repeat("C", 41) }, "AuthorityCode"},
		{"a country in lower case", func(a *directory.Authority) { a.Country = "gb" }, "Country"},
		{"UK, which is not assigned (GB is)", func(a *directory.Authority) { a.Country = "UK" }, "Country"},
		{"a code assigned to no country", func(a *directory.Authority) { a.Country = "XX" }, "Country"},
		{"a domain named twice", func(a *directory.Authority) { a.AuthorisationDomains = []string{"Payments", "Payments"} }, "AuthorisationDomains"},
		{"a status that is none", func(a *directory.Authority) { a.Status = "Paused" }, "Status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := ok
			tc.edit(&a)
			f := a.Validate(true)
			if tc.field == "" {
				if len(f) != 0 || a.AuthorisationDomains == nil {
					t.Fatalf("refused: %v; domains %v", f, a.AuthorisationDomains)
				}
				return
			}
			if len(f) != 1 || f[tc.field] == "" {
				t.Fatalf("want one message on %s, got %v", tc.field, f)
			}
		})
	}
}

func openDomains(t *testing.T) *directory.Domains {
	t.Helper()
	s := &directory.Domains{Store: mustOpen(t)}
	if _, err := s.CreateDomain(context.Background(), directory.Actor{Actor: "admin@example.com"}, directory.AuthorisationDomain{Name: "Payments"}, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// An authority with a bad country and a domain that does not exist is
// refused naming both at once: the domain is checked inside the write's
// own transaction, and nothing is written.
func TestAuthorityCreateRefusesEveryFieldAtOnce(t *testing.T) {
	s := openDomains(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	_, err := s.CreateAuthority(ctx, a, directory.Authority{AuthorityName: "Central Bank", AuthorityCode: "CB", Country: "United Kingdom",
		AuthorisationDomains: []string{"Payments", "Lending"}}, nil)
	if e := refusal(err); e.Code != directory.CodeInvalid || e.Fields["Country"] == "" || !strings.Contains(e.Fields["AuthorisationDomains"], "Lending") {
		t.Fatalf("want Country and AuthorisationDomains refused, got %v", err)
	}
	if l, err := s.ListAuthorities(ctx); err != nil || len(l) != 0 {
		t.Fatalf("a refused authority was written: %v %v", l, err)
	}
	au, err := s.CreateAuthority(ctx, a, directory.Authority{AuthorityName: "Central Bank", AuthorityCode: "CB", Country: "GB", AuthorisationDomains: []string{"Payments"}}, nil)
	if err != nil || au.Status != "Active" {
		t.Fatalf("a valid authority: %+v %v", au, err)
	}
	if _, err := s.UpdateAuthority(ctx, a, au.AuthorityID, directory.Authority{AuthorityID: "another", AuthorityName: "X", AuthorityCode: "X", Country: "GB"}, nil, nil); !strings.Contains(refusal(err).Fields["AuthorityId"], "cannot change") {
		t.Fatalf("an update naming another id: %v", err)
	}
}

// A role is the domain's of its URL: a body naming another domain, or
// another name on an update, is refused; an unknown domain is not found.
func TestRoleBelongsToItsURL(t *testing.T) {
	s := openDomains(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	_, err := s.CreateRole(ctx, a, "Payments", directory.DomainRole{Name: "PISP", AuthorisationDomain: "Data", Type: "Federation"}, nil)
	if refusal(err).Fields["AuthorisationDomain"] == "" {
		t.Fatalf("a body naming another domain: %v", err)
	}
	if _, err := s.CreateRole(ctx, a, "Lending", directory.DomainRole{Name: "PISP", Type: "Federation"}, nil); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("a role of an unknown domain: %v", err)
	}
	ro, err := s.CreateRole(ctx, a, "Payments", directory.DomainRole{Name: "PISP", Type: "Federation"}, nil)
	if err != nil || ro.AuthorisationDomain != "Payments" {
		t.Fatalf("a role: %+v %v", ro, err)
	}
	if _, err := s.UpdateRole(ctx, a, "Payments", "PISP", directory.DomainRole{Name: "AISP", Type: "Federation"}, nil, nil); refusal(err).Fields["Name"] == "" {
		t.Fatalf("a role renamed: %v", err)
	}
	if _, err := s.GetRole(ctx, "Payments", "AISP"); refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("an unknown role: %v", err)
	}
}

// The Domains and Roles page and an organisation's Roles tab read every
// domain, role and authority; the tab also the organisation's claims.
func TestDomainsOverviewAndClaimsTab(t *testing.T) {
	s := openDomains(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	if _, err := s.CreateRole(ctx, a, "Payments", directory.DomainRole{Name: "PISP", Type: "Federation"}, nil); err != nil {
		t.Fatal(err)
	}
	au, err := s.CreateAuthority(ctx, a, directory.Authority{AuthorityName: "Central Bank", AuthorityCode: "CB", Country: "GB", AuthorisationDomains: []string{"Payments"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := s.Overview(ctx)
	if err != nil || len(o.Domains) != 1 || len(o.Roles) != 1 || o.Roles[0].Name != "PISP" || len(o.Authorities) != 1 {
		t.Fatalf("overview: %+v %v", o, err)
	}
	db := s.Store.(*store.DB)
	orgID := mustOrg(t, db, "Acme")
	claims := &directory.Claims{Store: db}
	if _, err := claims.Create(ctx, a, directory.AuthorityClaim{OrganisationID: orgID, AuthorityID: au.AuthorityID, AuthorisationDomain: "Payments", Role: "PISP"}, nil); err != nil {
		t.Fatal(err)
	}
	tab, err := claims.Tab(ctx, orgID)
	if err != nil || len(tab.Claims) != 1 || len(tab.Authorities) != 1 || len(tab.Roles) != 1 {
		t.Fatalf("tab: %+v %v", tab, err)
	}
}
