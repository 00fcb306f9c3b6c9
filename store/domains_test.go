package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// domainFixture: domain "Payments" with roles ASPSP, PISP (Federation)
// and EXCL (Exclusive), domain "Data" with role ASPSP too, an authority
// covering Payments only, and an Active organisation.
type domainFixture struct {
	db       *store.DB
	auth     store.Authority // covers Payments
	dataAuth store.Authority // covers Data
	org      string
}

var who = store.Audit{Actor: "su@example.com"}

func newDomainFixture(t *testing.T) domainFixture {
	t.Helper()
	return newDomainFixtureOn(t, open(t))
}

func newDomainFixtureOn(t *testing.T, db *store.DB) domainFixture {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"Payments", "Data"} {
		_, err := db.CreateAuthorisationDomain(ctx, who, store.AuthorisationDomain{Name: d, Status: "Active"})
		must(err)
	}
	for _, r := range []store.DomainRole{
		{Name: "ASPSP", AuthorisationDomain: "Payments", Type: "Federation", Status: "Active"},
		{Name: "PISP", AuthorisationDomain: "Payments", Type: "Federation", Status: "Active"},
		{Name: "EXCL", AuthorisationDomain: "Payments", Type: "Directory", Exclusive: true, Status: "Active"},
		{Name: "ASPSP", AuthorisationDomain: "Data", Type: "Federation", Status: "Active"},
		{Name: "DATA", AuthorisationDomain: "Data", Type: "Federation", Status: "Active"},
	} {
		_, err := db.CreateDomainRole(ctx, who, r)
		must(err)
	}
	auth, err := db.CreateAuthority(ctx, who, store.Authority{AuthorityName: "Central Bank", AuthorityCode: "CB", Country: "GB", Status: "Active", AuthorisationDomains: []string{"Payments"}}, nil)
	must(err)
	dataAuth, err := db.CreateAuthority(ctx, who, store.Authority{AuthorityName: "Data Office", AuthorityCode: "DO", Country: "GB", Status: "Active", AuthorisationDomains: []string{"Data"}}, nil)
	must(err)
	o, err := db.CreateOrganisation(ctx, who, store.Organisation{OrganisationName: "Bank", RegistrationNumber: "1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	must(err)
	return domainFixture{db: db, auth: auth, dataAuth: dataAuth, org: o.OrganisationID}
}

func (f domainFixture) claim(role, domain string) store.AuthorityClaim {
	auth := f.auth.AuthorityID
	if domain == "Data" {
		auth = f.dataAuth.AuthorityID
	}
	return store.AuthorityClaim{OrganisationID: f.org, AuthorityID: auth, AuthorisationDomain: domain, Role: role, RegistrationID: "REG-" + role, Status: "Active"}
}

func conflictPayloadClaims(t *testing.T, err error) string {
	t.Helper()
	var ce *store.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("want a conflict, got %v", err)
	}
	b, _ := json.Marshal(ce.InTheWay)
	payload := string(b)
	if ce.Message == "" || !strings.HasPrefix(payload, `{"Claims":[`) {
		t.Fatalf("conflict does not name the claims in the way: %q %s", ce.Message, payload)
	}
	return payload
}

func claimCount(t *testing.T, db *store.DB, org string) int {
	t.Helper()
	l, err := db.ListAuthorityClaims(context.Background(), org)
	if err != nil {
		t.Fatal(err)
	}
	return len(l)
}

