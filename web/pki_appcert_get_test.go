package web_test

// GET …/softwarestatements/{appID}/certificates/kid/{kid}: one of an
// application's certificates, where the issuing answer's Location points,
// so that the application's own token can follow it (docs/design.md §18,
// §20).

import (
	"crypto/x509/pkix"
	"net/http"
	"strings"
	"testing"
)

func TestPKIApplicationFollowsTheLocationOfItsCertificate(t *testing.T) {
	p := startPKI(t, true, nil)
	c := newAppClientOf(t, p.env, p.a, p.oid, p.aid)
	app := c.api(t)
	resp, issued := app.do("POST", p.appCerts()+"/signing", mustMarshal(map[string]string{"CSR": csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{}))}))
	kid, _ := issued["kid"].(string)
	if resp.StatusCode != http.StatusCreated || kid == "" {
		t.Fatalf("issue with its own token: %d %v", resp.StatusCode, issued)
	}
	loc := resp.Header.Get("Location")
	if loc != "/api"+p.appCerts()+"/kid/"+kid {
		t.Fatalf("Location %q, want it under the application", loc)
	}
	got, m := app.do("GET", strings.TrimPrefix(loc, "/api"), "")
	if got.StatusCode != http.StatusOK || m["kid"] != kid || m["SoftwareStatementId"] != p.aid {
		t.Fatalf("its token following the Location: %d %v", got.StatusCode, m)
	}
	// The same answer as the organisation's GET …/certificates/kid/{kid}, the same ETag.
	orgResp, orgM := p.a.do("GET", "/organisations/"+p.oid+"/certificates/kid/"+kid, "")
	if orgResp.StatusCode != 200 || mustMarshal(orgM) != mustMarshal(m) || orgResp.Header.Get("ETag") != got.Header.Get("ETag") || got.Header.Get("ETag") == "" {
		t.Fatalf("the organisation's answer differs:\n%s %s\n%s %s", mustMarshal(orgM), orgResp.Header.Get("ETag"), mustMarshal(m), got.Header.Get("ETag"))
	}
	// The organisation URL stays out of its token's reach.
	if r, _ := app.do("GET", "/organisations/"+p.oid+"/certificates/kid/"+kid, ""); r.StatusCode != http.StatusForbidden {
		t.Fatalf("its token on the organisation's URL: %d, want 403", r.StatusCode)
	}
}

func TestPKIApplicationCertificateOfAnotherIsNotFound(t *testing.T) {
	p := startPKI(t, true, nil)
	sibling := p.a.must(201, "POST", "/organisations/"+p.oid+"/softwarestatements", `{"ClientName":"Acme Till","RedirectUri":["https://acme.example/till"]}`)["SoftwareStatementId"].(string)
	sib := pkiSetup{env: p.env, ca: p.ca, a: p.a, oid: p.oid, aid: sibling}
	resp, m, _ := sib.issue(t, sib.appCerts()+"/transport", "application/pkcs10", mustCSR(t, mustKey(t, "p256"), pkix.Name{}), "")
	if resp.StatusCode != 201 {
		t.Fatalf("the sibling's certificate: %d %v", resp.StatusCode, m)
	}
	sibKid := m["kid"].(string)
	resp, m, _ = p.issue(t, "/organisations/"+p.oid+"/certificates/seal", "application/pkcs10", mustCSR(t, mustKey(t, "rsa2048"), pkix.Name{CommonName: "Acme Payments"}), "")
	if resp.StatusCode != 201 {
		t.Fatalf("the seal: %d %v", resp.StatusCode, m)
	}
	sealKid := m["kid"].(string)
	if loc := resp.Header.Get("Location"); loc != "/api/organisations/"+p.oid+"/certificates/kid/"+sealKid {
		t.Fatalf("the seal's Location %q, want the organisation's URL", loc)
	}
	app := newAppClientOf(t, p.env, p.a, p.oid, p.aid).api(t)
	for who, a := range map[string]*api{"its own token": app, "a superuser": p.a} {
		for what, kid := range map[string]string{"another application's": sibKid, "the organisation's seal": sealKid, "an unknown": "nope"} {
			if r, body := a.do("GET", p.appCerts()+"/kid/"+kid, ""); r.StatusCode != http.StatusNotFound || body["code"] == nil && body["title"] == nil {
				t.Errorf("%s reading %s certificate under the application: %d %v, want 404", who, what, r.StatusCode, body)
			}
		}
	}
	// Under its own application the sibling's certificate is there.
	if r, body := p.a.do("GET", sib.appCerts()+"/kid/"+sibKid, ""); r.StatusCode != 200 || body["kid"] != sibKid {
		t.Fatalf("under its own application: %d %v", r.StatusCode, body)
	}
}

func TestPKIOrganisationAdministratorReadsAnApplicationCertificate(t *testing.T) {
	p := startPKI(t, true, nil)
	sibling := p.a.must(201, "POST", "/organisations/"+p.oid+"/softwarestatements", `{"ClientName":"Acme Till","RedirectUri":["https://acme.example/till"]}`)["SoftwareStatementId"].(string)
	mustInviteOrgAdmin(t, p.env, "olga@acme.example", p.oid)
	olga := pkiSetup{env: p.env, ca: p.ca, a: newAPI(t, p.env, "olga@acme.example"), oid: p.oid, aid: p.aid}
	resp, m, _ := olga.issue(t, olga.appCerts()+"/encryption", "application/pkcs10", mustCSR(t, mustKey(t, "rsa2048"), pkix.Name{}), "")
	if resp.StatusCode != 201 {
		t.Fatalf("issue: %d %v", resp.StatusCode, m)
	}
	kid := m["kid"].(string)
	if got := olga.a.must(200, "GET", strings.TrimPrefix(resp.Header.Get("Location"), "/api"), ""); got["kid"] != kid {
		t.Fatalf("following the Location: %v", got)
	}
	wrong := "/organisations/" + p.oid + "/softwarestatements/" + sibling + "/certificates/kid/" + kid
	if r, body := olga.a.do("GET", wrong, ""); r.StatusCode != http.StatusNotFound {
		t.Fatalf("under another application: %d %v, want 404", r.StatusCode, body)
	}
}
