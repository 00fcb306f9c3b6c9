package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/static"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web/webtest"
)

// sideEffectingGETs are the GET routes that write (an audit record, a
// signed SSA, a session): HEAD is refused there with 405 and Allow: GET
// (docs/decisions.md, "HEAD").
var sideEffectingGETs = []string{
	"/api/organisations/export.csv",
	"/federation/trust-mark", // records the mark it issues
	"/api/organisations/{orgID}/softwarestatements/{appID}/assertion",
	"/api/audit/export.csv",
	"/organisations/export.csv",
	"/organisations/{orgID}/softwarestatements/{appID}/assertion",
	"/audit/export.csv",
	"/login",
	"/auth/callback",
}

// problemType is the media type of a refusal at path: a problem under
// /api, the federation's JSON error under /federation, the console's
// error page elsewhere.
func problemType(path string) string {
	if strings.HasPrefix(path, "/api/") {
		return "application/problem+json"
	}
	if strings.HasPrefix(path, "/federation/") {
		return "application/json"
	}
	return "text/html; charset=utf-8"
}

// headClient sends one request and never follows a redirect.
var headClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// sessionCookie signs email in and returns its session cookie.
func sessionCookie(t *testing.T, env *webtest.Env, email string) string {
	t.Helper()
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, email).Body.Close()
	for _, ck := range c.Jar.Cookies(mustURL(env.URL)) {
		if strings.Contains(ck.Name, "session") {
			return ck.Name + "=" + ck.Value
		}
	}
	t.Fatal("no session cookie")
	return ""
}

// TestHeadOnEveryGETRoute walks the real router: every GET route answers
// HEAD (never 405), except the side-effecting ones, which answer 405 with
// Allow: GET and a problem.
func TestHeadOnEveryGETRoute(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, a)
	cookie := sessionCookie(t, env, "admin@example.com")
	ids := map[string]string{"orgID": oid, "appID": aid, "email": "admin@example.com", "name": "Business", "flagID": "nope", "kid": "nope",
		"certType": "qseal", "kmID": "nope", "attID": "nope", "serverID": "nope", "contactID": "nope", "docID": "nope", "certID": "nope", "policyID": "nope",
		"domain": "Payments", "role": "PISP", "authorityID": "nope", "claimID": "nope", "webhookID": "nope", "deliveryID": "1", "version": "2.6.0", "typeID": "nope", "request": "MAMCAQA"}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	seen, refused := 0, map[string]bool{}
	chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method != http.MethodGet && method != "*" {
			return nil
		}
		p := param.ReplaceAllStringFunc(route, func(m string) string {
			v, ok := ids[strings.Trim(m, "{}")]
			if !ok {
				t.Fatalf("no id for %s in %s", m, route)
			}
			return v
		})
		p = strings.Replace(p, "/static/*", static.Path("app.css"), 1)
		seen++
		if method == http.MethodGet {
			// A 405 to a method nothing routes offers HEAD beside GET,
			// except where HEAD is refused.
			resp, _ := send(t, http.MethodPatch, env.URL+p, "Authorization", "Bearer "+a.token, "Cookie", cookie)
			allow := strings.Split(strings.ReplaceAll(resp.Header.Get("Allow"), " ", ""), ",")
			if resp.StatusCode != http.StatusMethodNotAllowed || !slices.Contains(allow, "GET") ||
				slices.Contains(allow, "HEAD") == slices.Contains(sideEffectingGETs, route) {
				t.Errorf("PATCH %s: %d Allow %q", p, resp.StatusCode, resp.Header.Get("Allow"))
			}
		}
		resp, body := send(t, http.MethodHead, env.URL+p, "Authorization", "Bearer "+a.token, "Cookie", cookie)
		if body != "" {
			t.Errorf("HEAD %s: a body of %d bytes", p, len(body))
		}
		if slices.Contains(sideEffectingGETs, route) {
			refused[route] = true
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" || resp.Header.Get("Content-Type") != problemType(p) {
				t.Errorf("HEAD %s (side-effecting): %d Allow %q %s, want 405 Allow GET, a problem", p, resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("Content-Type"))
			}
			return nil
		}
		if resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode >= 500 {
			t.Errorf("HEAD %s: %d", p, resp.StatusCode)
		}
		return nil
	})
	if seen < 100 {
		t.Fatalf("only %d GET routes walked", seen)
	}
	for _, r := range sideEffectingGETs {
		if !refused[r] {
			t.Errorf("side-effecting %s is not a GET route of the router", r)
		}
	}
}

