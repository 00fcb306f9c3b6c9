package web_test

// The access matrix of an application calling for itself (docs/design.md
// §20): every /api route of the router, read from the router, against its
// own application, another application of its organisation, and another
// organisation.

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/web/webtest"
)

// appExpect is what an application's token must get on an /api route:
// the gate's rule (web/appaccess.go), spelled out again here.
func appExpect(method, route string) string {
	switch method + " " + route {
	case "GET /api/organisations/{orgID}":
		return "org"
	case "GET /api/organisations/{orgID}/softwarestatements/{appID}",
		"GET /api/organisations/{orgID}/softwarestatements/{appID}/assertion",
		"GET /api/organisations/{orgID}/softwarestatements/{appID}/certificates",
		"POST /api/organisations/{orgID}/softwarestatements/{appID}/certificates/{certType}",
		"GET /api/organisations/{orgID}/softwarestatements/{appID}/certificates/kid/{kid}",
		"PUT /api/organisations/{orgID}/softwarestatements/{appID}/certificates/kid/{kid}":
		return "own"
	}
	return "forbidden"
}

func TestAppAccessMatrixOverEveryRoute(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	sibling := su.must(201, "POST", "/organisations/"+c.orgID+"/softwarestatements", `{"ClientName":"Sibling"}`)["SoftwareStatementId"].(string)
	otherOrg := su.must(201, "POST", "/organisations", org("Other"))["OrganisationId"].(string)
	otherApp := su.must(201, "POST", "/organisations/"+otherOrg+"/softwarestatements", `{"ClientName":"Theirs"}`)["SoftwareStatementId"].(string)
	app := c.api(t)

	fixed := map[string]string{"serverID": "nope", "kid": "nope", "certType": "signing", "kmID": "nope", "attID": "nope", "docID": "nope",
		"certID": "nope", "email": "someone@example.com", "webhookID": "nope", "deliveryID": "1", "domain": "Payments", "role": "PISP",
		"authorityID": "nope", "name": "Business", "flagID": "nope", "policyID": "nope", "typeID": "nope", "version": "2.6.0", "contactID": "nope", "claimID": "nope"}
	var routes [][2]string
	chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if route != "/" {
			route = strings.TrimSuffix(route, "/")
		}
		if strings.HasPrefix(route, "/api/") && !outsideTheGate.MatchString(route) {
			routes = append(routes, [2]string{method, route})
		}
		return nil
	})
	sort.Slice(routes, func(i, j int) bool { return routes[i][1]+routes[i][0] < routes[j][1]+routes[j][0] })
	if len(routes) < 80 {
		t.Fatalf("only %d /api routes walked", len(routes))
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	for _, rt := range routes {
		method, route := rt[0], rt[1]
		want := appExpect(method, route)
		for _, which := range []struct {
			name         string
			orgID, appID string
		}{{"own", c.orgID, c.appID}, {"sibling", c.orgID, sibling}, {"other organisation", otherOrg, otherApp}} {
			if which.name != "own" && !strings.Contains(route, "{orgID}") {
				continue
			}
			if which.name == "sibling" && !strings.Contains(route, "{appID}") {
				continue
			}
			path := param.ReplaceAllStringFunc(route, func(m string) string {
				switch name := m[1 : len(m)-1]; name {
				case "orgID":
					return which.orgID
				case "appID":
					return which.appID
				default:
					v, ok := fixed[name]
					if !ok {
						t.Fatalf("no id for %s in %s", m, route)
					}
					return url.PathEscape(v)
				}
			})
			body := ""
			if method == "POST" || method == "PUT" {
				body = `{}`
			}
			resp, m := app.do(method, strings.TrimPrefix(path, "/api"), body)
			code, text := resp.StatusCode, mustMarshal(m)
			switch {
			case which.name == "other organisation":
				if code != 404 || !strings.Contains(text, "There is no organisation") {
					t.Errorf("%s %s (another organisation) with an application's token: %d %.200s, want 404 that reveals nothing", method, path, code, text)
				}
			case want == "forbidden", want == "own" && which.name == "sibling":
				if code != 403 {
					t.Errorf("%s %s (%s) with an application's token: %d %.200s, want 403", method, path, which.name, code, text)
				}
			default:
				// A 404 of the handler (a kid that does not exist) is allowed;
				// the gate's names the organisation.
				if code == 401 || code == 403 || (code == 404 && strings.Contains(text, "There is no organisation")) || code >= 500 {
					t.Errorf("%s %s with its own application's token: %d %.200s, want it allowed", method, path, code, text)
				}
			}
		}
	}
}
