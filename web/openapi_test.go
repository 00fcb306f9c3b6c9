package web_test

import (
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/trustframe/trustframe/web/webtest"
	"gopkg.in/yaml.v3"
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
