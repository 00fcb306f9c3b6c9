package web_test

import (
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/go-chi/chi/v5"
	"go.yaml.in/yaml/v3"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestOpenAPIDescribesEveryRoute: the downloadable description of 2.6.0
// parses, and every /api route of the router is in it with its method.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	env := webtest.Start(t, nil)
	resp, err := http.Get(env.URL + "/api/releases/2.6.0/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/yaml" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var doc struct {
		OpenAPI string                    `yaml:"openapi"`
		Info    struct{ Version string }  `yaml:"info"`
		Paths   map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the description is not YAML: %v", err)
	}
	if doc.Info.Version != "2.6.0" || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("%s %s", doc.OpenAPI, doc.Info.Version)
	}
	// Normalise {param} names: the spec uses the seed's names, the router its own.
	norm := regexp.MustCompile(`\{[^}]+\}`)
	described := map[string]bool{}
	for path, ops := range doc.Paths {
		for m := range ops {
			described[strings.ToUpper(m)+" "+norm.ReplaceAllString(path, "{}")] = true
		}
	}
	var missing []string
	err = chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if !strings.HasPrefix(route, "/api/") {
			return nil
		}
		key := method + " " + norm.ReplaceAllString(strings.TrimSuffix(strings.TrimPrefix(route, "/api"), "/"), "{}")
		if !described[key] {
			missing = append(missing, key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("routes missing from the OpenAPI description:\n%s", strings.Join(missing, "\n"))
	}
	resp, _ = http.Get(env.URL + "/api/releases/2.4.0/openapi.yaml")
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("an undescribed release: %d", resp.StatusCode)
	}
	resp, _ = http.Get(env.URL + "/api/releases")
	rb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(rb), `"Version":"2.6.0","Latest":true`) {
		t.Fatalf("releases: %s", rb)
	}
}

// TestOpenAPIDescriptionIsComplete: every operation has an operationId
// (unique) and a tag, every response says what it carries (a JSON body
// always with a schema), every described path is routed, and the
// description's own examples are valid (kin-openapi checks them on load).
func TestOpenAPIDescriptionIsComplete(t *testing.T) {
	env := webtest.Start(t, nil)
	c, err := webtest.LoadContract()
	if err != nil {
		t.Fatal(err)
	}
	norm := regexp.MustCompile(`\{[^}]+\}`)
	routed := map[string]bool{}
	_ = chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routed[method+" "+norm.ReplaceAllString(strings.TrimSuffix(route, "/"), "{}")] = true
		return nil
	})
	ids := map[string]string{}
	var problems []string
	for path, item := range c.Doc.Paths.Map() {
		prefix := "/api"
		if len(item.Servers) > 0 && item.Servers[0].URL == "/" {
			prefix = ""
		}
		for method, op := range item.Operations() {
			where := method + " " + path
			if !routed[method+" "+norm.ReplaceAllString(prefix+path, "{}")] {
				problems = append(problems, where+": described but not routed")
			}
			if op.OperationID == "" || len(op.Tags) == 0 {
				problems = append(problems, where+": no operationId or no tag")
			}
			if other, dup := ids[op.OperationID]; dup {
				problems = append(problems, where+": operationId "+op.OperationID+" also on "+other)
			}
			ids[op.OperationID] = where
			for status, resp := range op.Responses.Map() {
				if resp.Value == nil {
					continue
				}
				if len(resp.Value.Content) == 0 && status != "204" && status != "304" {
					problems = append(problems, where+" "+status+": no content described")
				}
				for mt, media := range resp.Value.Content {
					if media.Schema == nil {
						problems = append(problems, where+" "+status+" "+mt+": no schema")
					}
				}
			}
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				for mt, media := range rb.Value.Content {
					if media.Schema == nil {
						problems = append(problems, where+" request "+mt+": no schema")
					}
				}
			}
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Fatalf("the description is incomplete:\n%s", strings.Join(problems, "\n"))
	}
	if len(ids) < 90 {
		t.Fatalf("only %d operations described", len(ids))
	}
}

