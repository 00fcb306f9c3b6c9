package main

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndControlsAreNotStretched: in a row of controls (.tf-actions, a
// flex box) a status badge and a button keep their own height. The domain's
// Active badge on Domains and Roles was stretched to the height of the
// domain's heading (a tall pill with its word at the top), and Generate SSA
// to the height of the labelled algorithm list beside it.
func TestEndToEndControlsAreNotStretched(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	api.call("POST", "/references/authorisation-domains", `{"Name":"Payments"}`, 201)
	org := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)
	oid := org["OrganisationId"].(string)
	app := api.call("POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`, 201)

	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	height := func(sel string) float64 {
		t.Helper()
		h, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector(`+"`"+sel+"`"+`).getBoundingClientRect().height`))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return h
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/references/authorisation-domains"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=domain] header .tf-status`))); err != nil {
		t.Fatal(err)
	}
	badge := height(`[data-testid=domain] header .tf-status`)
	button := height(`[data-testid=domain] header [data-testid=disable-domain]`)
	if badge > button {
		t.Errorf("the domain's status badge is %.0f px high, taller than its Disable button (%.0f px): stretched", badge, button)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/organisations/"+oid+"/softwarestatements/"+app["SoftwareStatementId"].(string)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=generate-ssa]`))); err != nil {
		t.Fatal(err)
	}
	gen := height(`[data-testid=generate-ssa]`)
	list := height(`#signingAlg`)
	if gen > list {
		t.Errorf("Generate SSA is %.0f px high, taller than the algorithm list beside it (%.0f px): stretched", gen, list)
	}
	// The button stays level with the list it goes with.
	gap, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`Math.abs(document.querySelector("[data-testid=generate-ssa]").getBoundingClientRect().bottom - document.querySelector("#signingAlg").getBoundingClientRect().bottom)`))
	if gap > 24 {
		t.Errorf("Generate SSA's bottom is %.0f px from the list's", gap)
	}
}

// TestEndToEndBreadcrumbHasDividers: the crumbs are divided ("Organisations
// › Acme Bank › Roles"). The nav was labelled "Breadcrumb" and Pico styles
// nav[aria-label=breadcrumb] only (attribute values match case-sensitively):
// the crumbs stood apart like three links of a menu.
func TestEndToEndBreadcrumbHasDividers(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	org := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/organisations/"+org["OrganisationId"].(string)+"/contacts"), chromedp.WaitVisible(chromedp.CSS(`main h1`))); err != nil {
		t.Fatal(err)
	}
	divider, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const crumbs = [...document.querySelectorAll("nav")].find(n => /breadcrumb/i.test(n.getAttribute("aria-label") || "")); return getComputedStyle(crumbs.querySelector("li"), "::after").content })()`))
	if err != nil {
		t.Fatal(err)
	}
	if divider == "" || divider == "none" || divider == "normal" {
		t.Errorf("no divider after the first crumb (content %q)", divider)
	}
}
