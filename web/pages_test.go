package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/static"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

func TestDataAdministratorHasNoReferenceData(t *testing.T) {
	env := webtest.Start(t, nil)
	admin := webtest.Browser()
	webtest.SignIn(t, admin, env.URL, "admin@example.com").Body.Close()
	resp, err := admin.PostForm(env.URL+"/references/data-administrators", url.Values{"Email": {"dana@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if resp.Request.URL.Path != "/references/data-administrators" || !strings.Contains(doc.Find("[data-testid=flash]").Text(), "dana@example.com") {
		t.Fatalf("after invite: %s flash %q", resp.Request.URL, doc.Find("[data-testid=flash]").Text())
	}
	if got := doc.Find("[data-testid=data-administrator-row]").First().Text(); !strings.Contains(got, "dana@example.com") || !strings.Contains(got, "Invited") || !strings.Contains(got, "admin@example.com") {
		t.Fatalf("row %q", got)
	}

	dana := webtest.Browser()
	webtest.SignIn(t, dana, env.URL, "dana@example.com").Body.Close()
	_, doc = page(t, dana, env.URL+"/")
	if doc.Find("[data-testid=nav-organisations]").Length() != 1 || doc.Find("[data-testid=nav-reference-data]").Length() != 0 {
		t.Fatal("a Data Administrator sees Organisations and no Reference Data")
	}
	for _, u := range []string{"/references", "/references/super-users", "/references/data-administrators", "/references/data-administrators/new", "/references/contact-types", "/references/flags", "/references/signing-keys", "/dev/outbox"} {
		resp, _ := page(t, dana, env.URL+u)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d", u, resp.StatusCode)
		}
	}
	resp, err = dana.PostForm(env.URL+"/references/super-users", url.Values{"Email": {"x@example.com"}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("data administrator created a Super User: %d", resp.StatusCode)
	}
}

func TestFormsShowMessagesBesideFields(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/data-administrators", url.Values{"Email": {"nope"}})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", resp.StatusCode)
	}
	in := doc.Find("#da-email")
	if v, _ := in.Attr("value"); v != "nope" {
		t.Fatalf("input not kept: %q", v)
	}
	if msg := in.NextFiltered(".tf-field-error").Text(); !strings.Contains(msg, "valid e-mail") {
		t.Fatalf("no message beside the field: %q", msg)
	}
	if doc.Find(`label[for=da-email]`).Length() != 1 {
		t.Fatal("input without a label")
	}
	resp, err = c.PostForm(env.URL+"/references/super-users", url.Values{"Email": {"admin@example.com"}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ = goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || !strings.Contains(doc.Find("#su-email").NextFiltered(".tf-field-error").Text(), "already exists") {
		t.Fatalf("duplicate: %d", resp.StatusCode)
	}
	// Deactivating the last Active Super User from the page says why it did not happen.
	resp, err = c.PostForm(env.URL+"/references/super-users/admin@example.com", url.Values{"Status": {"Inactive"}})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ = goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if !strings.Contains(doc.Find("[data-testid=flash]").Text(), "last Active Super User") {
		t.Fatalf("flash %q", doc.Find("[data-testid=flash]").Text())
	}
}

func TestSuperUsersPageListsStatus(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.PostForm(env.URL+"/references/super-users", url.Values{"Email": {"ops@example.com"}, "Status": {"Inactive"}})
	_, doc := page(t, c, env.URL+"/references/super-users")
	rows := doc.Find("[data-testid=super-user-row]")
	if rows.Length() != 2 || !strings.Contains(rows.Eq(1).Text(), "ops@example.com") || rows.Eq(1).Find("[data-testid=status]").Text() != "Inactive" {
		t.Fatalf("rows: %q", rows.Text())
	}
}

func TestSecurityHeadersAndCrossOriginProtection(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, _ := page(t, c, env.URL+"/references/super-users")
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"frame-ancestors 'none'", "script-src 'self'", "default-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") {
		t.Error("CSP allows inline script")
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("no nosniff")
	}
	if resp.Header.Get("Strict-Transport-Security") != "" {
		t.Error("HSTS on http")
	}
	// A cross-site form post is refused and changes nothing.
	req, _ := http.NewRequest("POST", env.URL+"/references/super-users", strings.NewReader("Email=x%40example.com&Status=Active"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	r, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site post: %d", r.StatusCode)
	}
	if _, err := env.DB.GetSuperUser(req.Context(), "x@example.com"); err == nil {
		t.Fatal("cross-site post created a Super User")
	}
	// Behind an HTTPS base URL: HSTS.
	envs := webtest.Start(t, func(c *web.Config) { c.BaseURL, c.DevIdPAllowRemote = "https://console.example", true })
	r, err = http.Get(envs.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.Header.Get("Strict-Transport-Security") == "" {
		t.Fatal("no HSTS behind an https base URL")
	}
}

func TestStaticAssetsAreFingerprinted(t *testing.T) {
	env := webtest.Start(t, nil)
	resp, err := http.Get(env.URL + static.Path("vendor/htmx-2.0.11.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") || !strings.Contains(string(b), "htmx") {
		t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	resp, _ = http.Get(env.URL + "/static/000000000000/app.css")
	resp.Body.Close()
	if resp.Header.Get("Cache-Control") == "public, max-age=31536000, immutable" {
		t.Fatal("a stale fingerprint must not be cached forever")
	}
	resp, _ = http.Get(env.URL + "/static/x/../../go.mod")
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("path escape: %d", resp.StatusCode)
	}
}

func TestHealthAndReadiness(t *testing.T) {
	env := webtest.Start(t, nil)
	for _, p := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(env.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", p, resp.StatusCode)
		}
	}
}

func TestErrorsNegotiateHTMLAndJSON(t *testing.T) {
	env := webtest.Start(t, nil)
	req, _ := http.NewRequest("GET", env.URL+"/no/such/page", nil)
	req.Header.Set("Accept", "text/html")
	r, _ := http.DefaultClient.Do(req)
	r.Body.Close()
	if r.StatusCode != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("html 404: %d %s", r.StatusCode, r.Header.Get("Content-Type"))
	}
	req.Header.Set("Accept", "application/json")
	r, _ = http.DefaultClient.Do(req)
	r.Body.Close()
	if r.StatusCode != 404 || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("json 404: %d %s", r.StatusCode, r.Header.Get("Content-Type"))
	}
}

// TestNotFoundPageKeepsTheConsole: a page that does not exist, asked by a
// signed-in browser, is a 404 inside the console (its menu and Sign out),
// not a page with only the brand; signed out, the same 404 offers sign-in.
func TestNotFoundPageKeepsTheConsole(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	page := func(c *http.Client) string {
		req, _ := http.NewRequest("GET", env.URL+"/no/such/page", nil)
		req.Header.Set("Accept", "text/html")
		r, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		if r.StatusCode != 404 {
			t.Fatalf("%d", r.StatusCode)
		}
		return string(b)
	}
	if b := page(c); !strings.Contains(b, `action="/logout"`) || !strings.Contains(b, "There is nothing at /no/such/page.") {
		t.Fatalf("signed in, the 404 page has no console menu:\n%s", b)
	}
	if b := page(webtest.Browser()); strings.Contains(b, `action="/logout"`) {
		t.Fatalf("signed out, the 404 page offers Sign out:\n%s", b)
	}
}

// TestRateLimitOnTokenEndpoint: past the limit every token endpoint
// answers 429 with Retry-After and an RFC 6749 §5.2 body (error
// temporarily_unavailable), as its OAuth clients read errors.
func TestRateLimitOnTokenEndpoint(t *testing.T) {
	for _, path := range []string{"/dev/idp/token", "/dev/idp/revoke", "/oauth/token"} {
		t.Run(path, func(t *testing.T) {
			env := webtest.Start(t, func(c *webConfig) { c.RateLimit = 3 })
			codes := []int{}
			for i := 0; i < 5; i++ {
				r, err := http.PostForm(env.URL+path, url.Values{"grant_type": {"authorization_code"}, "token": {"x"}, "client_id": {"trustframe-cli"}})
				if err != nil {
					t.Fatal(err)
				}
				var body map[string]any
				json.NewDecoder(r.Body).Decode(&body)
				r.Body.Close()
				codes = append(codes, r.StatusCode)
				if r.StatusCode == 429 && (body["error"] != "temporarily_unavailable" || body["error_description"] == nil || r.Header.Get("Retry-After") == "" ||
					r.Header.Get("Cache-Control") != "no-store" ||
					!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")) {
					t.Fatalf("429 %s %v, Retry-After %q: want an OAuth error body", r.Header.Get("Content-Type"), body, r.Header.Get("Retry-After"))
				}
			}
			if codes[2] == 429 || codes[3] != 429 || codes[4] != 429 {
				t.Fatalf("codes %v", codes)
			}
		})
	}
}

type webConfig = web.Config

func TestEmailsWithURLCharactersStayAddressable(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/super-users", url.Values{"Email": {"ops#1@example.com"}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	action := ""
	doc.Find("[data-testid=super-user-row] form").Each(func(_ int, s *goquery.Selection) {
		if a, _ := s.Attr("action"); strings.Contains(a, "ops") {
			action = a
		}
	})
	if action != "/references/super-users/ops%231@example.com" {
		t.Fatalf("form action %q", action)
	}
	resp, err = c.PostForm(env.URL+action, url.Values{"Status": {"Inactive"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if u, err := env.DB.GetSuperUser(context.Background(), "ops#1@example.com"); u.Status != "Inactive" {
		all, _ := env.DB.ListSuperUsers(context.Background())
		t.Fatalf("status %q %v (%d after POST to %s; users %v)", u.Status, err, resp.StatusCode, action, all)
	}
}

// Issue 14 point 13: every endpoint of the development identity provider
// that does work per request is rate-limited, revocation and the sign-in
// page included.
func TestRateLimitOnDevIdPRevokeAndAuthorizePage(t *testing.T) {
	for _, ep := range []struct {
		name string
		send func(base string) (*http.Response, error)
	}{
		{"POST /dev/idp/revoke", func(base string) (*http.Response, error) {
			return http.PostForm(base+"/dev/idp/revoke", url.Values{"token": {"x"}, "client_id": {"trustframe-cli"}})
		}},
		{"GET /dev/idp/authorize", func(base string) (*http.Response, error) {
			return http.Get(base + "/dev/idp/authorize?client_id=trustframe-cli&response_type=code")
		}},
	} {
		t.Run(ep.name, func(t *testing.T) {
			env := webtest.Start(t, func(c *webConfig) { c.RateLimit = 3 })
			codes := []int{}
			for i := 0; i < 5; i++ {
				r, err := ep.send(env.URL)
				if err != nil {
					t.Fatal(err)
				}
				r.Body.Close()
				codes = append(codes, r.StatusCode)
			}
			if codes[2] == 429 || codes[3] != 429 || codes[4] != 429 {
				t.Fatalf("codes %v", codes)
			}
		})
	}
}

// TestSecurityHeaderSets: a page carries the browser's whole set; an API
// answer carries the set that matters to JSON (a CSP that loads nothing
// and cannot be framed, nosniff) and not the page-only headers; with an
// https base URL both carry HSTS.
func TestSecurityHeaderSets(t *testing.T) {
	for _, base := range []string{"", "https://127.0.0.1:8443"} {
		env := webtest.Start(t, func(c *web.Config) {
			if base != "" {
				c.BaseURL = base
			}
		})
		get := func(path string, hdr ...string) http.Header {
			req := httptest.NewRequest("GET", env.URL+path, nil)
			for i := 0; i+1 < len(hdr); i += 2 {
				req.Header.Set(hdr[i], hdr[i+1])
			}
			rec := httptest.NewRecorder()
			env.Server.ServeHTTP(rec, req)
			return rec.Header()
		}
		pageHdr := get("/login")
		apiHdr := get("/api/users/super") // 401: headers on refusals too
		for name, want := range map[string]string{"X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
			"Cross-Origin-Opener-Policy": "same-origin", "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
			"X-Content-Type-Options": "nosniff"} {
			if got := pageHdr.Get(name); got != want {
				t.Errorf("page %s = %q, want %q", name, got, want)
			}
		}
		if csp := pageHdr.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("page CSP %q", csp)
		}
		if got := apiHdr.Get("Content-Security-Policy"); got != "default-src 'none'; frame-ancestors 'none'" {
			t.Errorf("API CSP %q", got)
		}
		if apiHdr.Get("X-Content-Type-Options") != "nosniff" || apiHdr.Get("X-Frame-Options") != "" || apiHdr.Get("Permissions-Policy") != "" {
			t.Errorf("API headers %v", apiHdr)
		}
		for _, h := range []http.Header{pageHdr, apiHdr} {
			if hsts := h.Get("Strict-Transport-Security"); (base != "") != (hsts != "") {
				t.Errorf("base %q: HSTS %q", base, hsts)
			}
		}
		// Each answer has its own header values: a handler that changes
		// one in place does not change the next answer's.
		a := get("/login")
		a["X-Content-Type-Options"][0] = "other"
		a["Content-Security-Policy"][0] = "other"
		if b := get("/login"); b.Get("X-Content-Type-Options") != "nosniff" || b.Get("Content-Security-Policy") == "other" {
			t.Errorf("one answer's header change reached the next: %v", b)
		}
	}
}

// TestSearchLandmarksHaveNames: a page with a filter form has two search
// landmarks (the header's quick find and the filter); each needs its own
// name, or a screen reader's landmark list shows two "search" alike (axe
// landmark-unique).
func TestSearchLandmarksHaveNames(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, p := range []string{"/organisations", "/audit"} {
		resp, err := c.Get(env.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		names := map[string]bool{}
		doc.Find(`[role=search], search`).Each(func(_ int, s *goquery.Selection) {
			name, _ := s.Attr("aria-label")
			if id, ok := s.Attr("aria-labelledby"); ok {
				name = doc.Find("#" + id).Text()
			}
			name = strings.TrimSpace(name)
			if name == "" {
				t.Errorf("%s: a search landmark without a name: %s", p, goquery.NodeName(s)+"."+s.AttrOr("class", "")+" "+s.AttrOr("data-testid", ""))
			} else if names[name] {
				t.Errorf("%s: two search landmarks named %q", p, name)
			}
			names[name] = true
		})
		if len(names) == 0 {
			t.Errorf("%s: no search landmark", p)
		}
	}
}

// TestHomeNamesDomainsAndRoles: a Super User's home page names Domains and
// Roles among Reference Data (what a new directory needs set up before its
// organisations can hold roles); the card listed administrators, types,
// flags, identity providers and signing keys only.
func TestHomeNamesDomainsAndRoles(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	card := doc.Find(`main article:has(a[href="/references"])`).Text()
	if !strings.Contains(card, "domains and roles") {
		t.Errorf("the Reference Data card reads %q", strings.Join(strings.Fields(card), " "))
	}
}
