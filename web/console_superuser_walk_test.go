package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestConsoleSuperUserRoutesRefuseDataAdministrators walks every console
// route of Reference Data (and the development outbox), every method, as
// a signed-in Data Administrator: each is 403 and changes nothing
// (docs/design.md §3). A route added later is walked too.
func TestConsoleSuperUserRoutesRefuseDataAdministrators(t *testing.T) {
	env := webtest.Start(t, nil)
	admin := webtest.Browser()
	webtest.SignIn(t, admin, env.URL, "admin@example.com").Body.Close()
	resp, err := admin.PostForm(env.URL+"/references/data-administrators", url.Values{"Email": {"dana@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	dana := webtest.Browser()
	webtest.SignIn(t, dana, env.URL, "dana@example.com").Body.Close()
	dana.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	param := regexp.MustCompile(`\{[^}]+\}`)
	walked := 0
	err = chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if !strings.HasPrefix(route, "/references") && route != "/dev/outbox" {
			return nil
		}
		u := env.URL + strings.TrimSuffix(param.ReplaceAllString(route, "x"), "/")
		req, _ := http.NewRequest(method, u, strings.NewReader(url.Values{"Email": {"mallory@example.com"}, "Status": {"Active"}, "Name": {"x"}}.Encode()))
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := dana.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s as a Data Administrator: %d", method, route, resp.StatusCode)
		}
		walked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("walked %d routes", walked)
	if walked < 50 {
		t.Fatalf("walked only %d routes", walked)
	}
	a := newAPI(t, env, "admin@example.com")
	if r, _ := a.do("GET", "/users/super/mallory@example.com", ""); r.StatusCode != http.StatusNotFound {
		t.Fatalf("a Data Administrator made a Super User: %d", r.StatusCode)
	}
}