// TestHeadAnswersAsGet: on a representative set, HEAD has GET's status and
// headers and no body; If-None-Match gives 304 as it does for GET.
func TestHeadAnswersAsGet(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	cookie := sessionCookie(t, env, "admin@example.com")
	bearer := "Bearer " + a.token
	_, challenge := webtest.PKCE()
	for _, tc := range []struct {
		name, path, auth, cookie string
		status                   int
		notModified              bool   // If-None-Match with its ETag gives 304
		hx                       string // HX-Request (htmx)
	}{
		{"participants", "/api/participants", "", "", 200, true, ""},
		{"organisation with ETag", "/api/organisations/" + oid, bearer, "", 200, true, ""},
		{"organisation without a token", "/api/organisations/" + oid, "", "", 401, false, ""},
		{"organisation list", "/api/organisations", bearer, "", 200, false, ""},
		{"console page signed in", "/organisations/" + oid, "", cookie, 200, false, ""},
		{"console page signed out", "/organisations/" + oid, "", "", 302, false, ""},
		{"console page signed out, htmx", "/organisations/" + oid, "", "", 401, false, "true"},
		{"console page not found, htmx", "/organisations/00000000-0000-4000-8000-000000000000", "", cookie, 404, false, "true"},
		{"home page", "/", "", cookie, 200, false, ""},
		{"healthz", "/healthz", "", "", 200, false, ""},
		{"readyz", "/readyz", "", "", 200, false, ""},
		{"static file", static.Path("app.css"), "", "", 200, false, ""},
		{"entity configuration", "/.well-known/openid-federation", "", "", 200, false, ""},
		{"federation list", "/federation/list", "", "", 200, false, ""},
		{"SSA keyset", "/keystore/ssa.jwks", "", "", 200, false, ""},
		{"protected resource metadata", "/.well-known/oauth-protected-resource", "", "", 200, false, ""},
		{"development identity provider discovery", "/dev/idp/.well-known/openid-configuration", "", "", 200, false, ""},
		{"development sign-in form", "/dev/idp/authorize?" + url.Values{"response_type": {"code"}, "client_id": {"trustframe-cli"},
			"redirect_uri": {"http://127.0.0.1:9/cb"}, "scope": {"openid email"}, "state": {"state-1234567890"}, "code_challenge": {challenge},
			"code_challenge_method": {"S256"}, "login_hint": {"admin@example.com"}}.Encode(), "", "", 200, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Accept-Encoding as a header of the test's own: Go's client
			// would otherwise ask GET (not HEAD) for gzip and unpack it.
			get, body := send(t, http.MethodGet, env.URL+tc.path, "Authorization", tc.auth, "Cookie", tc.cookie, "Accept-Encoding", "identity", "HX-Request", tc.hx)
			if get.StatusCode != tc.status || body == "" && tc.status != 302 && tc.hx == "" {
				t.Fatalf("GET %s: %d (%d bytes)", tc.path, get.StatusCode, len(body))
			}
			head, hbody := send(t, http.MethodHead, env.URL+tc.path, "Authorization", tc.auth, "Cookie", tc.cookie, "Accept-Encoding", "identity", "HX-Request", tc.hx)
			if head.StatusCode != get.StatusCode || hbody != "" {
				t.Fatalf("HEAD %s: %d with %d bytes, want %d and no body", tc.path, head.StatusCode, len(hbody), get.StatusCode)
			}
			sameHeaders(t, get.Header, head.Header)
			if et := get.Header.Get("ETag"); et != "" {
				get, _ := send(t, http.MethodGet, env.URL+tc.path, "Authorization", tc.auth, "Cookie", tc.cookie, "If-None-Match", et, "Accept-Encoding", "identity", "HX-Request", tc.hx)
				head, _ := send(t, http.MethodHead, env.URL+tc.path, "Authorization", tc.auth, "Cookie", tc.cookie, "If-None-Match", et, "Accept-Encoding", "identity", "HX-Request", tc.hx)
				if head.StatusCode != get.StatusCode || tc.notModified && head.StatusCode != http.StatusNotModified {
					t.Fatalf("If-None-Match: GET %d, HEAD %d (304 wanted: %v)", get.StatusCode, head.StatusCode, tc.notModified)
				}
				sameHeaders(t, get.Header, head.Header)
			}
		})
	}

	// HEAD is counted under its own method label and the route's pattern.
	rec := httptest.NewRecorder()
	env.Server.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if want := `trustframe_http_requests_total{code="200",method="HEAD",route="/api/organisations/{orgID}"} 1`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("metrics lack %s", want)
	}
}

