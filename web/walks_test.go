package web_test

import (
	"os"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestRequestWalks makes the requests of docs/design.md §1.3's walks, one
// named by TRUSTFRAME_WALK after the same set-up ("none": the set-up
// alone). .ci/walks runs it under coverage once per walk and once without,
// and lists the files whose counts the walk's request raised.
func TestRequestWalks(t *testing.T) {
	which := os.Getenv("TRUSTFRAME_WALK")
	if which == "" || testing.CoverMode() != "atomic" {
		t.Skip("measures the request walks of docs/design.md §1.3; run .ci/walks")
	}
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, su)
	da := newAPIWithInvite(t, env, su, "da@example.com")
	su.must(201, "POST", "/organisations/"+oid+"/softwarestatements/"+aid+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01"}`)
	ssaPath := "/organisations/" + oid + "/softwarestatements/" + aid + "/assertion"
	// A server in service has seen each administrator and signed before:
	// the first request of a token and the first SSA fill caches.
	getRaw(t, su, ssaPath)
	da.must(200, "GET", "/organisations/"+oid+"/contacts", "")

	walk := func(name string, request func()) {
		if name == which {
			request()
		}
	}
	walk("contact", func() {
		da.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Technical","FirstName":"Ada","LastName":"Lovelace","EmailAddress":"ada@example.com"}`)
	})
	walk("ssa", func() {
		if resp, tok := getRaw(t, su, ssaPath); resp.StatusCode != 200 {
			t.Fatal(resp.StatusCode, tok)
		}
	})
	walk("certification-type", func() {
		su.must(409, "PUT", "/references/certification-types/FAPI", `{"Status":"Inactive"}`)
	})
}
