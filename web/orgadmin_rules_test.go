package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/web/webtest"
)

// makeOrgAdmin invites email as an administrator of orgID and returns their
// API client (their first token activates them).
func makeOrgAdmin(t *testing.T, env *webtest.Env, orgID, email string) *api {
	t.Helper()
	if _, _, err := env.DB.InviteOrganisationAdministrator(context.Background(), directory.Actor{Actor: "admin@example.com"}, orgID, email,
		directory.Invitation{To: email, Subject: "invited", Body: "welcome"}); err != nil {
		t.Fatal(err)
	}
	return newAPI(t, env, email)
}

// An Organisation Administrator manages their applications but not their
// flags (docs/design.md §19): a change of Flags, by naming others or by
// leaving them out, is 403 and changes nothing; the same flags pass.
func TestOrgAdminCannotChangeFlags(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	flag := su.must(201, "POST", "/references/flags", `{"Name":"Sandbox","Type":"Software_Statement"}`)["FlagId"].(string)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Flagged","Flags":["`+flag+`"]}`)
	aid := app["SoftwareStatementId"].(string)
	olga := makeOrgAdmin(t, env, oid, "olga@acme.example")

	for name, body := range map[string]string{
		"Flags left out": `{"ClientName":"Renamed","Status":"Active"}`,
		"Flags emptied":  `{"ClientName":"Renamed","Status":"Active","Flags":[]}`,
	} {
		if r, m := olga.do("PUT", "/organisations/"+oid+"/softwarestatements/"+aid, body); r.StatusCode != 403 || !strings.Contains(fieldsOf(m)["Flags"], "Flags") {
			t.Errorf("%s: %d %v, want 403 on Flags", name, r.StatusCode, m)
		}
	}
	if got := su.must(200, "GET", "/organisations/"+oid+"/softwarestatements/"+aid, ""); got["ClientName"] != "Flagged" {
		t.Fatalf("a refused change changed the application: %v", got)
	}
	saved := olga.must(200, "PUT", "/organisations/"+oid+"/softwarestatements/"+aid, `{"ClientName":"Renamed","Status":"Active","Flags":["`+flag+`"]}`)
	if saved["ClientName"] != "Renamed" {
		t.Fatalf("the same flags: %v", saved)
	}
	if r, m := olga.do("POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"New","Flags":["`+flag+`"]}`); r.StatusCode != 403 {
		t.Fatalf("creating a flagged application: %d %v, want 403", r.StatusCode, m)
	}
	if r, m := olga.do("POST", "/organisations/"+oid+"/authorisationservers", `{"Issuer":"https://as.acme.example","Flags":["`+flag+`"]}`); r.StatusCode != 403 {
		t.Fatalf("creating a flagged server: %d %v, want 403", r.StatusCode, m)
	}
	// Their write is audited with their e-mail.
	audit := su.must(200, "GET", "/audit?SubjectId="+aid+"&Action=update", "")
	if items := audit["content"].([]any); len(items) != 1 || items[0].(map[string]any)["Actor"] != "olga@acme.example" {
		t.Fatalf("the audit of their change: %v", audit)
	}
}

