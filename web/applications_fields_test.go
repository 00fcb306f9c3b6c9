package web_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestClientIdIsNotWritableOnCreate: ClientId is the service's to assign
// (docs/decisions.md): one sent on create, by the API or the form, is
// ignored like every other server-set field, and the application gets its
// own id as ClientId.
func TestClientIdIsNotWritableOnCreate(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App","ClientId":"chosen-by-the-client"}`)
	if app["ClientId"] != app["SoftwareStatementId"] {
		t.Fatalf("API create: ClientId %v, want the id %v", app["ClientId"], app["SoftwareStatementId"])
	}

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/organisations/"+oid+"/softwarestatements", url.Values{"ClientName": {"Form app"}, "Status": {"Active"}, "ClientId": {"form-chosen"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	apps, err := env.DB.ListSoftwareStatements(context.Background(), oid)
	if err != nil || len(apps) != 2 {
		t.Fatalf("%d %v %v", resp.StatusCode, apps, err)
	}
	for _, s := range apps {
		if s.ClientID != s.SoftwareStatementID {
			t.Errorf("%s: ClientId %q, want its id %q", s.ClientName, s.ClientID, s.SoftwareStatementID)
		}
	}
}
