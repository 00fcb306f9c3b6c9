package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// auditTotal is how many records the audit log holds.
func auditTotal(a *api) float64 {
	a.t.Helper()
	return a.must(200, "GET", "/audit?size=1", "")["totalSize"].(float64)
}

// TestNullBodyIsNotAnEmptyObject: a body of JSON null where an object is
// expected is a 400, not an update with every member left out
// (docs/design.md §4), and changes nothing.
func TestNullBodyIsNotAnEmptyObject(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	a.must(201, "POST", "/references/contact-types", `{"Name":"Walk","Description":"kept"}`)
	for _, c := range []struct{ method, path string }{
		{"PUT", "/references/contact-types/Walk"},
		{"POST", "/references/contact-types"},
		{"POST", "/organisations"},
	} {
		before := toJSON(t, a.must(200, "GET", "/references/contact-types/Walk", ""))
		n := auditTotal(a)
		r, m := a.do(c.method, c.path, ` null `)
		if r.StatusCode != 400 || !strings.Contains(r.Header.Get("Content-Type"), "problem+json") {
			t.Errorf("%s %s null: %d %v, want 400", c.method, c.path, r.StatusCode, m)
		}
		if m["type"] != "https://trustframe.dev/problems/malformed-json" {
			t.Errorf("%s %s null: %v, want malformed-json", c.method, c.path, m)
		}
		if after := toJSON(t, a.must(200, "GET", "/references/contact-types/Walk", "")); after != before || auditTotal(a) != n {
			t.Errorf("%s %s null changed something: %s -> %s", c.method, c.path, before, after)
		}
	}
}
