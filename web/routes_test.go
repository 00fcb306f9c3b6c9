package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestAllowNamesOnlyTheRoutedMethods: the 405 at the path a subrouter is
// mounted on (the organisation list, one organisation, the Super Users)
// said "Allow: GET, HEAD, POST, PUT, PATCH, DELETE" — the very method it
// refused among them — because chi's Find takes the mount point for a
// route of every method.
func TestAllowNamesOnlyTheRoutedMethods(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	cid := a.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Technical","LastName":"Doe","EmailAddress":"doe@acme.example"}`)["ContactId"].(string)
	for _, c := range []struct{ method, path, allow string }{
		{"PATCH", "/organisations", "GET, HEAD, POST"},
		{"DELETE", "/organisations", "GET, HEAD, POST"},
		{"DELETE", "/organisations/" + oid, "GET, HEAD, PUT"},
		{"PATCH", "/organisations/" + oid, "GET, HEAD, PUT"},
		{"PATCH", "/organisations/" + oid + "/contacts/" + cid, "GET, HEAD, PUT, DELETE"},
		{"DELETE", "/organisations/" + oid + "/contacts", "GET, HEAD, POST"},
		{"PATCH", "/users/super", "GET, HEAD, POST"},
		{"DELETE", "/users/data-administrators", "GET, HEAD, POST"},
		{"PATCH", "/users/super/admin@example.com", "GET, HEAD, PUT"},
		{"PUT", "/changes", "GET, HEAD"},
	} {
		r, m := a.do(c.method, c.path, `{}`)
		if r.StatusCode != 405 || r.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q, want 405 and %q (%v)", c.method, c.path, r.StatusCode, r.Header.Get("Allow"), c.allow, m)
		}
	}
}

// TestPublicAPIRoutesRefuseOtherMethodsWithout401: the public lists under
// /api (participants, releases, the SSA keyset) answered a POST without
// credentials with 401 "an access token is required" — the request fell
// through to the authenticated /api group — although no token makes it
// allowed; with a token the same request was a 405. HEAD is GET without
// the body there, as everywhere (docs/design.md §4).
func TestPublicAPIRoutesRefuseOtherMethodsWithout401(t *testing.T) {
	env := webtest.Start(t, nil)
	for _, path := range []string{"/api/participants", "/api/releases", "/api/releases/2.6.0/openapi.yaml", "/api/keystore/ssa.jwks"} {
		for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			r, b := call(t, m, env.URL+path, nil)
			if r.StatusCode != 405 || r.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(b, "method_not_allowed") {
				t.Errorf("%s %s: %d Allow %q %s, want 405 with Allow: GET, HEAD", m, path, r.StatusCode, r.Header.Get("Allow"), b)
			}
		}
		if r, _ := call(t, "GET", env.URL+path, nil); r.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, r.StatusCode)
		}
		if r, b := call(t, "HEAD", env.URL+path, nil); r.StatusCode != 200 || b != "" {
			t.Errorf("HEAD %s: %d with %d bytes, want 200 and no body", path, r.StatusCode, len(b))
		}
	}
}