func TestAuthorityClaimRules(t *testing.T) {
	f := newDomainFixture(t)
	ctx := context.Background()
	first, err := f.db.CreateAuthorityClaim(ctx, who, f.claim("ASPSP", "Payments"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.AuthorityName != "Central Bank" || first.Status != "Active" || first.RegistrationID != "REG-ASPSP" {
		t.Fatalf("%+v", first)
	}
	bad := []struct {
		name  string
		claim store.AuthorityClaim
		field string // "" means a conflict
	}{
		{"unknown authority", func() store.AuthorityClaim { c := f.claim("PISP", "Payments"); c.AuthorityID = "nope"; return c }(), "AuthorityId"},
		{"authority does not cover the domain", func() store.AuthorityClaim {
			c := f.claim("PISP", "Payments")
			c.AuthorityID = f.dataAuth.AuthorityID
			return c
		}(), "AuthorityId"},
		{"unknown domain", f.claim("PISP", "Nowhere"), "AuthorisationDomain"},
		{"role of another domain", f.claim("DATA", "Payments"), "Role"},
		{"duplicate", f.claim("ASPSP", "Payments"), ""},
		{"exclusive while holding others", f.claim("EXCL", "Payments"), ""},
	}
	for _, c := range bad {
		_, err := f.db.CreateAuthorityClaim(ctx, who, c.claim, nil)
		if c.field == "" {
			payload := conflictPayloadClaims(t, err)
			if !strings.Contains(payload, first.ClaimID) {
				t.Errorf("%s: the payload does not name the claim in the way: %s", c.name, payload)
			}
			continue
		}
		var de *directory.Error
		if !errors.As(err, &de) || len(de.Fields) != 1 || de.Fields[c.field] == "" {
			t.Errorf("%s: want a field error on %s, got %v", c.name, c.field, err)
		}
	}
	if n := claimCount(t, f.db, f.org); n != 1 {
		t.Fatalf("refused claims were written: %d claims", n)
	}

	// The Exclusive rule the other way: the exclusive claim first.
	if _, err := f.db.UpdateAuthorityClaim(ctx, who, store.AuthorityClaim{OrganisationID: f.org, ClaimID: first.ClaimID, RegistrationID: "R", Status: "Inactive"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	excl, err := f.db.CreateAuthorityClaim(ctx, who, f.claim("EXCL", "Payments"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.db.CreateAuthorityClaim(ctx, who, f.claim("DATA", "Data"), nil)
	if payload := conflictPayloadClaims(t, err); !strings.Contains(payload, excl.ClaimID) {
		t.Fatalf("payload %s does not name the Exclusive claim", payload)
	}
	// Reactivating the old claim is held to the same rule.
	_, err = f.db.UpdateAuthorityClaim(ctx, who, store.AuthorityClaim{OrganisationID: f.org, ClaimID: first.ClaimID, Status: "Active"}, nil, nil)
	conflictPayloadClaims(t, err)
	got, _ := f.db.GetAuthorityClaim(ctx, f.org, first.ClaimID)
	if got.Status != "Inactive" {
		t.Fatalf("a refused reactivation changed the claim: %+v", got)
	}
	// What a claim names cannot change.
	_, err = f.db.UpdateAuthorityClaim(ctx, who, store.AuthorityClaim{OrganisationID: f.org, ClaimID: first.ClaimID, Role: "PISP", Status: "Inactive"}, nil, nil)
	var refused *directory.Error
	if !errors.As(err, &refused) || refused.Fields["Role"] == "" {
		t.Fatalf("changing Role: %v", err)
	}
	roles, err := f.db.ActiveClaimRoles(ctx, f.org)
	if err != nil || strings.Join(roles, ",") != "EXCL" {
		t.Fatalf("active roles %v %v", roles, err)
	}
	// Audit: every change to a claim is recorded.
	recs, _, err := f.db.ListAudit(ctx, store.AuditFilter{SubjectType: "AuthorityClaim", OrganisationID: f.org, Size: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("want 3 audit records of claims (2 created, 1 status), got %d", len(recs))
	}
}

// TestExclusiveRuleUnderConcurrentWriters: two transactions race to add
// conflicting claims (an Exclusive role and another role) to the same
// organisation; exactly one wins every time.
func TestExclusiveRuleUnderConcurrentWriters(t *testing.T) {
	f := newDomainFixture(t)
	raceExclusive(t, f, [2]*store.DB{f.db, f.db})
}

// TestExclusiveRuleAcrossInstances: the same race between two instances
// (two store.DB on one database, as two servers behind a load balancer):
// still exactly one winner, on either engine.
func TestExclusiveRuleAcrossInstances(t *testing.T) {
	path := storetest.Path(t)
	var dbs [2]*store.DB
	for i := range dbs {
		db, err := store.Open(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	raceExclusive(t, newDomainFixtureOn(t, dbs[0]), dbs)
}

func raceExclusive(t *testing.T, f domainFixture, dbs [2]*store.DB) {
	t.Helper()
	ctx := context.Background()
	for round := 0; round < 20; round++ {
		o, err := f.db.CreateOrganisation(ctx, who, store.Organisation{OrganisationName: fmt.Sprintf("Race %d", round), RegistrationNumber: "R", CountryOfRegistration: "GB", Status: "Active"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		g := f
		g.org = o.OrganisationID
		claims := []store.AuthorityClaim{g.claim("EXCL", "Payments"), g.claim("DATA", "Data")}
		if round%2 == 1 {
			claims[0], claims[1] = claims[1], claims[0]
		}
		start := make(chan struct{})
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range claims {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = dbs[i].CreateAuthorityClaim(ctx, who, claims[i], nil)
			}()
		}
		close(start)
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
			} else if !errors.Is(err, store.ErrConflict) {
				t.Fatalf("round %d: the loser got %v, not a conflict", round, err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d writers won (errors %v)", round, wins, errs)
		}
		if n := claimCount(t, f.db, g.org); n != 1 {
			t.Fatalf("round %d: %d claims stored", round, n)
		}
	}
}

// TestDomainCascadesRefused: nothing a claim, a role, an authority or a
// policy refers to disappears or is disabled under it.
func TestDomainCascadesRefused(t *testing.T) {
	f := newDomainFixture(t)
	ctx := context.Background()
	c, err := f.db.CreateAuthorityClaim(ctx, who, f.claim("PISP", "Payments"), nil)
	if err != nil {
		t.Fatal(err)
	}
	conflict := func(what string, err error, names ...string) {
		t.Helper()
		var ce *store.ConflictError
		if !errors.As(err, &ce) || ce.Message == "" || ce.InTheWay.Empty() {
			t.Fatalf("%s: want a conflict naming what is in the way, got %v", what, err)
		}
		b, _ := json.Marshal(ce.InTheWay)
		for _, n := range names {
			if !strings.Contains(string(b), n) {
				t.Errorf("%s: %s does not name %s", what, b, n)
			}
		}
	}
	conflict("delete a domain with roles, authorities and claims", f.db.DeleteAuthorisationDomain(ctx, who, "Payments"), `"Roles"`, `"Authorities"`, c.ClaimID)
	_, err = f.db.UpdateAuthorisationDomain(ctx, who, store.AuthorisationDomain{Name: "Payments", Status: "Inactive"}, nil)
	conflict("disable a domain with Active claims", err, c.ClaimID)
	_, err = f.db.UpdateDomainRole(ctx, who, store.DomainRole{Name: "PISP", AuthorisationDomain: "Payments", Type: "Federation", Status: "Inactive"}, nil)
	conflict("disable a held role", err, c.ClaimID)
	_, err = f.db.UpdateAuthority(ctx, who, store.Authority{AuthorityID: f.auth.AuthorityID, AuthorityName: "Central Bank", AuthorityCode: "CB", Country: "GB", Status: "Inactive", AuthorisationDomains: []string{"Payments"}}, nil, nil)
	conflict("disable an authority with Active claims", err, c.ClaimID)
	_, err = f.db.UpdateAuthority(ctx, who, store.Authority{AuthorityID: f.auth.AuthorityID, AuthorityName: "Central Bank", AuthorityCode: "CB", Country: "GB", Status: "Active", AuthorisationDomains: []string{"Data"}}, nil, nil)
	conflict("drop the domain of an authority's Active claims", err, c.ClaimID)
	// Making a role Exclusive while its holder holds another.
	if _, err := f.db.CreateAuthorityClaim(ctx, who, f.claim("ASPSP", "Payments"), nil); err != nil {
		t.Fatal(err)
	}
	_, err = f.db.UpdateDomainRole(ctx, who, store.DomainRole{Name: "PISP", AuthorisationDomain: "Payments", Type: "Federation", Exclusive: true, Status: "Active"}, nil)
	conflict("make a role Exclusive beside other roles", err, "ASPSP")

	// Inactive claims still hold their references against deletion.
	if _, err := f.db.UpdateAuthorityClaim(ctx, who, store.AuthorityClaim{OrganisationID: f.org, ClaimID: c.ClaimID, Status: "Inactive"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.UpdateDomainRole(ctx, who, store.DomainRole{Name: "PISP", AuthorisationDomain: "Payments", Type: "Federation", Status: "Inactive"}, nil); err != nil {
		t.Fatalf("a role with only Inactive claims can be disabled: %v", err)
	}
	conflict("delete a role an Inactive claim names", f.db.DeleteDomainRole(ctx, who, "Payments", "PISP"), c.ClaimID)
	conflict("delete an authority claims name", f.db.DeleteAuthority(ctx, who, f.auth.AuthorityID), c.ClaimID)
	// Nothing changed by the refusals.
	r, _ := f.db.GetDomainRole(ctx, "Payments", "PISP")
	if r.Exclusive {
		t.Fatal("a refused change was written")
	}
	au, _ := f.db.GetAuthority(ctx, f.auth.AuthorityID)
	if au.Status != "Active" || strings.Join(au.AuthorisationDomains, ",") != "Payments" {
		t.Fatalf("authority changed: %+v", au)
	}
	// Unused things go: the Data domain after its role and authority.
	conflict("delete a domain with roles", f.db.DeleteAuthorisationDomain(ctx, who, "Data"), `"Roles"`)
	for _, role := range []string{"ASPSP", "DATA"} {
		if err := f.db.DeleteDomainRole(ctx, who, "Data", role); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.db.DeleteAuthority(ctx, who, f.dataAuth.AuthorityID); err != nil {
		t.Fatal(err)
	}
	if err := f.db.DeleteAuthorisationDomain(ctx, who, "Data"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.GetAuthorisationDomain(ctx, "Data"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted domain: %v", err)
	}
}

func TestApplicationRolesMustBeHeld(t *testing.T) {
	f := newDomainFixture(t)
	ctx := context.Background()
	app := store.SoftwareStatement{OrganisationID: f.org, ClientName: "App", Roles: []string{"PISP"}, Status: "Active"}
	_, err := f.db.CreateSoftwareStatement(ctx, who, app, nil)
	var fe *directory.Error
	if !errors.As(err, &fe) || !strings.Contains(fe.Fields["Roles"], "PISP") {
		t.Fatalf("an application with a role the organisation does not hold: %v", err)
	}
	c, err := f.db.CreateAuthorityClaim(ctx, who, f.claim("PISP", "Payments"), nil)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := f.db.CreateSoftwareStatement(ctx, who, app, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The claim goes Inactive: the application keeps its role and can be
	// edited, but cannot take a new role it does not hold.
	if _, err := f.db.UpdateAuthorityClaim(ctx, who, store.AuthorityClaim{OrganisationID: f.org, ClaimID: c.ClaimID, Status: "Inactive"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	saved.ClientName = "App 2"
	if _, err := f.db.UpdateSoftwareStatement(ctx, who, saved, nil, nil); err != nil {
		t.Fatalf("editing an application whose claim went Inactive: %v", err)
	}
	saved.Roles = []string{"PISP", "ASPSP"}
	if _, err := f.db.UpdateSoftwareStatement(ctx, who, saved, nil, nil); !errors.As(err, &fe) || !strings.Contains(fe.Fields["Roles"], "ASPSP") {
		t.Fatalf("adding a role not held: %v", err)
	}
}

// TestSeedCreatesDomainRolesAndClaims: the seeded directory has a realistic
// domain, roles and authorities; every organisation holds claims that obey
// the rules (the Exclusive role alone, authority covering the domain), and
// its application carries only a role it holds.
func TestSeedCreatesDomainRolesAndClaims(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.SeedDirectory(ctx, who, 400, 3); err != nil {
		t.Fatal(err)
	}
	roles, err := db.ListDomainRoles(ctx, "Open Finance")
	if err != nil || len(roles) != 5 {
		t.Fatalf("roles %v %v", roles, err)
	}
	auths, _ := db.ListAuthorities(ctx)
	if len(auths) != 3 {
		t.Fatalf("authorities %v", auths)
	}
	var orgs []string
	if err := db.EachOrganisation(ctx, store.OrgFilter{}, func(o store.Organisation, _, _ []string) error {
		orgs = append(orgs, o.OrganisationID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sandbox := 0
	for _, id := range orgs {
		held, err := db.ActiveClaimRoles(ctx, id)
		if err != nil || len(held) == 0 {
			t.Fatalf("%s holds %v %v", id, held, err)
		}
		for _, r := range held {
			if r == "SANDBOX" {
				sandbox++
				if len(held) != 1 {
					t.Fatalf("an Exclusive holder holds %v", held)
				}
			}
		}
		apps, err := db.ListSoftwareStatements(ctx, id)
		if err != nil || len(apps) != 1 {
			t.Fatal(err)
		}
		for _, r := range apps[0].Roles {
			if !strings.Contains(strings.Join(held, ","), r) {
				t.Fatalf("the application carries %s, the organisation holds %v", r, held)
			}
		}
	}
	if sandbox == 0 || sandbox > 40 {
		t.Fatalf("%d sandbox-only organisations of 400", sandbox)
	}
	ps, err := db.Participants(ctx)
	if err != nil || len(ps) == 0 || len(ps[0].OrgDomainRoleClaims) == 0 || len(ps[0].OrgDomainClaims) != 1 {
		t.Fatalf("participants: %v", err)
	}
}

// TestSeedBesideTheOperatorsAuthorities: seed works on a directory whose
// operator has already made an authority with the code (or the name) of one
// of the seeded ones: the seed uses that authority, adds the seeded domain
// to what it covers, and every claim it makes obeys the rules. (It failed
// with a foreign-key error: the seeded authority was skipped as a
// duplicate, and the claims named its id, which did not exist.)
func TestSeedBesideTheOperatorsAuthorities(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if _, err := db.CreateAuthorisationDomain(ctx, who, store.AuthorisationDomain{Name: "Payments", Status: "Active"}); err != nil {
		t.Fatal(err)
	}
	fca, err := db.CreateAuthority(ctx, who, store.Authority{AuthorityName: "FCA", AuthorityCode: "FCA", Country: "GB", Status: "Active", AuthorisationDomains: []string{"Payments"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bcb, err := db.CreateAuthority(ctx, who, store.Authority{AuthorityName: "Banco Central do Brasil", AuthorityCode: "BACEN", Country: "BR", Status: "Active", AuthorisationDomains: []string{"Payments"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SeedDirectory(ctx, who, 60, 1); err != nil {
		t.Fatalf("seed beside the operator's authorities: %v", err)
	}
	auths, err := db.ListAuthorities(ctx)
	if err != nil || len(auths) != 3 {
		t.Fatalf("authorities %+v %v: want the operator's two and the seeded EBA", auths, err)
	}
	for _, au := range auths {
		if !slices.Contains(au.AuthorisationDomains, "Open Finance") {
			t.Fatalf("authority %s (%s) does not cover the seeded domain: %v", au.AuthorityName, au.AuthorityID, au.AuthorisationDomains)
		}
		if (au.AuthorityID == fca.AuthorityID || au.AuthorityID == bcb.AuthorityID) && !slices.Contains(au.AuthorisationDomains, "Payments") {
			t.Fatalf("authority %s lost its own domain: %v", au.AuthorityName, au.AuthorisationDomains)
		}
	}
	used := map[string]bool{}
	if err := db.EachOrganisation(ctx, store.OrgFilter{}, func(o store.Organisation, _, _ []string) error {
		claims, err := db.ListAuthorityClaims(ctx, o.OrganisationID)
		if err != nil {
			return err
		}
		if len(claims) == 0 {
			t.Errorf("%s holds no claim", o.OrganisationName)
		}
		for _, c := range claims {
			used[c.AuthorityID] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !used[fca.AuthorityID] || !used[bcb.AuthorityID] {
		t.Fatalf("the seeded claims name %v, want the operator's FCA %s and BCB %s among them", used, fca.AuthorityID, bcb.AuthorityID)
	}
	// Again: nothing is made twice.
	if err := db.SeedDirectory(ctx, who, 5, 2); err != nil {
		t.Fatalf("a second seed: %v", err)
	}
	if auths, _ := db.ListAuthorities(ctx); len(auths) != 3 {
		t.Fatalf("after a second seed: %d authorities", len(auths))
	}
}

// TestAuditNamesAuthoritiesAndClaims: the audit log's readable view names
// an authority by its name and a claim by its domain, role and authority,
// not by their ids.
func TestAuditNamesAuthoritiesAndClaims(t *testing.T) {
	f := newDomainFixture(t)
	ctx := context.Background()
	c, err := f.db.CreateAuthorityClaim(ctx, who, f.claim("PISP", "Payments"), nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := []store.AuditRecord{
		{SubjectType: "Authority", SubjectID: f.auth.AuthorityID},
		{SubjectType: "AuthorityClaim", SubjectID: c.ClaimID, OrganisationID: f.org},
	}
	names, err := f.db.NamesForAudit(ctx, recs)
	if err != nil {
		t.Fatal(err)
	}
	if got := names.Subjects["Authority/"+f.auth.AuthorityID]; got != "Central Bank" {
		t.Errorf("authority named %q", got)
	}
	if got := names.Subjects["AuthorityClaim/"+c.ClaimID]; got != "Payments/PISP by Central Bank" {
		t.Errorf("claim named %q", got)
	}
}

// TestActiveRolesOfAPage: the roles of the Active claims of the given
// organisations (the organisation list's Roles column), by domain and
// role; an Inactive claim, and an organisation not asked for, are not in.
func TestActiveRolesOfAPage(t *testing.T) {
	f := newDomainFixture(t)
	ctx := context.Background()
	other, err := f.db.CreateOrganisation(ctx, who, store.Organisation{OrganisationName: "Other", RegistrationNumber: "2", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	none, err := f.db.CreateOrganisation(ctx, who, store.Organisation{OrganisationName: "None", RegistrationNumber: "3", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []store.AuthorityClaim{f.claim("PISP", "Payments"), f.claim("ASPSP", "Data"), f.claim("ASPSP", "Payments")} {
		if _, err := f.db.CreateAuthorityClaim(ctx, who, c, nil); err != nil {
			t.Fatal(err)
		}
	}
	ended := f.claim("DATA", "Data")
	ended.OrganisationID = other.OrganisationID
	ended.Status = "Inactive"
	if _, err := f.db.CreateAuthorityClaim(ctx, who, ended, nil); err != nil {
		t.Fatal(err)
	}
	got, err := f.db.ActiveRolesOf(ctx, []string{f.org, other.OrganisationID, none.OrganisationID})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.HeldRole{{AuthorisationDomain: "Data", Role: "ASPSP"}, {AuthorisationDomain: "Payments", Role: "ASPSP"}, {AuthorisationDomain: "Payments", Role: "PISP"}}
	if fmt.Sprint(got[f.org]) != fmt.Sprint(want) || len(got) != 1 {
		t.Errorf("roles %v, want only %s: %v", got, f.org, want)
	}
	if got, err := f.db.ActiveRolesOf(ctx, []string{other.OrganisationID}); err != nil || len(got) != 0 {
		t.Errorf("an organisation with Inactive claims only: %v %v", got, err)
	}
	if got, err := f.db.ActiveRolesOf(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("no ids: %v %v", got, err)
	}
}