// The same for their authorisation server's flags (docs/design.md §19:
// a changed Flags member is 403 and changes nothing), and for naming
// another flag on their application: only the stored flags, as they are,
// pass.
func TestOrgAdminCannotChangeServerFlags(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	pilot := su.must(201, "POST", "/references/flags", `{"Name":"Pilot","Type":"Authorisation_Server"}`)["FlagId"].(string)
	other := su.must(201, "POST", "/references/flags", `{"Name":"Watch","Type":"Authorisation_Server"}`)["FlagId"].(string)
	sandbox := su.must(201, "POST", "/references/flags", `{"Name":"Sandbox","Type":"Software_Statement"}`)["FlagId"].(string)
	live := su.must(201, "POST", "/references/flags", `{"Name":"Live","Type":"Software_Statement"}`)["FlagId"].(string)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	issuer := discoveryServer(t, func(self string) string { return self })
	path := "/organisations/" + oid + "/authorisationservers/" +
		su.must(201, "POST", "/organisations/"+oid+"/authorisationservers", `{"CustomerFriendlyName":"Bank","Issuer":"`+issuer+`","Flags":["`+pilot+`"]}`)["AuthorisationServerId"].(string)
	app := "/organisations/" + oid + "/softwarestatements/" +
		su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App","Flags":["`+sandbox+`"]}`)["SoftwareStatementId"].(string)
	olga := makeOrgAdmin(t, env, oid, "olga@acme.example")

	for name, flags := range map[string]string{
		"another flag":   `["` + other + `"]`,
		"a flag added":   `["` + pilot + `","` + other + `"]`,
		"flags emptied":  `[]`,
		"flags left out": ``,
	} {
		body := `{"CustomerFriendlyName":"Renamed","Status":"Active","Issuer":"` + issuer + `"`
		if flags != "" {
			body += `,"Flags":` + flags
		}
		if r, m := olga.do("PUT", path, body+`}`); r.StatusCode != 403 || fieldsOf(m)["Flags"] == "" {
			t.Errorf("server, %s: %d %v, want 403 on Flags", name, r.StatusCode, m)
		}
	}
	if r, m := olga.do("PUT", app, `{"ClientName":"Renamed","Status":"Active","Flags":["`+live+`"]}`); r.StatusCode != 403 || fieldsOf(m)["Flags"] == "" {
		t.Errorf("application, another flag: %d %v, want 403 on Flags", r.StatusCode, m)
	}
	if got := su.must(200, "GET", path, ""); got["CustomerFriendlyName"] != "Bank" || toJSON(t, got["Flags"]) != `["`+pilot+`"]` {
		t.Fatalf("a refused change changed the server: %v %v", got["CustomerFriendlyName"], got["Flags"])
	}
	if got := su.must(200, "GET", app, ""); got["ClientName"] != "App" || toJSON(t, got["Flags"]) != `["`+sandbox+`"]` {
		t.Fatalf("a refused change changed the application: %v %v", got["ClientName"], got["Flags"])
	}
	if saved := olga.must(200, "PUT", path, `{"CustomerFriendlyName":"Renamed","Status":"Active","Issuer":"`+issuer+`","Flags":["`+pilot+`"]}`); saved["CustomerFriendlyName"] != "Renamed" {
		t.Fatalf("the same flags: %v", saved)
	}
}

// An Organisation Administrator sets their application's status (Inactive
// is the end state) but never brings it back: only a Super User
// reactivates.
func TestOrgAdminStatusesNotBackFromTheEnd(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	aid := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App"}`)["SoftwareStatementId"].(string)
	olga := makeOrgAdmin(t, env, oid, "olga@acme.example")
	path := "/organisations/" + oid + "/softwarestatements/" + aid
	olga.must(200, "PUT", path, `{"ClientName":"App","Status":"Suspended","StatusReason":"maintenance"}`)
	olga.must(200, "PUT", path, `{"ClientName":"App","Status":"Active"}`)
	olga.must(200, "PUT", path, `{"ClientName":"App","Status":"Inactive","StatusReason":"retired"}`)
	if r, m := olga.do("PUT", path, `{"ClientName":"App","Status":"Active"}`); r.StatusCode != 403 && r.StatusCode != 422 {
		t.Fatalf("back from the end state: %d %v, want refused", r.StatusCode, m)
	}
	if got := su.must(200, "GET", path, ""); got["Status"] != "Withdrawn" && got["Status"] != "Inactive" {
		t.Fatalf("status after the refusal: %v", got["Status"])
	}
}

// An Organisation Administrator whose record is set Inactive loses access
// at their next request; the organisation record stays read only.
func TestOrgAdminInactiveLosesAccess(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	olga := makeOrgAdmin(t, env, oid, "olga@acme.example")
	olga.must(200, "GET", "/organisations/"+oid, "")
	if r, m := olga.do("PUT", "/organisations/"+oid, org("Renamed")); r.StatusCode != 403 {
		t.Fatalf("changing the organisation record: %d %v, want 403", r.StatusCode, m)
	}
	if _, err := env.DB.SetOrganisationAdministratorStatus(context.Background(), directory.Actor{Actor: "admin@example.com"}, oid, "olga@acme.example", "Inactive", nil); err != nil {
		t.Fatal(err)
	}
	if r, m := olga.do("GET", "/organisations/"+oid, ""); r.StatusCode != 403 {
		t.Fatalf("an Inactive Organisation Administrator: %d %v, want 403", r.StatusCode, m)
	}
}
