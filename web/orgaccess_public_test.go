package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestOrgAdminPublicEndpointsAnswerAsToAnyone: the public endpoints stay
// public for an Organisation Administrator (docs/design.md §3, §19). Every
// GET route the access matrix leaves out as outside the gate is asked
// without credentials, with Olga's session and with her access token, for
// her organisation's ids and for made-up ones; the three answers must have
// the same status and content type.
func TestOrgAdminPublicEndpointsAnswerAsToAnyone(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, su)
	if _, _, err := env.DB.InviteOrganisationAdministrator(context.Background(), directory.Actor{Actor: "admin@example.com"}, oid, "olga@alpha.example",
		directory.Invitation{To: "olga@alpha.example", Subject: "s", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	olga := newAPI(t, env, "olga@alpha.example")
	session := webtest.Browser()
	if resp := webtest.SignIn(t, session, env.URL, "olga@alpha.example"); resp.StatusCode != 200 {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	// Routes that act on the asker or begin a sign-in are not public reads.
	notReads := regexp.MustCompile(`^(/dev/idp/|/login|/auth/callback|/logout)`)
	param := regexp.MustCompile(`\{([^}]+)\}`)
	var paths []string
	seen := map[string]bool{}
	err := chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method != "GET" || !outsideTheGate.MatchString(route) || notReads.MatchString(route) {
			return nil
		}
		for _, ids := range []map[string]string{{"orgID": oid, "appID": aid}, {}} {
			p := param.ReplaceAllStringFunc(route, func(m string) string {
				if v, ok := ids[m[1:len(m)-1]]; ok {
					return v
				}
				return url.PathEscape("nope")
			})
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 20 {
		t.Fatalf("only %d public paths walked", len(paths))
	}
	ask := func(c *http.Client, path, token string) (int, string) {
		req, _ := http.NewRequest("GET", env.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
		return resp.StatusCode, ct
	}
	for _, p := range paths {
		code, ct := ask(http.DefaultClient, p, "")
		if code >= 500 {
			t.Errorf("GET %s without credentials: %d", p, code)
		}
		for who, c := range map[string]*http.Client{"session": session, "token": http.DefaultClient} {
			token := ""
			if who == "token" {
				token = olga.token
			}
			if gotCode, gotCT := ask(c, p, token); gotCode != code || gotCT != ct {
				t.Errorf("GET %s as Organisation Administrator (%s): %d %s, anyone gets %d %s", p, who, gotCode, gotCT, code, ct)
			}
		}
	}
}
