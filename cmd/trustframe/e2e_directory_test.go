package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestEndToEndDirectory: a Data Administrator onboards an organisation in
// the browser: contacts sorted by type with htmx, an authorisation server
// whose issuer first fails validation, and an application with CIBA push.
func TestEndToEndDirectory(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)

	var self string
	disc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"issuer":%q}`, self)
	}))
	defer disc.Close()
	self = disc.URL
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"issuer":"https://somebody-else.example"}`)
	}))
	defer wrong.Close()

	// The Super User invites dana; dana does the work.
	signIn(t, ctx, base, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/data-administrators/new"),
		chromedp.SendKeys(chromedp.ID("da-email"), "dana@example.com"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=data-administrator-row]`)),
		click(chromedp.CSS(`[data-testid=sign-out]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`)),
	))
	signIn(t, ctx, base, "dana@example.com")

	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=nav-organisations]`)),
		click(chromedp.CSS(`[data-testid=new-organisation]`)),
		chromedp.WaitVisible(chromedp.ID("f-OrganisationName")),
		chromedp.SendKeys(chromedp.ID("f-OrganisationName"), "Acme Bank"),
		chromedp.SendKeys(chromedp.ID("f-RegistrationNumber"), "12345678"),
		chromedp.SendKeys(chromedp.ID("f-CountryOfRegistration"), "GB"),
		chromedp.SetValue(chromedp.ID("f-Status"), "Active"), // its application gets an SSA below
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-name]`)),
	))
	checkAccessibility(t, ctx, "organisation page")

	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-contacts]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=contacts-table]`)),
	))
	addContact := func(typ, last, email string) {
		must(t, chromedp.Do(ctx,
			click(chromedp.CSS(`[data-testid=new-contact]`)),
			chromedp.WaitVisible(chromedp.ID("f-LastName")),
			chromedp.SetValue(chromedp.ID("f-ContactType"), typ),
			chromedp.SendKeys(chromedp.ID("f-LastName"), last),
			chromedp.SendKeys(chromedp.ID("f-EmailAddress"), email),
			click(chromedp.CSS(`[data-testid=save]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=contact-row]`)),
		))
	}
	addContact("Technical", "Adams", "adams@acme.example")
	addContact("Billing", "Zane", "zane@acme.example")
	firstType := func() string {
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=contact-type]`)))
		must(t, err)
		return s
	}
	if got := firstType(); got != "Technical" { // sorted by last name: Adams first
		t.Fatalf("first contact type %q", got)
	}
	// Sort by Contact Type with htmx: no page load, the table changes.
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__marker = 1; true`))
	must(t, err)
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=sort-ContactType]`)),
		chromedp.WaitVisible(chromedp.CSS(`th[aria-sort=ascending] [data-testid=sort-ContactType]`)),
	))
	if got := firstType(); got != "Billing" {
		t.Fatalf("after sort by type: %q", got)
	}
	marker, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__marker || 0`))
	if err != nil || marker != 1 {
		t.Fatalf("sorting reloaded the page (marker %d, %v)", marker, err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.Contains(loc, "sort=ContactType") {
		t.Fatalf("the sort is not in the URL: %s", loc)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=sort-ContactType]`)),
		chromedp.WaitVisible(chromedp.CSS(`th[aria-sort=descending] [data-testid=sort-ContactType]`)),
	))
	if got := firstType(); got != "Technical" {
		t.Fatalf("after sort by type desc: %q", got)
	}

	// An authorisation server whose issuer fails validation, then fixed.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-servers]`)),
		click(chromedp.CSS(`[data-testid=new-server]`)),
		chromedp.WaitVisible(chromedp.ID("f-Issuer")),
		chromedp.SendKeys(chromedp.ID("f-CustomerFriendlyName"), "Main"),
		chromedp.SendKeys(chromedp.ID("f-Issuer"), wrong.URL),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-Issuer]`)),
	))
	msg, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=error-Issuer]`)))
	if !strings.Contains(msg, "names issuer") {
		t.Fatalf("issuer message %q", msg)
	}
	// The message sits right after the Issuer input.
	beside, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("f-Issuer").nextElementSibling.dataset.testid === "error-Issuer"`))
	if err != nil || !beside {
		t.Fatal("the issuer message is not beside the field")
	}
	checkAccessibility(t, ctx, "server form with errors")
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-Issuer"), disc.URL),
		click(chromedp.CSS(`[data-testid=save]`)),
	))
	wctx, cancelW := context.WithTimeout(ctx, 5*time.Second)
	defer cancelW()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=server-row]`))); err != nil {
		html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS(`main`)))
		t.Fatalf("%v: %s", err, html)
	}

	// An application with a CIBA push endpoint.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-applications]`)),
		click(chromedp.CSS(`[data-testid=new-application]`)),
		chromedp.WaitVisible(chromedp.ID("f-ClientName")),
		chromedp.SendKeys(chromedp.ID("f-ClientName"), "Payments app"),
		chromedp.SetValue(chromedp.ID("f-backchannel_token_delivery_mode"), "push"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-backchannel_client_notification_endpoint]`)),
		chromedp.SendKeys(chromedp.ID("f-backchannel_client_notification_endpoint"), "https://tpp.example/ciba"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=application-name]`)),
	))
	mode, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=ciba-mode]`)))
	ep, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=ciba-endpoint]`)))
	if mode != "push" || ep != "https://tpp.example/ciba" {
		t.Fatalf("application CIBA %q %q", mode, ep)
	}
	// Generate an SSA from the application page.
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("signingAlg"), "ML-DSA-65"),
		click(chromedp.CSS(`[data-testid=generate-ssa]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=ssa-token]`)),
	))
	tok, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=ssa-token]`)))
	alg, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=ssa-alg]`)))
	if !strings.HasPrefix(tok, "eyJ") || strings.Count(tok, ".") != 2 || alg != "ML-DSA-65" {
		t.Fatalf("SSA on the page: %q (%s)", tok[:min(len(tok), 40)], alg)
	}
	checkAccessibility(t, ctx, "application page with SSA")
	if shot := os.Getenv("TRUSTFRAME_SCREENSHOT_DIR"); shot != "" {
		b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			_ = os.WriteFile(shot+"/application.png", b, 0o644)
		}
	}
}

