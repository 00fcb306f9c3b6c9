package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndSaveOverAnotherChange: two people edit the same
// organisation; the second save is refused with her form kept, the stored
// version's values beside hers and the changed fields marked; "save mine"
// then saves what she typed on top (issue 40).
func TestEndToEndSaveOverAnotherChange(t *testing.T) {
	env := webtest.Start(t, nil)
	a, b := newBrowser(t), newBrowser(t)
	signIn(t, a, env.URL, "admin@example.com")
	signIn(t, b, env.URL, "admin@example.com")
	createAcmeBank(t, a, env.URL)
	edit, err := chromedp.Run(a, chromedp.Evaluate[string](`location.pathname + "/edit"`))
	must(t, err)
	must(t, chromedp.Do(b, chromedp.Navigate(env.URL+edit), chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-form]`))))
	must(t, chromedp.Do(a,
		chromedp.Navigate(env.URL+edit),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-form]`)),
		chromedp.SetValue(chromedp.ID("f-OrganisationName"), "Acme Bank plc"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-name]`)),
	))
	must(t, chromedp.Do(b,
		chromedp.SetValue(chromedp.ID("f-City"), "Leeds"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=stale]`)),
	))
	if got := text(t, b, `[data-testid=stale-fields] tr[data-field=OrganisationName][data-changed] [data-testid=stale-stored]`); got != "Acme Bank plc" {
		t.Fatalf("their change shown as %q", got)
	}
	if got := text(t, b, `[data-testid=stale-fields] tr[data-field=City][data-changed] [data-testid=stale-yours]`); got != "Leeds" {
		t.Fatalf("what she typed shown as %q", got)
	}
	city, err := chromedp.Run(b, chromedp.Evaluate[string](`document.getElementById("f-City").value`))
	if must(t, err); city != "Leeds" {
		t.Fatalf("the form lost what was typed: %q", city)
	}
	checkAccessibility(t, b, "the refused save")
	must(t, chromedp.Do(b,
		click(chromedp.CSS(`[data-testid=stale-apply]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-name]`)),
	))
	page := text(t, b, `main`)
	if !strings.Contains(page, "Leeds") {
		t.Fatalf("her change was not saved: %s", page)
	}
}
