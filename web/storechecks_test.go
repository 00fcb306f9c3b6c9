package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// A refused form names a bad reference (an unknown contact type, flag,
// role, document type or authority) together with its other mistakes:
// the reference was checked only once the rest passed, so the same form
// was refused twice. The check is a dry run: nothing is written, the
// audit log included.
func TestRefusalNamesReferencesWithTheRest(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	org := a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme","RegistrationNumber":"1","CountryOfRegistration":"GB"}`)
	id := org["OrganisationId"].(string)
	contact := a.must(201, "POST", "/organisations/"+id+"/contacts", `{"ContactType":"Technical","LastName":"Adams","EmailAddress":"a@acme.example"}`)
	cid := contact["ContactId"].(string)
	app := a.must(201, "POST", "/organisations/"+id+"/softwarestatements", `{"ClientName":"App"}`)
	aid := app["SoftwareStatementId"].(string)
	auditBefore, _ := env.DB.LastChangeID(context.Background())

	for _, c := range []struct {
		method, path, body string
		want               map[string]string // field -> a part of its message
	}{
		{"POST", "/organisations/" + id + "/contacts", `{"ContactType":"Nope","LastName":"","EmailAddress":"x"}`,
			map[string]string{"ContactType": `no contact type "Nope"`, "LastName": "", "EmailAddress": ""}},
		{"PUT", "/organisations/" + id + "/contacts/" + cid, `{"ContactType":"Nope","LastName":"","EmailAddress":"a@acme.example"}`,
			map[string]string{"ContactType": `no contact type "Nope"`, "LastName": ""}},
		{"POST", "/organisations", `{"OrganisationName":"","RegistrationNumber":"2","CountryOfRegistration":"GB","Flags":["no-such-flag"]}`,
			map[string]string{"Flags": "there is no flag no-such-flag", "OrganisationName": ""}},
		{"PUT", "/organisations/" + id, `{"OrganisationName":"","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Pending","Flags":["no-such-flag"]}`,
			map[string]string{"Flags": "there is no flag no-such-flag", "OrganisationName": ""}},
		{"POST", "/organisations/" + id + "/softwarestatements", `{"ClientName":"","Roles":["PISP"]}`,
			map[string]string{"Roles": `no Active claim on the role "PISP"`, "ClientName": ""}},
		{"PUT", "/organisations/" + id + "/softwarestatements/" + aid, `{"ClientName":"","Roles":["PISP"]}`,
			map[string]string{"Roles": `no Active claim on the role "PISP"`, "ClientName": ""}},
		{"POST", "/organisations/" + id + "/authorisationservers", `{"CustomerFriendlyName":"","Issuer":"","Flags":["no-such-flag"]}`,
			map[string]string{"Flags": "there is no flag no-such-flag", "CustomerFriendlyName": "", "Issuer": "required"}},
		{"POST", "/organisations/" + id + "/documents", `{"DocumentType":"Horoscope","DocumentStartDate":"2027-01-01","DocumentExpiryDate":"2026-01-01"}`,
			map[string]string{"DocumentType": `no Document type "Horoscope"`, "DocumentExpiryDate": ""}},
		{"POST", "/organisations/" + id + "/authority-claims", `{"AuthorityId":"nope","AuthorisationDomain":"Payments","Role":"PISP","Status":"Bogus"}`,
			map[string]string{"AuthorityId": `there is no authority "nope"`, "Status": ""}},
	} {
		r, m := a.do(c.method, c.path, c.body)
		got := fieldsOf(m)
		if r.StatusCode != 422 {
			t.Errorf("%s %s: %d %v", c.method, c.path, r.StatusCode, m)
			continue
		}
		if strings.HasSuffix(c.path, "/authorisationservers") && got["Issuer"] != "Issuer is required." {
			t.Errorf("the issuer is named once: %q", got["Issuer"])
		}
		for f, part := range c.want {
			if msg, ok := got[f]; !ok || !strings.Contains(msg, part) {
				t.Errorf("%s %s: field %s: %q (all: %v)", c.method, c.path, f, msg, got)
			}
		}
	}
	if after, _ := env.DB.LastChangeID(context.Background()); after != auditBefore {
		t.Fatalf("the refused forms wrote audit records: %d -> %d", auditBefore, after)
	}
	if l := a.must(200, "GET", "/organisations?size=10", ""); l["totalSize"].(float64) != 1 {
		t.Fatalf("organisations: %v", l["totalSize"])
	}
	if l := a.must(200, "GET", "/organisations/"+id+"/contacts", ""); l["totalSize"].(float64) != 1 {
		t.Fatalf("contacts: %v", l["totalSize"])
	}
}
