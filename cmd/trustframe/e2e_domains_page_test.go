package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndDomainsPageIsShort: with the demo data (trustframe seed),
// Domains and roles fits in about a screen and a half at 1366×900: its
// forms (new domain, a role, new authority) stay closed behind their
// buttons, one open at a time (issue 40: one 2,800 px page with three
// open forms).
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
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main details[open]").length`)); n != 0 {
		t.Errorf("%d forms open on arrival", n)
	}
	// One at a time: opening the new authority closes the new domain.
	must(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid=open-new-domain]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=domain-form]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=open-new-authority]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=authority-form]`)),
	))
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main details[open]").length`)); n != 1 || !waitTrue(t, ctx, `!document.querySelector("[data-testid=domain-form]").closest("details").open`) {
		t.Errorf("%d forms open after opening another", n)
	}
	checkAccessibility(t, ctx, "domains and roles, a form open")
}
