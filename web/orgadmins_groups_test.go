package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// Issue 36 with §16: a group mapping may grant
// OrganisationAdministrator:<OrganisationId>; a mapping naming no
// organisation, or one that does not exist, is refused on its Role and
// nothing is saved.
func TestOrgAdminGroupMappingValidation(t *testing.T) {
	op := newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	acme := admin.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	bindGroups(t, admin, op, "Corp", `[]`)
	base := `"EmailDomains":["example.com"],"Issuer":"` + op.srv.URL + `","Audience":"automation","ClientId":"console"`
	for name, roles := range map[string]string{
		"unknown organisation": `[{"Group":"it","Role":"OrganisationAdministrator:00000000-0000-4000-8000-000000000000"}]`,
		"no organisation":      `[{"Group":"it","Role":"OrganisationAdministrator:"}]`,
		"blank organisation":   `[{"Group":"it","Role":"OrganisationAdministrator: "}]`,
	} {
		r, m := admin.do("PUT", "/references/identity-providers/Corp", `{`+base+`,"GroupRoles":`+roles+`}`)
		if r.StatusCode != 422 || fieldsOf(m)["GroupRoles[0].Role"] == "" {
			t.Errorf("%s: %d %v", name, r.StatusCode, m)
		}
	}
	if m := admin.must(200, "GET", "/references/identity-providers/Corp", ""); len(m["GroupRoles"].([]any)) != 0 {
		t.Fatalf("something was saved: %v", m)
	}
	m := admin.must(200, "PUT", "/references/identity-providers/Corp", `{`+base+`,"GroupRoles":[{"Group":"it","Role":"OrganisationAdministrator: `+acme+`"}]}`)
	if toJSON(t, m["GroupRoles"]) != `[{"Group":"it","Role":"OrganisationAdministrator:`+acme+`"}]` {
		t.Fatalf("saved: %v", m["GroupRoles"])
	}
}

// A mapped group of the token makes its holder an Active administrator of
// that organisation (group_grant, with the organisation), per
// organisation; the group leaving the token ends that organisation's grant
// only (group_revoke); the People tab says "via group G of provider P";
// an invited administrator is never touched by groups; unmapping the group
// ends what it granted.
func TestOrgAdminGrantedByGroups(t *testing.T) {
	op := newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	acme := admin.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	beta := admin.must(201, "POST", "/organisations", org("Beta"))["OrganisationId"].(string)
	c := webtest.Browser() // signed in before Corp offers its sign-in
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	mappings := `[{"Group":"acme-it","Role":"OrganisationAdministrator:` + acme + `"},{"Group":"beta-it","Role":"OrganisationAdministrator:` + beta + `"}]`
	bindGroups(t, admin, op, "Corp", mappings)
	acmeAdmins, betaAdmins := env.URL+"/api/organisations/"+acme+"/administrators", env.URL+"/api/organisations/"+beta+"/administrators"

	if st, b := status(t, op.accessToken("nina@example.com", []any{"staff", "acme-it"}), acmeAdmins); st != 200 {
		t.Fatalf("first call with a mapped group: %d %s", st, b)
	}
	got := admin.must(200, "GET", "/organisations/"+acme+"/administrators/nina@example.com", "")
	if got["Status"] != "Active" || got["GrantedBy"] != "group" || got["Group"] != "acme-it" || got["IdentityProvider"] != "Corp" || got["ActivatedAt"] == nil {
		t.Fatalf("granted record: %v", got)
	}
	admin.must(404, "GET", "/organisations/"+beta+"/administrators/nina@example.com", "")
	grants := auditOf(t, admin, "group_grant")
	if len(grants) != 1 || !strings.Contains(grants[0], "identity provider Corp|OrganisationAdministrator|nina@example.com|") {
		t.Fatalf("group_grant audit: %q", grants)
	}
	if recs := admin.must(200, "GET", "/audit?Action=group_grant&OrganisationId="+acme, "")["content"].([]any); len(recs) != 1 {
		t.Fatalf("group_grant without the organisation: %v", recs)
	}
	// The same token again writes nothing.
	status(t, op.accessToken("nina@example.com", []any{"acme-it"}), acmeAdmins)
	if n := len(auditOf(t, admin, "group_grant")); n != 1 {
		t.Fatalf("second call wrote %d grants", n)
	}
	// Both groups: both organisations.
	if st, _ := status(t, op.accessToken("nina@example.com", []any{"acme-it", "beta-it"}), betaAdmins); st != 200 {
		t.Fatalf("both groups: %d", st)
	}
	// Acme's group gone: Acme's grant ends, Beta's stays.
	if st, _ := status(t, op.accessToken("nina@example.com", []any{"beta-it"}), betaAdmins); st != 200 {
		t.Fatalf("Beta's group only: %d", st)
	}
	if m := admin.must(200, "GET", "/organisations/"+acme+"/administrators/nina@example.com", ""); m["Status"] != "Inactive" {
		t.Fatalf("Acme's grant: %v", m)
	}
	if m := admin.must(200, "GET", "/organisations/"+beta+"/administrators/nina@example.com", ""); m["Status"] != "Active" {
		t.Fatalf("Beta's grant: %v", m)
	}
	if a := auditOf(t, admin, "group_revoke"); len(a) != 1 || !strings.Contains(a[0], "OrganisationAdministrator|nina@example.com|") || !strings.Contains(a[0], "acme-it") {
		t.Fatalf("group_revoke audit: %q", a)
	}
	// No group at all: no administrator.
	if st, _ := status(t, op.accessToken("nina@example.com", nil), betaAdmins); st != 403 {
		t.Fatalf("no groups: %d", st)
	}
	// Back: both restored.
	if st, _ := status(t, op.accessToken("nina@example.com", []any{"acme-it", "beta-it"}), acmeAdmins); st != 200 {
		t.Fatalf("group back: %d", st)
	}

	// The People tab says how.
	_, doc := page(t, c, env.URL+"/organisations/"+acme+"/administrators")
	if how := doc.Find("[data-testid=organisation-administrator-row] [data-testid=granted-by]").Text(); how != "via group acme-it of provider Corp" {
		t.Fatalf("People tab: %q; %s", how, doc.Find("main").Text())
	}

	// An invited administrator is never touched by groups.
	admin.must(201, "POST", "/organisations/"+acme+"/administrators", `{"Email":"ivy@example.com"}`)
	status(t, op.accessToken("ivy@example.com", []any{"staff"}), acmeAdmins)
	if m := admin.must(200, "GET", "/organisations/"+acme+"/administrators/ivy@example.com", ""); m["Status"] != "Invited" || m["GrantedBy"] != "invitation" {
		t.Fatalf("invited record: %v", m)
	}

	// Unmapping Acme's group ends what it granted, at once.
	admin.must(200, "PUT", "/references/identity-providers/Corp", `{"EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+
		`","Audience":"automation","ClientId":"console","GroupRoles":[{"Group":"beta-it","Role":"OrganisationAdministrator:`+beta+`"}]}`)
	if m := admin.must(200, "GET", "/organisations/"+acme+"/administrators/nina@example.com", ""); m["Status"] != "Inactive" {
		t.Fatalf("after unmapping: %v", m)
	}
	if m := admin.must(200, "GET", "/organisations/"+beta+"/administrators/nina@example.com", ""); m["Status"] != "Active" {
		t.Fatalf("Beta's grant after unmapping Acme's: %v", m)
	}
}