// TestVaryOnNegotiatedAnswers: the console URLs that answer HTML or JSON
// by Accept say so, so that a shared cache keeps them apart.
func TestVaryOnNegotiatedAnswers(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Vary Bank"))["OrganisationId"].(string)
	b := webtest.Browser()
	webtest.SignIn(t, b, env.URL, "admin@example.com").Body.Close()
	for _, path := range []string{"/organisations", "/organisations/" + oid, "/organisations/" + oid + "/contacts"} {
		for _, accept := range []string{"text/html", "application/json"} {
			req, _ := http.NewRequest("GET", env.URL+path, nil)
			req.Header.Set("Accept", accept)
			resp, err := b.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			vary := strings.Join(resp.Header.Values("Vary"), ",")
			if resp.StatusCode != 200 || !strings.Contains(vary, "Accept") || !strings.Contains(vary, "HX-Request") {
				t.Errorf("GET %s (%s): %d, Vary %q", path, accept, resp.StatusCode, vary)
			}
		}
	}
	// Signed out, the same URL is a redirect to sign in or a 401 problem.
	for _, accept := range []string{"text/html", "application/json"} {
		req, _ := http.NewRequest("GET", env.URL+"/organisations", nil)
		req.Header.Set("Accept", accept)
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if vary := strings.Join(resp.Header.Values("Vary"), ","); !strings.Contains(vary, "Accept") {
			t.Errorf("signed out (%s): %d, Vary %q", accept, resp.StatusCode, vary)
		}
	}
}

// TestAPIPageRendersTheDescription: the console's API page shows every
// operation of the description, with its responses, and every schema with
// its required members; it links the YAML and is in the main navigation.
func TestAPIPageRendersTheDescription(t *testing.T) {
	env := webtest.Start(t, nil)
	c, err := webtest.LoadContract()
	if err != nil {
		t.Fatal(err)
	}
	b := webtest.Browser()
	webtest.SignIn(t, b, env.URL, "admin@example.com").Body.Close()
	resp, err := b.Get(env.URL + "/api-reference")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if doc.Find(`[data-testid="nav-api"][aria-current="page"]`).Length() != 1 {
		t.Error("the API page is not in the main navigation")
	}
	if href, _ := doc.Find(`[data-testid="api-download"]`).Attr("href"); href != "/api/releases/2.6.0/openapi.yaml" {
		t.Errorf("download link %q", href)
	}
	n := 0
	for path, item := range c.Doc.Paths.Map() {
		for method, op := range item.Operations() {
			n++
			art := doc.Find("#op-" + op.OperationID)
			if art.Length() != 1 || !strings.Contains(art.Find("header").Text(), method+" ") || !strings.Contains(art.Find("header").Text(), path) {
				t.Errorf("%s %s (%s) is not on the page", method, path, op.OperationID)
				continue
			}
			if art.Find(`[data-testid="api-response"]`).Length() != op.Responses.Len() {
				t.Errorf("%s: %d responses shown, %d described", op.OperationID, art.Find(`[data-testid="api-response"]`).Length(), op.Responses.Len())
			}
		}
	}
	if got := doc.Find(`[data-testid="api-operation"]`).Length(); got != n {
		t.Errorf("%d operations shown, %d described", got, n)
	}
	if got := doc.Find(`[data-testid="api-schema"]`).Length(); got != len(c.Doc.Components.Schemas) {
		t.Errorf("%d schemas shown, %d described", got, len(c.Doc.Components.Schemas))
	}
	row := doc.Find("#schema-OrganisationInput tr").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.TrimSpace(s.Find("td").First().Text()) == "CountryOfRegistration"
	})
	if !strings.Contains(row.Text(), "required") || !strings.Contains(row.Text(), "GB") {
		t.Errorf("CountryOfRegistration row: %q", row.Text())
	}
	// Signed out, the page asks for a sign-in like the rest of the console.
	r2, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(env.URL + "/api-reference")
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusFound {
		t.Errorf("signed out: %d", r2.StatusCode)
	}
}
