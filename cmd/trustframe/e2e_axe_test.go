package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-chi/chi/v5"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndEveryPageIsAccessible opens every page of the console (every
// browser GET route, with real ids) in Chromium as a Super User and runs
// axe-core on it: a new page cannot ship with a serious WCAG 2 A/AA
// violation, and none may fail to render.
func TestEndToEndEveryPageIsAccessible(t *testing.T) {
	env := webtest.Start(t, nil)
	pages := everyConsolePage(t, env)
	ctx := newBrowserFor(t, 6*time.Minute)
	signIn(t, ctx, env.URL, "admin@example.com")
	// A desktop and a phone (390×844): every page fits both, and axe-core
	// is clean at both widths.
	for _, vp := range []struct{ w, h int64 }{{1366, 900}, {390, 844}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.w, vp.h)); err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			checkPage(t, ctx, env.URL, p, vp.w)
		}
	}
	t.Logf("%d pages checked", len(pages))
}

// everyConsolePage fills env with one of each kind of record (as
// admin@example.com) and returns every browser GET route that shows a
// page, with real ids.
func everyConsolePage(t *testing.T, env *webtest.Env) []string {
	t.Helper()
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	call := func(method, path, ctype, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, env.URL+"/api"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	var disc *httptest.Server
	disc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": disc.URL, "jwks_uri": disc.URL + "/jwks"})
	}))
	t.Cleanup(disc.Close)

	// A webhook first, so that the changes below fill its delivery log
	// (no deliverer runs here: they stay Pending).
	hook := call("POST", "/references/webhooks", "application/json", `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation","Application"]}`)
	org := call("POST", "/organisations", "application/json", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`)
	oid := org["OrganisationId"].(string)
	base := "/organisations/" + oid
	app := call("POST", base+"/softwarestatements", "application/json", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)
	aid := app["SoftwareStatementId"].(string)
	srv := call("POST", base+"/authorisationservers", "application/json", `{"CustomerFriendlyName":"Acme AS","Issuer":"`+disc.URL+`"}`)
	contact := call("POST", base+"/contacts", "application/json", `{"ContactType":"Business","FirstName":"Ann","LastName":"Doe","EmailAddress":"ann@acme.example"}`)
	doc := call("POST", base+"/documents", "application/json", `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-1","DocumentExpiryDate":"2099-01-01"}`)
	cert := call("POST", base+"/softwarestatements/"+aid+"/certifications", "application/json", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01"}`)
	srvCert := call("POST", base+"/authorisationservers/"+srv["AuthorisationServerId"].(string)+"/certifications", "application/json", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01"}`)
	orgCert := call("POST", base+"/certificates/qseal", "application/x-pem-file", webtest.ValidCert(t, "p256", "seal.acme.example"))
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := call("POST", base+"/key-material", "application/json", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)
	flag := call("POST", "/references/flags", "application/json", `{"Name":"Pilot","Type":"Organisation"}`)
	call("POST", "/references/authorisation-domains", "application/json", `{"Name":"Payments"}`)
	call("POST", "/references/authorisation-domains/Payments/roles", "application/json", `{"Name":"PISP","Type":"Federation"}`)
	authority := call("POST", "/references/authorities", "application/json", `{"AuthorityName":"Central Bank","AuthorityCode":"CB","Country":"GB","AuthorisationDomains":["Payments"]}`)
	call("POST", base+"/authority-claims", "application/json", `{"AuthorityId":"`+authority["AuthorityId"].(string)+`","AuthorisationDomain":"Payments","Role":"PISP","RegistrationId":"R-1"}`)
	pol := call("POST", "/references/role-metadata-policies", "application/json", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code"]}}}`)
	call("POST", "/references/identity-providers", "application/json", `{"Name":"Ops IdP","EmailDomains":["example.com"],"Issuer":"`+disc.URL+`"}`)
	ids := map[string]string{
		"orgID": oid, "appID": aid, "serverID": srv["AuthorisationServerId"].(string), "contactID": contact["ContactId"].(string),
		"docID": doc["DocumentId"].(string), "certID": cert["CertificationId"].(string), "kid": orgCert["kid"].(string),
		"kmID": km["KeyMaterialID"].(string), "flagID": flag["FlagId"].(string), "policyID": pol["PolicyId"].(string),
		"email": "admin@example.com", "name": "Ops%20IdP", "certType": "qseal", "webhookID": hook["WebhookId"].(string),
	}

	// Every browser GET route that shows a page.
	skip := regexp.MustCompile(`^/(api|dev/idp|auth|static|keystore|\.well-known)(/|$)|^/(logout|healthz|readyz|login)$|/content$|/assertion$|\.csv$|\{attID\}`)
	param := regexp.MustCompile(`\{([^}]+)\}`)
	var pages []string
	_ = chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(route, "/*")
		if method != http.MethodGet || skip.MatchString(route) {
			return nil
		}
		if strings.HasSuffix(route, "/") && route != "/" {
			route = strings.TrimSuffix(route, "/")
		}
		p := param.ReplaceAllStringFunc(route, func(m string) string {
			if m == "{certID}" && strings.Contains(route, "/authorisationservers/") {
				return srvCert["CertificationId"].(string)
			}
			v, ok := ids[strings.Trim(m, "{}")]
			if !ok {
				t.Fatalf("no id for %s in %s", m, route)
			}
			return v
		})
		// The name route is shared by the reference types: use one that exists.
		if strings.HasPrefix(route, "/references/") && strings.Contains(route, "{name}") && !strings.HasPrefix(route, "/references/identity-providers") {
			return nil
		}
		pages = append(pages, p)
		return nil
	})
	sort.Strings(pages)
	if len(pages) < 30 {
		t.Fatalf("only %d pages: %v", len(pages), pages)
	}
	return pages

}

// checkPage opens one console page at the current viewport width and fails
// it when it does not render, has a serious axe-core violation or is wider
// than the window.
func checkPage(t *testing.T, ctx context.Context, base, p string, width int64) {
	t.Helper()
	at := fmt.Sprintf("%s at %d px", p, width)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(base+p)); err != nil {
		t.Errorf("%s: %v", at, err)
		return
	}
	ct, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.contentType`))
	if ct != "text/html" {
		return
	}
	h1, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("h1")||{}).textContent||""`))
	if l := strings.ToLower(h1); h1 == "" || strings.Contains(l, "went wrong") || strings.Contains(l, "not found") || strings.Contains(l, "forbidden") {
		t.Errorf("%s shows %q", at, h1)
		return
	}
	checkAccessibility(t, ctx, at)
	// Nothing is wider than the window (a long id, a table that does not
	// scroll inside its wrapper, a header that does not collapse).
	if over, _ := chromedp.Run(ctx, chromedp.Evaluate[string](overflowing)); over != "" {
		t.Errorf("%s is wider than the window: %s", at, over)
	}
	if dir := os.Getenv("TRUSTFRAME_SCREENSHOT_DIR"); dir != "" {
		if b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			name := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(p), "-"), "-")
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("page-%d-%s.png", width, name)), b, 0o644)
		}
	}
}

// overflowing names the page's width and the outermost elements that reach
// past the window's right edge, or is "" when the page fits.
const overflowing = `(function(){
  var W = window.innerWidth;
  if (document.documentElement.scrollWidth <= W + 1) return "";
  var out = [];
  document.querySelectorAll("body *").forEach(function(e){
    if (out.length >= 3) return;
    var r = e.getBoundingClientRect();
    if (r.width === 0 || r.right <= W + 1) return;
    for (var p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      if (p.getBoundingClientRect().right > W + 1) return;
    }
    out.push(e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ").join(".") : "") + (e.dataset.testid ? "[" + e.dataset.testid + "]" : "") + " to " + Math.round(r.right) + " px");
  });
  return document.documentElement.scrollWidth + " px wide (" + out.join(", ") + ")";
})()`
