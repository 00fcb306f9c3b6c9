package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndDomainsPageIsShort: with the demo data (trustframe seed),
// Domains and roles fits in about a screen and a half at 1366×900: it
// lists, and adding or editing a domain, a role or an authority is a page
// of its own (issue 40: one 2,800 px page with three open forms).
func TestEndToEndDomainsPageIsShort(t *testing.T) {
	env := webtest.Start(t, nil)
	if err := env.DB.SeedDirectory(t.Context(), store.Audit{Actor: "seed"}, 20, 1); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowserFor(t, time.Minute)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1366, 900),
		chromedp.Navigate(env.URL+"/references/authorisation-domains"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=domain]`)),
	))
	h, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scrollingElement.scrollHeight`))
	must(t, err)
	if h > 1400 {
		t.Errorf("the page is %d px high at 1366×900", h)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main details, main input:not([type=hidden])").length`)); n != 0 {
		t.Errorf("%d forms or fields on the list", n)
	}
	// A role is edited on its own page, and Cancel goes back to the list.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=role-row] [data-testid=edit-role]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=role-form] #f-Description`)),
	))
	checkAccessibility(t, ctx, "domains and roles, a role's edit page")
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=role-form] a[role=button]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=domain]`)),
	))
}
