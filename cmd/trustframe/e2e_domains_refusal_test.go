package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndDomainFormRefusalStaysOnItsPage: a new domain whose name is
// taken (a 409) is refused on the Add domain page, at that page's address
// (it showed the list's address, so reload left the page); what was typed
// is kept beside the message.
func TestEndToEndDomainFormRefusalStaysOnItsPage(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	api.call("POST", "/references/authorisation-domains", `{"Name":"Payments"}`, 201)
	ctx := newBrowserFor(t, time.Minute)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/references/authorisation-domains/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=domain-form] #f-Name`)),
		chromedp.SendKeys(chromedp.ID("f-Name"), "Payments"),
		chromedp.SendKeys(chromedp.ID("f-Description"), "Again"),
		click(chromedp.CSS(`[data-testid=domain-form] [data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`#e-Name`)),
	))
	path, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	must(t, err)
	if path != "/references/authorisation-domains/new" {
		t.Errorf("the refusal is at %s", path)
	}
	if msg := text(t, ctx, `#e-Name`); !strings.Contains(msg, "Payments") {
		t.Errorf("beside the name: %q", msg)
	}
	kept, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("f-Description")))
	must(t, err)
	if kept != "Again" {
		t.Errorf("the description kept as %q", kept)
	}
}