func sameHeaders(t *testing.T, get, head http.Header) {
	t.Helper()
	for _, h := range []http.Header{get, head} {
		for _, k := range []string{"Date", "X-Request-Id"} {
			h.Del(k)
		}
	}
	if head.Get("Content-Length") == "" && (get.Get("Location") != "" || get.Get("Content-Length") == "0") {
		// net/http's framing: its redirect writes a courtesy body for GET
		// only, and it counts an empty body for GET, not for HEAD.
		get.Del("Content-Length")
	}
	for k := range get {
		if !slices.Equal(get.Values(k), head.Values(k)) {
			t.Errorf("%s: GET %q, HEAD %q", k, get.Values(k), head.Values(k))
		}
	}
	for k := range head {
		if _, ok := get[k]; !ok {
			t.Errorf("%s: HEAD %q, GET has none", k, head.Values(k))
		}
	}
}

// TestHeadOnSideEffectingGETWritesNothing: HEAD on a GET that audits or
// signs is 405 with Allow: GET and writes no audit record; GET on the same
// URL does write one (the URLs are real).
func TestHeadOnSideEffectingGETWritesNothing(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, a)
	cookie := sessionCookie(t, env, "admin@example.com")
	count := func() int {
		_, n, err := env.DB.ListAudit(context.Background(), store.AuditFilter{Size: 1})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, p := range []string{
		"/api/organisations/export.csv",
		"/api/organisations/" + oid + "/softwarestatements/" + aid + "/assertion",
		"/api/audit/export.csv",
		"/organisations/export.csv",
		"/organisations/" + oid + "/softwarestatements/" + aid + "/assertion",
		"/audit/export.csv",
	} {
		before := count()
		resp, _ := send(t, http.MethodHead, env.URL+p, "Authorization", "Bearer "+a.token, "Cookie", cookie)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" || resp.Header.Get("Content-Type") != problemType(p) {
			t.Errorf("HEAD %s: %d Allow %q %s, want 405 Allow GET, a problem", p, resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("Content-Type"))
		}
		if n := count(); n != before {
			t.Errorf("HEAD %s wrote %d audit records", p, n-before)
		}
		// HEAD checks access as GET does: without credentials, GET's refusal.
		get, _ := send(t, http.MethodGet, env.URL+p)
		head, _ := send(t, http.MethodHead, env.URL+p)
		if head.StatusCode != get.StatusCode || head.Header.Get("WWW-Authenticate") != get.Header.Get("WWW-Authenticate") || head.Header.Get("Location") != get.Header.Get("Location") {
			t.Errorf("HEAD %s without credentials: %d %v, GET %d %v", p, head.StatusCode, head.Header, get.StatusCode, get.Header)
		}
		if resp, _ := send(t, http.MethodGet, env.URL+p, "Authorization", "Bearer "+a.token, "Cookie", cookie); resp.StatusCode != 200 || count() != before+1 {
			t.Errorf("GET %s: %d, %d audit records, want 200 and 1", p, resp.StatusCode, count()-before)
		}
	}
	// A 405 to another method there does not offer HEAD.
	resp, _ := send(t, http.MethodPost, env.URL+"/api/audit/export.csv", "Authorization", "Bearer "+a.token)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" {
		t.Errorf("POST export: %d Allow %q, want 405 Allow GET", resp.StatusCode, resp.Header.Get("Allow"))
	}
	resp, _ = send(t, http.MethodPost, env.URL+"/api/organisations/"+oid, "Authorization", "Bearer "+a.token)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD, PUT" {
		t.Errorf("POST organisation: %d Allow %q, want 405 Allow GET, HEAD, PUT", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestHeadWritesNoSession: a HEAD on a page does not take the flash message
// that the next GET shows (the session is not saved after a HEAD).
func TestHeadWritesNoSession(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, _ := http.NewRequest(http.MethodPost, env.URL+"/logout", nil)
	req.Header.Set("Origin", env.URL)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	resp, err = c.Head(env.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("HEAD /: %d", resp.StatusCode)
	}
	resp, err = c.Get(env.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "You signed out") {
		t.Fatal("the flash message was taken by the HEAD before it")
	}
}
