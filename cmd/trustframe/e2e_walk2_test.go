package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndFilterFormHasNoPillOutline: a filter row (the audit log's,
// the organisations') is a form with role=search, which Pico draws as one
// pill-shaped input group: with a field marked invalid focused (a period
// refused on the audit page), a rounded outline was drawn around the whole
// form, several rows high on a phone, cutting through the labels. Each
// field keeps its own focus ring; the form none.
func TestEndToEndFilterFormHasNoPillOutline(t *testing.T) {
	env := webtest.Start(t, nil)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	for _, w := range []int64{375, 1366} {
		for _, c := range []struct{ page, form, field string }{
			{"/audit?From=2026-12-01&To=2026-01-01", "[data-testid=audit-filter]", "input[name=To]"},
			{"/audit", "[data-testid=audit-filter]", "input[name=KeyId]"},
			{"/organisations", "[data-testid=org-filter]", "select[name=Status]"},
		} {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(env.URL+c.page),
				chromedp.WaitVisible(chromedp.CSS(c.field)), chromedp.Focus(chromedp.CSS(c.field)), chromedp.Sleep(600*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			shadow, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("`+c.form+`")).boxShadow`))
			if err != nil {
				t.Fatal(err)
			}
			if shadow != "none" && shadow != "rgba(0, 0, 0, 0) 0px 0px 0px 0px" {
				t.Errorf("%s at %d px: with a field focused the filter form is outlined (box-shadow %s)", c.page, w, shadow)
			}
		}
	}
}
