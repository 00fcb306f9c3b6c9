package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndPhoneMenu: at 390×844 the header collapses behind Menu; the
// menu opens, Sign out and search are on screen, and a boosted navigation
// from it works and closes it again.
func TestEndToEndPhoneMenu(t *testing.T) {
	env := webtest.Start(t, nil)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`h1`))); err != nil {
		t.Fatal(err)
	}
	if over, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)); over {
		t.Fatal("the home page is wider than a phone")
	}
	if visible(t, ctx, "[data-testid=sign-out]") {
		t.Fatal("Sign out is shown before the menu is opened: the header did not collapse")
	}
	if !visible(t, ctx, "[data-testid=menu-toggle]") {
		t.Fatal("no Menu button on a phone")
	}
	if err := chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=menu-toggle]`))); err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{"[data-testid=sign-out]", "[data-testid=quick-search] input", "[data-testid=nav-audit]", "[data-testid=nav-organisations]"} {
		if !visible(t, ctx, sel) {
			t.Errorf("%s is not on screen with the menu open", sel)
		}
	}
	expanded, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=menu-toggle]").getAttribute("aria-expanded")`))
	if expanded != "true" {
		t.Errorf("aria-expanded %q with the menu open", expanded)
	}
	checkAccessibility(t, ctx, "home with the menu open")
	if dir := os.Getenv("TRUSTFRAME_SCREENSHOT_DIR"); dir != "" {
		if b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "phone-menu-open.png"), b, 0o644)
		}
	}
	// A boosted link in the menu navigates and the new page starts closed.
	if err := chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=nav-audit]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit-filter]`))); err != nil {
		t.Fatal(err)
	}
	if !waitTrue(t, ctx, `document.querySelector("[data-testid=sign-out]").getBoundingClientRect().width === 0`) {
		t.Error("the menu stays open after navigating")
	}
	// Search from the menu.
	err := chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=menu-toggle]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid=quick-search] input`), "nothing-matches\n"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=org-filter]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitURL(t, ctx, "q=nothing-matches") // and htmx has settled the page
	// Sign out from the menu. Right after a boosted navigation htmx may
	// still be settling the header (it copies the old page's attributes
	// onto elements that keep their id), so the menu is opened until its
	// Sign out button is on screen.
	menuOpen := `document.querySelector("[data-testid=sign-out]").getBoundingClientRect().width > 0`
	for i := 0; ; i++ {
		must(t, chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=menu-toggle]`))))
		if waitTrue(t, ctx, menuOpen) {
			break
		}
		if i == 2 {
			t.Fatal("the menu does not open after a search")
		}
	}
	err = chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=sign-out]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// activeIs evaluates a condition on document.activeElement (as a).
func activeIs(t *testing.T, ctx context.Context, cond string) bool {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(a){return !!(`+cond+`);})(document.activeElement)`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitActive is activeIs, given up to two seconds: htmx moves focus when
// the swapped page has settled, a moment after it shows.
func waitActive(t *testing.T, ctx context.Context, cond string) bool {
	t.Helper()
	for i := 0; i < 20; i++ {
		if activeIs(t, ctx, cond) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// TestEndToEndCertificationPageAndFocus: Add certification opens a page of
// its own (issue 40: it was a modal), focus on its heading; a failed save
// puts focus on the field in error; Cancel goes back to the list; a skip
// link leads to the content; a navigation puts focus on the main heading;
// focus rings are clearly visible.
func TestEndToEndCertificationPageAndFocus(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	org := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)
	oid := org["OrganisationId"].(string)
	app := api.call("POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`, 201)
	list := "/organisations/" + oid + "/softwarestatements/" + app["SoftwareStatementId"].(string) + "/certifications"

	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+list), chromedp.WaitVisible(chromedp.CSS(`[data-testid=add-certification]`))); err != nil {
		t.Fatal(err)
	}

	// The skip link is the first stop and leads to the content.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
		t.Fatal(err)
	}
	if !activeIs(t, ctx, `a.dataset.testid === "skip-link"`) {
		t.Fatal("the first Tab does not reach a skip link")
	}
	if !visible(t, ctx, "[data-testid=skip-link]") {
		t.Error("the focused skip link is not visible")
	}
	if w, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`parseFloat(getComputedStyle(document.activeElement).outlineWidth)`)); w < 2 {
		t.Errorf("focus ring %v px wide on the skip link", w)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	if !activeIs(t, ctx, `a.id === "main"`) {
		t.Error("the skip link does not move focus to the main content")
	}

	// Open the page from its link with the keyboard.
	open := func() {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.Focus(chromedp.CSS(`[data-testid=add-certification]`)),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=certification-form]`)),
		)
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`)); p != list+"/new" {
			t.Fatalf("Add certification went to %s, want %s/new", p, list)
		}
		if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("dialog[open]").length`)); n != 0 {
			t.Fatal("Add certification opened a dialog")
		}
		if !waitActive(t, ctx, `a.tagName === "H1" && a.textContent.trim() === "Add certification"`) {
			t.Errorf("on the Add certification page focus is on %s", focused(ctx))
		}
	}
	open()
	checkAccessibility(t, ctx, "certification page")
	for i := 0; i < 6; i++ {
		if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
			t.Fatal(err)
		}
		if w, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`parseFloat(getComputedStyle(document.activeElement).outlineWidth)`)); w < 2 {
			t.Errorf("focus ring %v px wide on %s", w, focused(ctx))
		}
	}

	// A failed save: focus on the first field in error.
	err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-CertificationStartDate"), ""),
		click(chromedp.CSS(`[data-testid=certification-form] [data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-CertificationStartDate]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !waitActive(t, ctx, `a.id === "f-CertificationStartDate"`) {
		t.Errorf("after a failed save focus is on %s", focused(ctx))
	}
	// Cancel goes back to the list.
	if err := chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=certification-form] a[role=button]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=add-certification]`))); err != nil {
		t.Fatal(err)
	}
	if p, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`)); p != list {
		t.Errorf("after Cancel the address is %s, want the list %s", p, list)
	}
	// Until htmx has settled the list, a click on a link of the new page is
	// the browser's own navigation (a whole page load), not a boosted one.
	waitURL(t, ctx, list)

	// A navigation puts focus on the new page's heading.
	if err := chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=nav-audit]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit-filter]`))); err != nil {
		t.Fatal(err)
	}
	if !waitActive(t, ctx, `a.tagName === "H1"`) {
		t.Errorf("after navigating focus is on %s, not the heading", focused(ctx))
	}
}

// TestEndToEndOrganisationCertificationsTab: the organisation page has a
// Certifications tab listing what its applications and servers hold, with
// holder, status and expiry; asked for JSON, the same URL answers JSON.
func TestEndToEndOrganisationCertificationsTab(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	org := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)
	oid := org["OrganisationId"].(string)
	other := api.call("POST", "/organisations", `{"OrganisationName":"Other Bank","RegistrationNumber":"87654321","CountryOfRegistration":"GB"}`, 201)
	base := "/organisations/" + oid
	app := api.call("POST", base+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`, 201)
	srv := api.call("POST", base+"/authorisationservers", `{"CustomerFriendlyName":"Acme AS","Issuer":"`+discoveryServer(t)+`"}`, 201)
	otherApp := api.call("POST", "/organisations/"+other["OrganisationId"].(string)+"/softwarestatements", `{"ClientName":"Not ours","RedirectUri":["https://other.example/cb"]}`, 201)
	api.call("POST", base+"/softwarestatements/"+app["SoftwareStatementId"].(string)+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01","CertificationExpirationDate":"2099-06-30"}`, 201)
	api.call("POST", base+"/authorisationservers/"+srv["AuthorisationServerId"].(string)+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2025-01-01","CertificationExpirationDate":"2025-12-31","Status":"Inactive"}`, 201)
	api.call("POST", "/organisations/"+other["OrganisationId"].(string)+"/softwarestatements/"+otherApp["SoftwareStatementId"].(string)+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01"}`, 201)

	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL+base),
		click(chromedp.CSS(`[data-testid=tab-certifications]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=org-certifications]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=org-certification-row]")).map(r => r.innerText.replace(/\s+/g, " "))`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want the 2 of Acme Bank: %q", len(rows), rows)
	}
	joined := strings.Join(rows, "\n")
	for _, want := range []string{"Payments app", "Application", "Acme AS", "Authorisation server", "2099-06-30", "Active", "2025-12-31", "Inactive", "expired"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the tab does not show %q: %q", want, rows)
		}
	}
	if strings.Contains(joined, "Not ours") {
		t.Error("the tab shows another organisation's certification")
	}
	checkAccessibility(t, ctx, "certifications tab")
	// The same URL asked for JSON.
	js, err := chromedp.Run(ctx, chromedp.Evaluate[[]map[string]any](`fetch(location.pathname, {headers: {Accept: "application/json"}}).then(r => r.json())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 2 || js[0]["HolderName"] == nil || js[0]["CertificationType"] != "FAPI" {
		t.Errorf("JSON %v", js)
	}
	// And on the API.
	req, _ := http.NewRequest("GET", env.URL+"/api"+base+"/certifications", nil)
	req.Header.Set("Authorization", "Bearer "+api.tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(list) != 2 {
		t.Errorf("API: %d %v", resp.StatusCode, list)
	}
}

// TestEndToEndFirstSteps: one Sign in button on the start page, the e-mail
// field focused on the development sign-in, a favicon, Sign out clear of the
// window's edge, an empty directory that says how to start, and an
// application's Description on its page.
func TestEndToEndFirstSteps(t *testing.T) {
	env := webtest.Start(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`))); err != nil {
		t.Fatal(err)
	}
	n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.querySelectorAll("a,button")).filter(e => /sign in/i.test(e.textContent) && e.offsetParent !== null).length`))
	if n != 1 {
		t.Errorf("%d Sign in buttons on the start page, want 1", n)
	}
	icon, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("link[rel=icon]")||{}).href||""`))
	if !strings.Contains(icon, "/static/") || !strings.HasSuffix(icon, "/favicon.svg") {
		t.Errorf("favicon link %q", icon)
	} else if ct, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(`+"`"+icon+"`"+`).then(r => r.ok ? r.headers.get("Content-Type") : "status " + r.status)`, chromedp.EvalAwaitPromise)); !strings.HasPrefix(ct, "image/svg+xml") {
		t.Errorf("favicon served as %q", ct)
	}
	if err := chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=sign-in]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=dev-idp-banner]`))); err != nil {
		t.Fatal(err)
	}
	if !activeIs(t, ctx, `a.id === "email"`) {
		t.Error("the e-mail field is not focused on the development sign-in page")
	}
	// Typing goes straight into the field.
	err := chromedp.Do(ctx,
		chromedp.KeyEvent("admin@example.com"),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=current-user]`)),
	)
	if err != nil {
		t.Fatalf("sign in by typing: %v", err)
	}
	gap, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.innerWidth - document.querySelector("[data-testid=sign-out]").getBoundingClientRect().right`))
	if gap < 16 {
		t.Errorf("Sign out is %v px from the window's edge", gap)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/organisations"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=empty]`))); err != nil {
		t.Fatal(err)
	}
	empty, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=empty]`)))
	if !strings.Contains(empty, "trustframe seed") {
		t.Errorf("the empty directory does not point to trustframe seed: %q", empty)
	}
	if err := chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=create-first]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-form]`))); err != nil {
		t.Fatalf("the empty directory does not lead to creating the first organisation: %v", err)
	}

	api := newAPIClient(t, env)
	org := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)
	app := api.call("POST", "/organisations/"+org["OrganisationId"].(string)+"/softwarestatements", `{"ClientName":"Payments app","Description":"Moves money for retail customers\nand for small businesses","RedirectUri":["https://app.acme.example/cb"]}`, 201)
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/organisations/"+org["OrganisationId"].(string)+"/softwarestatements/"+app["SoftwareStatementId"].(string)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=application-name]`))); err != nil {
		t.Fatal(err)
	}
	// innerText follows the layout: the description's line break shows.
	if d, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("[data-testid=application-description]")||{}).innerText||""`)); d != "Moves money for retail customers\nand for small businesses" {
		t.Errorf("application page shows Description %q", d)
	}
}

// TestEndToEndReferenceListsOnePattern: every reference list (Super Users,
// Data Administrators, contact/document/certification types, flags) is a
// list with a New button leading to a page with the form; a refused entry
// comes back to that form with the message beside the field; buttons have
// one size; flag types and the signing key status read as words; no
// developer note on lists and forms.
func TestEndToEndReferenceListsOnePattern(t *testing.T) {
	env := webtest.Start(t, nil)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	type list struct {
		path, field, good, row string
	}
	for _, l := range []list{
		{"/references/super-users", "Email", "sue@example.com", "super-user-row"},
		{"/references/data-administrators", "Email", "dana@example.com", "data-administrator-row"},
		{"/references/contact-types", "Name", "Tst contact type", "reference-row"},
		{"/references/document-types", "Name", "Tst document type", "reference-row"},
		{"/references/certification-types", "Name", "Tst certification type", "reference-row"},
		{"/references/flags", "Name", "Tst flag", "flag-row"},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+l.path), chromedp.WaitVisible(chromedp.CSS(`h1`))); err != nil {
			t.Fatal(err)
		}
		if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main form [name=`+l.field+`]").length`)); n != 0 {
			t.Errorf("%s has an inline form; want a list with New", l.path)
			continue
		}
		err := chromedp.Do(ctx,
			click(chromedp.CSS(`[data-testid=new-item], [data-new-item]`)),
			chromedp.WaitVisible(chromedp.CSS(`main form [name=`+l.field+`]`)),
		)
		if err != nil {
			t.Errorf("%s: no New page: %v", l.path, err)
			continue
		}
		// Refused: back on the same form, the message beside the field, focus on it.
		setField(t, ctx, `main form [name=`+l.field+`]`, "")
		err = chromedp.Do(ctx,
			click(chromedp.CSS(`main form [data-testid=save]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-`+l.field+`]`)),
		)
		if err != nil {
			t.Errorf("%s: a refused entry does not come back to its form: %v", l.path, err)
			continue
		}
		if !waitActive(t, ctx, `a.name === "`+l.field+`"`) {
			t.Errorf("%s: after a refused save focus is on %s", l.path, focused(ctx))
		}
		setField(t, ctx, `main form [name=`+l.field+`]`, l.good)
		err = chromedp.Do(ctx,
			click(chromedp.CSS(`main form [data-testid=save]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=`+l.row+`]`)),
		)
		if err != nil {
			t.Errorf("%s: saving the New form: %v", l.path, err)
			continue
		}
		if body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`))); !strings.Contains(body, l.good) {
			t.Errorf("%s does not list the new %s", l.path, l.good)
		}
		// One button size on the page.
		sizes, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(new Set(Array.from(document.querySelectorAll("main button, main [role=button]")).filter(b => b.offsetParent !== null).map(b => getComputedStyle(b).fontSize + " " + getComputedStyle(b).paddingTop)))`))
		if len(sizes) != 1 {
			t.Errorf("%s: buttons of %d sizes: %v", l.path, len(sizes), sizes)
		}
	}

	// Flag types as words; the flag form offers them as words too.
	api := newAPIClient(t, env)
	api.call("POST", "/references/flags", `{"Name":"Test AS","Type":"Authorisation_Server"}`, 201)
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/references/flags"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=flag-row]`))); err != nil {
		t.Fatal(err)
	}
	flags, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=flags]`)))
	if strings.Contains(flags, "_") || !strings.Contains(flags, "Authorisation server") {
		t.Errorf("flag types read %q", flags)
	}
	// The signing key status reads "Active signing", not "Activesigning".
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/references/signing-keys"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=key-row]`))); err != nil {
		t.Fatal(err)
	}
	keys, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=signing-keys] tbody").textContent`))
	if strings.Contains(keys, "Activesigning") || !strings.Contains(keys, "signing") {
		t.Errorf("signing key status reads %q", keys)
	}
	// No developer note about status words on lists and forms.
	org := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)
	for _, p := range []string{"/organisations", "/organisations/new", "/organisations/" + org["OrganisationId"].(string) + "/edit", "/organisations/" + org["OrganisationId"].(string) + "/softwarestatements", "/organisations/" + org["OrganisationId"].(string) + "/authorisationservers"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+p), chromedp.WaitVisible(chromedp.CSS(`h1`))); err != nil {
			t.Fatal(err)
		}
		if text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`))); strings.Contains(text, "Status words") {
			t.Errorf("%s carries the status-words note", p)
		}
	}
}

// TestEndToEndReadableAudit: the audit log and the home page's latest
// activity say who did what to which named thing, before → after per
// field, flags by name (ids on hover), "1 event", key IDs matched by their
// start, the Action filter a list of the actions the log holds, and the
// application's audit tab filters as the certificates' one does.
func TestEndToEndReadableAudit(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	flag := api.call("POST", "/references/flags", `{"Name":"Pilot","Type":"Organisation"}`, 201)
	fid := flag["FlagId"].(string)
	org := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)
	oid := org["OrganisationId"].(string)
	api.call("PUT", "/organisations/"+oid, `{"OrganisationName":"Acme Bank","LegalEntityName":"Acme Bank plc","RegistrationNumber":"12345678","CountryOfRegistration":"GB","Status":"Pending","Flags":["`+fid+`"]}`, 200)
	app := api.call("POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`, 201)
	aid := app["SoftwareStatementId"].(string)
	api.call("PUT", "/organisations/"+oid+"/softwarestatements/"+aid, `{"ClientName":"Payments app","Description":"Retail payments","RedirectUri":["https://app.acme.example/cb"],"Status":"Active"}`, 200)
	req, _ := http.NewRequest("POST", env.URL+"/api/organisations/"+oid+"/certificates/qseal", strings.NewReader(webtest.ValidCert(t, "p256", "seal.acme.example")))
	req.Header.Set("Content-Type", "application/x-pem-file")
	req.Header.Set("Authorization", "Bearer "+api.tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var cert map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&cert)
	resp.Body.Close()
	kid, _ := cert["kid"].(string)
	if resp.StatusCode != 201 || len(kid) < 10 {
		t.Fatalf("upload: %d %v", resp.StatusCode, cert)
	}

	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	// Latest activity names the things.
	recent, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=recent]`)))
	for _, want := range []string{"created organisation Acme Bank", "updated application Payments app of Acme Bank", "uploaded certificate"} {
		if !strings.Contains(recent, want) {
			t.Errorf("latest activity does not say %q: %q", want, recent)
		}
	}
	if strings.Contains(recent, "create Organisation") || strings.Contains(recent, oid) {
		t.Errorf("latest activity is raw: %q", recent)
	}
	checkAccessibility(t, ctx, "home")

	// The organisation's update in the audit log: its name, each field before → after, the flag by name.
	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/audit?OrganisationId="+oid+"&Action=update&Subject=Organisation"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit-row]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=audit-count]`))); !strings.HasPrefix(n, "1 event") || strings.HasPrefix(n, "1 events") {
		t.Errorf("count reads %q", n)
	}
	row, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=audit-row]").innerText`))
	for _, want := range []string{"admin@example.com", "updated organisation Acme Bank", "Legal entity name", "Acme Bank plc", "Flags", "(none) → Pilot"} {
		if !strings.Contains(row, want) {
			t.Errorf("audit row does not say %q: %q", want, row)
		}
	}
	if strings.Contains(row, fid) || strings.Contains(row, oid) {
		t.Errorf("audit row shows ids: %q", row)
	}
	if title, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=audit-row] [data-testid=audit-name]").title`)); title != oid {
		t.Errorf("the organisation's id is not on hover: %q", title)
	}
	// The Action filter lists the actions the log holds.
	opts, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=audit-filter] select[name=Action] option")).map(o => o.value)`))
	for _, want := range []string{"", "create", "update", "upload", "login"} {
		if !containsStr(opts, want) {
			t.Errorf("Action options %q lack %q", opts, want)
		}
	}
	checkAccessibility(t, ctx, "audit")
	// A key ID matches by its start.
	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/audit"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=filter-kid]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid=filter-kid]`), kid[:6]+"\r"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit-row][data-action=upload]`)),
	)
	if err != nil {
		t.Fatalf("key ID prefix on /audit: %v", err)
	}
	if !waitTrue(t, ctx, `location.search.includes("KeyId=") && document.querySelector("[data-testid=audit-count]").textContent.trim().startsWith("1 event")`) {
		n, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=audit-count]`)))
		t.Errorf("prefix %s: %q", kid[:6], n)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/organisations/"+oid+"/certificates/audit?KeyId="+kid[:6]),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit-row][data-action=upload]`)),
	)
	if err != nil {
		t.Fatalf("key ID prefix on the certificates' audit: %v", err)
	}
	// The application's audit tab filters by action and clears it.
	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/organisations/"+oid+"/softwarestatements/"+aid+"/audit"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit-filter]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	rows := func() int {
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=audit-row]").length`))
		return n
	}
	if rows() != 2 {
		t.Errorf("application audit: %d rows, want create and update", rows())
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-Action"), "update"),
		click(chromedp.CSS(`[data-testid=apply-filter]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=clear-action]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if rows() != 1 {
		t.Errorf("application audit filtered by update: %d rows", rows())
	}
	row, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=audit-row]").innerText`))
	if !strings.Contains(row, "Description") || !strings.Contains(row, "Retail payments") {
		t.Errorf("application audit row %q", row)
	}
	checkAccessibility(t, ctx, "application audit")
	if err := chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=clear-action]`)), chromedp.WaitNotPresent(chromedp.CSS(`[data-testid=clear-action]`))); err != nil {
		t.Fatal(err)
	}
	if rows() != 2 {
		t.Errorf("after Clear action: %d rows", rows())
	}
}

func containsStr(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

// setField sets the value of the first element matching sel.
func setField(t *testing.T, ctx context.Context, sel, v string) {
	t.Helper()
	js, _ := json.Marshal(v)
	q, _ := json.Marshal(sel)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+string(q)+`).value = `+string(js))); err != nil {
		t.Fatalf("set %s: %v", sel, err)
	}
}

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
