package web_test

// The access matrix of an Organisation Administrator (docs/design.md §19):
// every route of the router, read from the router, against resources of
// their organisation A and of another organisation B.

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// outsideTheGate are the routes that never see a signed-in principal: they
// are public, or the sign-in itself. An Organisation Administrator gets
// what anyone gets there.
var outsideTheGate = regexp.MustCompile(`^(/oauth/token|/api/participants|/api/releases|/api/keystore/|/keystore/|/federation/|/\.well-known/|/pki/|/static/|/dev/idp/|/healthz|/readyz|/login|/auth/callback|/logout)`)

// orgAdminExpect is what an Organisation Administrator of A must get on a
// route: the gate's rule, spelled out again here so that a changed rule
// is a deliberate change of two files.
func orgAdminExpect(method, route string) string {
	under := regexp.MustCompile(`^(/api)?/organisations/\{orgID\}(/.*)?$`).FindStringSubmatch(route)
	if under == nil {
		switch method + " " + route {
		case "GET /", "GET /api-reference", "GET /organisations", "GET /api/organisations":
			return "allowed"
		case "GET /audit", "GET /audit/export.csv", "GET /api/audit", "GET /api/audit/export.csv":
			return "audit"
		}
		return "forbidden"
	}
	rest := under[2]
	write := method != "GET"
	switch {
	case rest == "" || rest == "/edit" || rest == "/status" || strings.HasSuffix(rest, "/reactivate"):
		if rest == "" && !write {
			return "allowed"
		}
		return "forbidden"
	case strings.HasPrefix(rest, "/documents"), strings.Contains(rest, "/certifications"), strings.HasPrefix(rest, "/authority-claims"):
		if write || strings.HasSuffix(rest, "/new") || strings.HasSuffix(rest, "/edit") {
			return "forbidden"
		}
		return "allowed"
	}
	return "allowed"
}

