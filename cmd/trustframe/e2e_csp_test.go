package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndRefusedFormSwapKeepsTheCSP: a refused form swapped in by
// htmx (a 422 answer) must cause no Content-Security-Policy violation
// (the console's CSP allows no inline style; htmx's settle step copies
// style attributes). The browser's console is watched too (newBrowser):
// a violation is logged there as an error.
func TestEndToEndRefusedFormSwapKeepsTheCSP(t *testing.T) {
	env := webtest.Start(t, nil)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/organisations/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-form]`)),
	))
	_, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.tfViolations = []; document.addEventListener("securitypolicyviolation", e => window.tfViolations.push(e.violatedDirective + " " + e.sourceFile + ":" + e.lineNumber)); 0`))
	must(t, err)
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=organisation-form] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-form] [aria-invalid=true]`)),
		chromedp.Sleep(300*time.Millisecond), // htmx settles 20 ms after the swap
	))
	got, err2 := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.tfViolations`))
	must(t, err2)
	if len(got) != 0 {
		t.Fatalf("a refused form's swap broke the CSP: %v", got)
	}
}
