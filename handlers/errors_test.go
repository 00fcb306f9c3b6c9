package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/trustframe/trustframe/directory"
)

// Each refusal of the application layer is answered with one status and
// code, in one place (AsError): the API's problem body names each field
// with the refusal's code (invalid for a form's fields), and a busy
// refusal says when to try again.
func TestLayerErrorsMeetHTTPOnce(t *testing.T) {
	for _, c := range []struct {
		err       error
		status    int
		code      string
		fieldCode string
		header    string
	}{
		{directory.Fields{"LastName": "Last name is required."}.Err(), 422, "validation_failed", "invalid", ""},
		{directory.NotFound("Contact"), 404, "not_found", "", ""},
		{&directory.Error{Code: directory.CodeConflict, Message: "in use"}, 409, "conflict", "", ""},
		{&directory.Error{Code: directory.CodeApplicationNotActive, Message: "m", Fields: directory.Fields{"Status": "m"}}, 409, "application_not_active", "application_not_active", ""},
		{&directory.Error{Code: directory.CodeOrganisationNotActive, Message: "m"}, 409, "organisation_not_active", "", ""},
		{&directory.Error{Code: directory.CodeUnsupportedSigningAlg, Message: "m", Fields: directory.Fields{"signingAlg": "m"}}, 400, "unsupported_signing_alg", "unsupported_signing_alg", ""},
		{&directory.Error{Code: directory.CodeBusy, Message: "m"}, 503, "busy", "", "1"},
		{&directory.Error{Code: "no_such_code", Message: "m"}, 500, "internal", "", ""},
	} {
		e := AsError(c.err)
		if e.Status != c.status || e.Code != c.code {
			t.Errorf("%v: %d %s, want %d %s", c.err, e.Status, e.Code, c.status, c.code)
		}
		if c.fieldCode != "" && (len(e.Fields) != 1 || e.Fields[0].Code != c.fieldCode) {
			t.Errorf("%v: fields %+v, want one with code %s", c.err, e.Fields, c.fieldCode)
		}
		rec := httptest.NewRecorder()
		WriteError(rec, httptest.NewRequest(http.MethodGet, "/api/organisations", nil), c.err)
		if rec.Code != c.status || rec.Header().Get("Retry-After") != c.header {
			t.Errorf("%v: answered %d with Retry-After %q, want %d and %q", c.err, rec.Code, rec.Header().Get("Retry-After"), c.status, c.header)
		}
	}
}

// The payload goes on the wire as before: one JSON object of the kinds
// present, in name order, each record's members in the order they always
// had ("summary|payload", docs/design.md §4).
func TestConflictWireKeepsThePayloadShape(t *testing.T) {
	e := AsError(&directory.ConflictError{Message: "in use", InTheWay: directory.InTheWay{
		Roles:                []directory.RoleRef{{AuthorisationDomain: "Open Banking", Name: "PISP"}},
		Authorities:          []directory.AuthorityRef{{AuthorityID: "a1", AuthorityName: "FCA"}},
		RoleMetadataPolicies: []directory.PolicyRef{{PolicyID: "p1", Policy: "PISP / openid_relying_party"}},
	}})
	want := `In use|{"Authorities":[{"AuthorityId":"a1","AuthorityName":"FCA"}],"RoleMetadataPolicies":[{"Policy":"PISP / openid_relying_party","PolicyId":"p1"}],"Roles":[{"AuthorisationDomain":"Open Banking","Name":"PISP"}]}`
	if got := conflictWire(e); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := conflictWire(AsError(&directory.ConflictError{Message: "in use"})); got != "In use" {
		t.Fatalf("a conflict naming nothing: %s", got)
	}
}
