package web_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestNoBadInputReachesA500 sends every /api route malformed, mistyped and
// odd input, with real and unknown ids in the path: none may answer 5xx.
func TestNoBadInputReachesA500(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App"}`)["SoftwareStatementId"].(string)
	auth := setupDomains(t, a)
	cid := grant(t, a, oid, auth, "Payments", "PISP")
	whID := a.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	ids := map[string][]string{
		"webhookID":   {whID, "nope"},
		"typeID":      {"nope", "%00", "00000000-0000-4000-8000-000000000000"},
		"deliveryID":  {"1", "x", "99999999999999999999"},
		"domain":      {"Payments", "Nope", "a%2Fb"},
		"role":        {"PISP", "NOPE"},
		"authorityID": {auth, "nope"},
		"claimID":     {cid, "nope"},
		"orgID":       {oid, "00000000-0000-4000-8000-000000000000", "not-a-uuid", "%00"},
		"appID":       {aid, "nope"},
		"email":       {"admin@example.com", "a%23b@x", "nobody"},
		"name":        {"Business", "Nope", "a%20b"},
		"flagID":      {"nope"},
		"kid":         {"nope", "a.b"},
		"certType":    {"qseal", "nope"},
		"kmID":        {"nope"},
		"attID":       {"nope"},
		"serverID":    {"nope"},
		"contactID":   {"nope"},
		"docID":       {"nope"},
		"certID":      {"nope"},
		"policyID":    {"nope"},
		"version":     {"2.6.0", "9.9.9"},
		"request":     {"MAMCAQA", "%2F%2F", "%00", "not base64!"},
	}
	bodies := []struct{ ctype, body string }{
		{"application/json", `{`},
		{"application/json", `[]`},
		{"application/json", `null`},
		{"application/json", `{"Status":5,"Email":[],"Flags":"x","PublicJwk":"x","Policy":7}`},
		{"application/json", `{"unknown":true}`},
		{"application/json", `{"Status":"Active","Email":"a@example.com","OrganisationName":"` + strings.Repeat("x", 5000) + `"}`},
		{"application/x-pem-file", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"},
		{"multipart/form-data; boundary=x", "--x\r\nbroken"},
		{"text/plain", "hello"},
		{"", ""},
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	var routes [][2]string
	chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.HasPrefix(route, "/api/") {
			routes = append(routes, [2]string{method, route})
		}
		return nil
	})
	sent := 0
	for _, rt := range routes {
		paths := []string{rt[1]}
		for {
			m := param.FindStringSubmatch(paths[0])
			if m == nil {
				break
			}
			var next []string
			for _, p := range paths {
				for _, v := range ids[m[1]] {
					next = append(next, strings.Replace(p, m[0], v, 1))
				}
			}
			if len(next) == 0 {
				t.Fatalf("no ids for {%s}", m[1])
			}
			paths = next
		}
		for _, p := range paths {
			for _, b := range bodies {
				req := httptest.NewRequest(rt[0], p+"?page=-1&size=abc&sort=%00&signingAlg=%20&q=%22", strings.NewReader(b.body))
				if b.ctype != "" {
					req.Header.Set("Content-Type", b.ctype)
				}
				req.Header.Set("Authorization", "Bearer "+a.token)
				req.Header.Set("If-Match", `"stale"`)
				rec := httptest.NewRecorder()
				env.ServeHTTP(rec, req)
				sent++
				if rec.Code >= 500 {
					t.Errorf("%s %s (%s %.30q): %d %s", rt[0], p, b.ctype, b.body, rec.Code, rec.Body.String())
				}
			}
		}
	}
	if len(routes) < 50 || sent < 1000 {
		t.Fatalf("only %d routes and %d requests: the walk missed the API", len(routes), sent)
	}
}

// TestNoBadFormReachesA500 does the same for the browser routes, signed in.
func TestNoBadFormReachesA500(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App"}`)["SoftwareStatementId"].(string)
	whID := a.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	var cookie string
	for _, ck := range c.Jar.Cookies(mustURL(env.URL)) {
		cookie = ck.Name + "=" + ck.Value
	}
	ids := map[string]string{"orgID": oid, "appID": aid, "email": "admin@example.com", "name": "Business", "flagID": "nope", "kid": "nope",
		"certType": "qseal", "kmID": "nope", "attID": "nope", "serverID": "nope", "contactID": "nope", "docID": "nope", "certID": "nope", "policyID": "nope",
		"domain": "Nope", "role": "NOPE", "authorityID": "nope", "claimID": "nope", "webhookID": whID, "deliveryID": "1", "request": "MAMCAQA"}
	forms := []string{"", "Status=Deleted&Email=%00&Flags=x&Flags=y", "OrganisationName=" + strings.Repeat("y", 3000), "%zz", "PEM=hello&type=nope&DocumentStartDate=2026-99-01&Policy=%7B"}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	sent := 0
	chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.HasPrefix(route, "/api/") || strings.HasPrefix(route, "/dev/idp") || route == "/logout" || strings.HasPrefix(route, "/auth/") {
			return nil
		}
		p := param.ReplaceAllStringFunc(route, func(m string) string { return ids[strings.Trim(m, "{}")] })
		for _, f := range forms {
			req := httptest.NewRequest(method, p+"?page=x&sort=Nope&Status=Gone", strings.NewReader(f))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Cookie", cookie)
			rec := httptest.NewRecorder()
			env.ServeHTTP(rec, req)
			sent++
			if rec.Code >= 500 {
				t.Errorf("%s %s (%.30q): %d", method, p, f, rec.Code)
			}
		}
		return nil
	})
	if sent < 200 {
		t.Fatalf("only %d requests", sent)
	}
}
