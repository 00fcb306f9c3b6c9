package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestAListPastItsLastPageLeadsBack: a list asked for a page past its last
// (an old link, a hand-typed URL) said "Page 100 of 2" over an empty table,
// with a Previous link to page 99 — also empty — or, for a list of one
// page, no way back at all. It now says the page is past the last one and
// Previous goes to the last page.
func TestAListPastItsLastPageLeadsBack(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/organisations", org("Acme Bank"))
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, path := range []string{"/organisations?page=99", "/audit?page=99"} {
		resp, err := c.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		pages := strings.Join(strings.Fields(doc.Find(`nav[aria-label=Pages]`).Text()), " ")
		if !strings.Contains(pages, "Page 100 is past the last page (1)") {
			t.Errorf("%s: the pages read %q", path, pages)
		}
		if path == "/organisations?page=99" {
			// The list is not empty: it says so, not "No organisations yet".
			if empty := doc.Find("[data-testid=empty]").Text(); strings.Contains(empty, "No organisations yet") || !strings.Contains(empty, "past the end") {
				t.Errorf("%s: the empty list says %q", path, strings.Join(strings.Fields(empty), " "))
			}
		}
		prev, ok := doc.Find(`nav[aria-label=Pages] a`).First().Attr("href")
		if !ok || !strings.Contains(prev, "page=0") {
			t.Errorf("%s: Previous goes to %q, want the last page (page=0)", path, prev)
		}
	}
}