// TestEndToEndImportAndExport: a Data Administrator's day with a
// spreadsheet, in the browser: an import with a bad row is refused whole
// with the row named, the fixed file imports, and Download CSV gives it back.
func TestEndToEndImportAndExport(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	good := filepath.Join(dir, "good.csv")
	os.WriteFile(bad, []byte("OrganisationName,RegistrationNumber,CountryOfRegistration\nNorth Bank,N-1,GB\nSouth Bank,S-2,Narnia\n"), 0o644)
	os.WriteFile(good, []byte("OrganisationName,RegistrationNumber,CountryOfRegistration\nNorth Bank,N-1,GB\nSouth Bank,S-2,BR\n"), 0o644)
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/organisations"),
		click(chromedp.CSS(`[data-testid=import-organisations]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=import-form]`)),
		chromedp.SetUploadFiles(chromedp.ID("f-file"), []string{bad}),
		click(chromedp.CSS(`[data-testid=import]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=import-problems]`)),
	))
	checkAccessibility(t, ctx, "import with problems")
	problems, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=import-problems]`)))
	if !strings.Contains(problems, "Nothing was imported") || !strings.Contains(problems, "Row 2 (line 3 of the file)") {
		t.Fatalf("problems %q", problems)
	}
	must(t, chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.ID("f-file"), []string{good}),
		click(chromedp.CSS(`[data-testid=import]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=export-csv]`)),
	))
	flash, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=flash]`)))
	count, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=org-count]`)))
	if !strings.Contains(flash, "2 organisations were imported") || !strings.Contains(count, "2 organisations") {
		t.Fatalf("flash %q, count %q", flash, count)
	}
	// The download link carries the list's filters; fetch it with the
	// browser's own session.
	href, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=export-csv]").href`))
	csv, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(`+strconv.Quote(href)+`).then(r => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.Contains(csv, ",North Bank,") || !strings.Contains(csv, ",South Bank,") {
		t.Fatalf("export: %v %q", err, csv)
	}
}

// TestEndToEndSetActiveAsksFirst: on a Pending organisation that lacks
// what the checklist looks at, Set Active asks first; Cancel changes
// nothing, OK sets it Active.
func TestEndToEndSetActiveAsksFirst(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	createAcmeBank(t, ctx, base)
	msgs := answerDialogs(t, ctx, false, true)
	must(t, chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=onboarding]`)),
		click(chromedp.CSS(`[data-testid=set-status-Active]`)),
	))
	time.Sleep(500 * time.Millisecond) // the dialog is answered No; nothing is sent
	status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.tf-dl`)))
	if !strings.Contains(status, "Pending") {
		t.Fatalf("after Cancel: %q", status)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=set-status-Active]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid=onboarding]`)),
	))
	status, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.tf-dl`)))
	if !strings.Contains(status, "Active") || len(*msgs) != 2 || !strings.Contains((*msgs)[0], "no regulatory document in date") {
		t.Fatalf("after OK: %q, dialogs %q", status, *msgs)
	}
}