func TestOrgAdminAccessMatrixOverEveryRoute(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	type orgIDs map[string]string
	make1 := func(name string) orgIDs {
		oid := su.must(201, "POST", "/organisations", org(name))["OrganisationId"].(string)
		aid := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App of `+name+`"}`)["SoftwareStatementId"].(string)
		cid := grant(t, su, oid, auth, "Payments", "PISP")
		contact := su.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Business","LastName":"Ops","EmailAddress":"ops@`+strings.ToLower(name)+`.example"}`)["ContactId"].(string)
		return orgIDs{"orgID": oid, "appID": aid, "claimID": cid, "contactID": contact}
	}
	a, b := make1("Alpha"), make1("Beta")
	ctx := context.Background()
	if _, _, err := env.DB.InviteOrganisationAdministrator(ctx, directory.Actor{Actor: "admin@example.com"}, a["orgID"], "olga@alpha.example",
		directory.Invitation{To: "olga@alpha.example", Subject: "s", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	olga := newAPI(t, env, "olga@alpha.example")
	browser := webtest.Browser()
	if resp := webtest.SignIn(t, browser, env.URL, "olga@alpha.example"); resp.StatusCode != 200 {
		t.Fatalf("sign-in as an Organisation Administrator: %d", resp.StatusCode)
	}
	before := snapshot(t, su, b["orgID"])

	fixed := map[string]string{"serverID": "nope", "kid": "nope", "certType": "qseal", "kmID": "nope", "attID": "nope", "docID": "nope",
		"certID": "nope", "email": "someone@example.com", "webhookID": "nope", "deliveryID": "1", "domain": "Payments", "role": "PISP",
		"authorityID": auth, "name": "Business", "flagID": "nope", "policyID": "nope", "typeID": "nope", "version": "2.6.0", "request": "MAMCAQA"}
	var routes [][2]string
	chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if route != "/" {
			route = strings.TrimSuffix(route, "/")
		}
		if !outsideTheGate.MatchString(route) {
			routes = append(routes, [2]string{method, route})
		}
		return nil
	})
	sort.Slice(routes, func(i, j int) bool { return routes[i][1]+routes[i][0] < routes[j][1]+routes[j][0] })
	if len(routes) < 200 {
		t.Fatalf("only %d routes walked", len(routes))
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	// send makes one request as Olga: by token on /api, by her session on
	// the console's routes.
	send := func(method, path string) (int, string) {
		if strings.HasPrefix(path, "/api/") || path == "/api" {
			var body string
			if method == "POST" || method == "PUT" {
				body = `{}`
			}
			resp, m := olga.do(method, strings.TrimPrefix(path, "/api"), body)
			return resp.StatusCode, mustMarshal(m)
		}
		var req *http.Request
		if method == "POST" {
			req, _ = http.NewRequest(method, env.URL+path, strings.NewReader(url.Values{"x": {"1"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			req, _ = http.NewRequest(method, env.URL+path, nil)
		}
		req.Header.Set("Accept", "text/html")
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(text)
	}
	gate404 := "There is no organisation"
	for _, rt := range routes {
		method, route := rt[0], rt[1]
		for _, which := range []struct {
			name string
			ids  orgIDs
		}{{"A", a}, {"B", b}} {
			path := param.ReplaceAllStringFunc(route, func(m string) string {
				name := m[1 : len(m)-1]
				if v, ok := which.ids[name]; ok {
					return v
				}
				if v, ok := fixed[name]; ok {
					return url.PathEscape(v)
				}
				t.Fatalf("no id for %s in %s", m, route)
				return ""
			})
			want := orgAdminExpect(method, route)
			under := strings.Contains(route, "{orgID}")
			if !under && which.name == "B" {
				if want != "audit" {
					continue // nothing of B's in the path
				}
			}
			if want == "audit" {
				path += "?OrganisationId=" + which.ids["orgID"]
			}
			code, body := send(method, path)
			switch {
			case under && which.name == "B", want == "audit" && which.name == "B":
				if code != 404 || !strings.Contains(body, gate404) {
					t.Errorf("%s %s (organisation B) as Organisation Administrator of A: %d %.200s, want 404 that reveals nothing", method, path, code, body)
				}
			case want == "forbidden":
				if code != 403 {
					t.Errorf("%s %s as Organisation Administrator of A: %d %.200s, want 403", method, path, code, body)
				}
			default:
				if code == 401 || code == 403 || (code == 404 && strings.Contains(body, gate404)) || code >= 500 {
					t.Errorf("%s %s as Organisation Administrator of A: %d %.200s, want it allowed", method, path, code, body)
				}
			}
		}
	}
	// The unfiltered audit log is not theirs.
	if code, body := send("GET", "/api/audit"); code != 403 {
		t.Errorf("GET /api/audit without OrganisationId: %d %s, want 403", code, body)
	}
	// (What Olga did on A is in the audit log: its size is left out.)
	_, before, _ = strings.Cut(before, "\n")
	after := snapshot(t, su, b["orgID"])
	if _, after, _ = strings.Cut(after, "\n"); after != before {
		t.Fatalf("an Organisation Administrator of A changed something of B's or the directory's:\nbefore %s\nafter  %s", before, after)
	}
	// The organisation list shows theirs only.
	list := olga.must(200, "GET", "/organisations", "")
	if items, _ := list["content"].([]any); len(items) != 1 || items[0].(map[string]any)["OrganisationId"] != a["orgID"] {
		t.Fatalf("the organisation list of an Organisation Administrator of A: %v", list)
	}
}

// TestOrgAdminEveryRouteHasARule fails when a route under an organisation
// has no rule for Organisation Administrators: a new route is then a
// decision, not a default.
func TestOrgAdminEveryRouteHasARule(t *testing.T) {
	env := webtest.Start(t, nil)
	chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.Contains(route, "/organisations/{orgID}") && !strings.HasPrefix(route, "/keystore") {
			if !web.OrgRuleListed(method, route) {
				t.Errorf("%s %s has no rule for Organisation Administrators (web/orgaccess.go orgAdminOwnRoutes)", method, route)
			}
		}
		return nil
	})
}
