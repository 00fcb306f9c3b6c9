package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// clickRowButton clicks the button labelled label in the row of
// rowSel whose text contains name.
func clickRowButton(t *testing.T, ctx context.Context, rowSel, name, label string) {
	t.Helper()
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const row = [...document.querySelectorAll(`+jsString(rowSel)+`)].find(r => r.textContent.includes(`+jsString(name)+`));
		const b = row && [...row.querySelectorAll("button")].find(b => b.textContent.trim() === `+jsString(label)+`);
		if (!b) return false;
		b.click();
		return true;
	})()`))
	if err != nil || !ok {
		t.Fatalf("no %q button in the row of %s (%v)", label, name, err)
	}
}

// orgPath is the path of the page shown (an organisation's after createAcmeBank).
func orgPath(t *testing.T, ctx context.Context) string {
	t.Helper()
	p, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	must(t, err)
	return p
}

// TestEndToEndRefusalsAreShown: every refusal the server renders reaches
// the page (issue 13, point 1): a duplicate contact type name, deleting a
// contact type in use (with what is in the way as a list), a duplicate
// Data Administrator invite, disabling and deleting a certification type
// an active application holds (each record in the way named as a person
// knows it, not by id); a stale field error goes once the field
// changes; a request that never reaches the server says so.
func TestEndToEndRefusalsAreShown(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	answerDialogs(t, ctx, true, true, true, true, true, true)

	// A duplicate name: 409, shown beside the field.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/contact-types/new"),
		chromedp.WaitVisible(chromedp.ID("f-Name")),
		chromedp.SendKeys(chromedp.ID("f-Name"), "Business"),
	))
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__marker = 1; true`))
	must(t, err)
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`form[data-testid=new-item-form] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-Name]`)),
	))
	// htmx swapped the refusal in (no page load).
	if m, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__marker || 0`)); m != 1 {
		t.Fatal("the refusal was not shown by htmx")
	}
	if msg := text(t, ctx, `[data-testid=error-Name]`); !strings.Contains(msg, "Business") {
		t.Fatalf("duplicate contact type: %q", msg)
	}
	// The stale message goes when the field changes.
	must(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("f-Name"), " partner"),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid=error-Name]`)),
	))
	invalid, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("f-Name").hasAttribute("aria-invalid")`))
	if invalid {
		t.Fatal("the changed field is still marked invalid")
	}

	// A contact type in use: 409 with the contact in the way.
	createAcmeBank(t, ctx, base)
	org := orgPath(t, ctx)
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org+"/contacts/new"),
		chromedp.WaitVisible(chromedp.ID("f-LastName")),
		chromedp.SetValue(chromedp.ID("f-ContactType"), "Business"),
		chromedp.SendKeys(chromedp.ID("f-LastName"), "Adams"),
		chromedp.SendKeys(chromedp.ID("f-EmailAddress"), "adams@acme.example"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=contact-row]`)),
		chromedp.Navigate(base+"/references/contact-types"),
		click(chromedp.CSS(`[data-testid=delete-Business]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=in-the-way]`)),
	))
	// The contact by name and e-mail, its organisation by name (linked to
	// its Contacts tab), no ids.
	if got := text(t, ctx, `[data-testid=in-the-way]`); !strings.Contains(got, "Acme Bank — Adams, adams@acme.example") || strings.Contains(got, "ContactId") {
		t.Fatalf("in the way: %q", got)
	}
	if href, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=in-the-way-link]").getAttribute("href")`)); href != org+"/contacts" {
		t.Fatalf("in the way links to %q, want %s/contacts", href, org)
	}
	checkAccessibility(t, ctx, "contact type in use")

	// A certification type an active application holds: disabling and
	// deleting it are refused with the application named.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org+"/softwarestatements/new"),
		chromedp.WaitVisible(chromedp.ID("f-ClientName")),
		chromedp.SendKeys(chromedp.ID("f-ClientName"), "Payments app"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=application-certifications]`)),
		click(chromedp.CSS(`[data-testid=application-certifications]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=add-certification]`)),
		click(chromedp.CSS(`[data-testid=add-certification]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=certification-form]`)),
		chromedp.SetValue(chromedp.ID("f-CertificationType"), "FAPI"),
		chromedp.SetValue(chromedp.ID("f-CertificationStartDate"), "2026-05-01"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=certification-row]`)),
		chromedp.Navigate(base+"/references/certification-types"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=reference-items]`)),
	))
	clickRowButton(t, ctx, `[data-testid=reference-row]`, "FAPI", "Disable")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=in-the-way]`))))
	if got := text(t, ctx, `[data-testid=in-the-way]`); !strings.Contains(got, "Acme Bank — FAPI of the application Payments app") {
		t.Fatalf("disable FAPI, in the way: %q", got)
	}
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/certification-types"),
		click(chromedp.CSS(`[data-testid=delete-FAPI]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=in-the-way]`)),
	))
	if got := text(t, ctx, `[data-testid=in-the-way]`); !strings.Contains(got, "Acme Bank — FAPI of the application Payments app") {
		t.Fatalf("delete FAPI, in the way: %q", got)
	}

	// Inviting the same Data Administrator twice.
	invite := func() {
		must(t, chromedp.Do(ctx,
			chromedp.Navigate(base+"/references/data-administrators/new"),
			chromedp.WaitVisible(chromedp.ID("da-email")),
			chromedp.SendKeys(chromedp.ID("da-email"), "dana@example.com"),
			click(chromedp.CSS(`[data-testid=save]`)),
		))
	}
	invite()
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=data-administrator-row]`))))
	invite()
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tf-field-error`))))
	if got := text(t, ctx, `.tf-field-error`); !strings.Contains(got, "dana@example.com") {
		t.Fatalf("second invitation: %q", got)
	}

	// Someone else saves the organisation while it is being edited: 412,
	// shown, at the form's address.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org+"/edit"),
		chromedp.WaitVisible(chromedp.ID("f-OrganisationName")),
	))
	st, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch(`+jsString(org)+`, {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"},
		body: new URLSearchParams({OrganisationName: "Acme Bank Ltd", RegistrationNumber: "12345678", CountryOfRegistration: "GB", Status: "Pending"})}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil || st != 200 {
		t.Fatalf("the other save: %d %v", st, err)
	}
	must(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("f-OrganisationName"), " plc"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=stale]`)),
	))
	if p := orgPath(t, ctx); p != org+"/edit" {
		t.Fatalf("the stale page moved the address to %s", p)
	}
	if who := text(t, ctx, `[data-testid=current-user]`); who != "admin@example.com" {
		t.Fatalf("the refusal page lost the signed-in header: %q", who)
	}
	checkAccessibility(t, ctx, "changed by someone else")

	// A server error (5xx) is not swapped in: the flash says the server
	// failed, and the form stays as typed.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/contact-types/new"),
		chromedp.WaitVisible(chromedp.ID("f-Name")),
	))
	failServer(t, ctx, base+"/references/contact-types")
	must(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("f-Name"), "Escalation"),
		click(chromedp.CSS(`form[data-testid=new-item-form] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash].tf-flash-error`)),
	))
	if got := text(t, ctx, `[data-testid=flash]`); !strings.Contains(got, "The server failed (500)") {
		t.Fatalf("server error: %q", got)
	}
	must(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.Disable, cdp.Empty{})
		return err
	})))

	// A request that cannot reach the server says so, and the form stays.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/contact-types/new"),
		chromedp.WaitVisible(chromedp.ID("f-Name")),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{{URLPattern: base + "/references/contact-types", Block: true}}})
			return err
		}),
		chromedp.SendKeys(chromedp.ID("f-Name"), "Escalation"),
		click(chromedp.CSS(`form[data-testid=new-item-form] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash].tf-flash-error`)),
	))
	if got := text(t, ctx, `[data-testid=flash]`); !strings.Contains(got, "could not reach") {
		t.Fatalf("network failure: %q", got)
	}
	time.Sleep(100 * time.Millisecond)
	if v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-Name").value`)); v != "Escalation" {
		t.Fatalf("the typed name is gone: %q", v)
	}
}

// flashOf is the flash's text and its kind (success, warning, error).
func flashOf(t *testing.T, ctx context.Context) (string, string) {
	t.Helper()
	cls, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("flash").className`))
	kind := ""
	for _, c := range strings.Fields(cls) {
		if k, ok := strings.CutPrefix(c, "tf-flash-"); ok {
			kind = k
		}
	}
	return text(t, ctx, `[data-testid=flash]`), kind
}

// TestEndToEndFeedbackSaysWhatHappened (issue 13, point 7): a refusal is
// an error, not a green success; a status change says what it did; a
// flash is said once (not again after sorting the table under it); signing
// out says so.
func TestEndToEndFeedbackSaysWhatHappened(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	answerDialogs(t, ctx, true, true, true, true)

	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/super-users"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=super-user-row]`)),
	))
	// The last Super User's Deactivate is disabled, the reason beside it
	// (issue 40); sent all the same (a page shown before another Super
	// User left), the refusal is an error.
	if why := text(t, ctx, `[data-testid=super-user-row] [data-testid=refused-reason]`); !strings.Contains(why, "only Active Super User") {
		t.Fatalf("the disabled Deactivate says %q", why)
	}
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const f = document.querySelector("[data-testid=super-user-row] form");
		const b = f.querySelector("button[disabled]");
		b.disabled = false; b.type = "submit";
		f.insertAdjacentHTML("beforeend", '<input type="hidden" name="Status" value="Inactive">');
		b.click();
		return true;
	})()`))
	must(t, err)
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash].tf-flash-error`))))
	if msg, kind := flashOf(t, ctx); kind != "error" || !strings.Contains(msg, "Not changed") || !strings.Contains(msg, "last Active Super User") {
		t.Fatalf("refusal shown as %s: %q", kind, msg)
	}
	checkAccessibility(t, ctx, "refusal flash")

	createAcmeBank(t, ctx, base)
	if msg, kind := flashOf(t, ctx); kind != "success" || msg != "Acme Bank was added." {
		t.Fatalf("after create: %s %q", kind, msg)
	}
	org := orgPath(t, ctx)
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org+"/contacts/new"),
		chromedp.WaitVisible(chromedp.ID("f-LastName")),
		chromedp.SendKeys(chromedp.ID("f-LastName"), "Adams"),
		chromedp.SendKeys(chromedp.ID("f-EmailAddress"), "adams@acme.example"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=contact-row]`)),
	))
	if msg, _ := flashOf(t, ctx); !strings.Contains(msg, "Contact Adams was added.") {
		t.Fatalf("after the contact: %q", msg)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=sort-ContactType]`)),
		chromedp.WaitVisible(chromedp.CSS(`th[aria-sort=ascending] [data-testid=sort-ContactType]`)),
	))
	if msg, _ := flashOf(t, ctx); msg != "" {
		t.Fatalf("the flash is said again after sorting: %q", msg)
	}

	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org),
		click(chromedp.CSS(`[data-testid=set-status-Withdrawn]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash]:not(:empty)`)),
	))
	if msg, kind := flashOf(t, ctx); kind != "success" || msg != "Acme Bank was withdrawn." {
		t.Fatalf("after Withdrawn: %s %q", kind, msg)
	}

	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=sign-out]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`)),
	))
	if msg, _ := flashOf(t, ctx); !strings.Contains(msg, "You signed out") {
		t.Fatalf("after sign-out: %q", msg)
	}
	checkAccessibility(t, ctx, "signed out")
	must(t, chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`))))
	if msg, _ := flashOf(t, ctx); msg != "" {
		t.Fatalf("the sign-out message is said twice: %q", msg)
	}
}

// TestEndToEndReactivation (issue 13, point 11): a Super User sets a
// withdrawn organisation back to Active from its page, after a
// confirmation naming what it affects and with a reason that the audit log
// keeps; a Data Administrator is not offered it and is refused the page.
func TestEndToEndReactivation(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	msgs := answerDialogs(t, ctx, true, true, true, true, true)
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/data-administrators/new"),
		chromedp.SendKeys(chromedp.ID("da-email"), "dana@example.com"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=data-administrator-row]`)),
	))
	createAcmeBank(t, ctx, base)
	org := orgPath(t, ctx)
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=set-status-Withdrawn]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=reactivate-link]`)),
		click(chromedp.CSS(`[data-testid=reactivate-link]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=reactivate-form]`)),
	))
	checkAccessibility(t, ctx, "reactivation")
	if got := text(t, ctx, `[data-testid=reactivation-affects]`); !strings.Contains(got, "participants list") {
		t.Fatalf("affects %q", got)
	}
	// No reason: refused beside the field, still Withdrawn.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=reactivate]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-StatusReason]`)),
		chromedp.SendKeys(chromedp.ID("f-StatusReason"), "Withdrawn by mistake, ticket 42"),
		click(chromedp.CSS(`[data-testid=reactivate]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-name]`)),
	))
	if msg, kind := flashOf(t, ctx); kind != "success" || !strings.Contains(msg, "Acme Bank was reactivated") {
		t.Fatalf("after reactivation: %s %q", kind, msg)
	}
	if status := text(t, ctx, `.tf-dl [data-testid=status]`); status != "Active" {
		t.Fatalf("status %q", status)
	}
	// Asked twice: Withdraw, then the reactivation with its reason — not
	// before the reactivation without one, which the server refuses
	// (issue 40).
	if len(*msgs) != 2 || !strings.Contains((*msgs)[1], "Set Acme Bank back to Active?") || !strings.Contains((*msgs)[1], "participants list") {
		t.Fatalf("confirmations %q", *msgs)
	}
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/audit?Action=reactivate"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit]`)),
	))
	if got := text(t, ctx, `[data-testid=audit] tbody`); !strings.Contains(got, "reason: Withdrawn by mistake, ticket 42") {
		t.Fatalf("audit %q", got)
	}

	// A Data Administrator: withdrawn again, no way back.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org),
		click(chromedp.CSS(`[data-testid=set-status-Withdrawn]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=reactivate-link]`)),
		click(chromedp.CSS(`[data-testid=sign-out]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`)),
	))
	signIn(t, ctx, base, "dana@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=reactivate-note]`)),
	))
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+org+"/reactivate"))
	if err != nil || resp.Status != 403 {
		t.Fatalf("a Data Administrator opens the reactivation: %v %v", resp, err)
	}
}

// TestEndToEndNoDoubleSubmit (issue 13, point 2): a double-click on Save
// makes one organisation (the button is disabled while the request runs);
// a form sent twice anyway carries the same key, and the server answers
// the second with the first result; a second organisation with the same
// registration number and country is created with a warning.
func TestEndToEndNoDoubleSubmit(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	count := func(q string) string {
		t.Helper()
		must(t, chromedp.Do(ctx,
			chromedp.Navigate(base+"/organisations?q="+q),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=org-count]`)),
		))
		return text(t, ctx, `[data-testid=org-count]`)
	}
	fill := func(name, number string) {
		must(t, chromedp.Do(ctx,
			chromedp.Navigate(base+"/organisations/new"),
			chromedp.WaitVisible(chromedp.ID("f-OrganisationName")),
			chromedp.SendKeys(chromedp.ID("f-OrganisationName"), name),
			chromedp.SendKeys(chromedp.ID("f-RegistrationNumber"), number),
			chromedp.SendKeys(chromedp.ID("f-CountryOfRegistration"), "GB"),
		))
	}

	fill("Acme Bank", "12345678")
	disabled, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const b = document.querySelector("[data-testid=save]");
		b.click();
		const busy = b.disabled;
		b.click();
		return busy;
	})()`))
	must(t, err)
	if !disabled {
		t.Error("Save is not disabled while the request runs")
	}
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-name]`))))
	time.Sleep(500 * time.Millisecond)
	if got := count("Acme"); !strings.Contains(got, "1 organisation") {
		t.Fatalf("double-click: %q", got)
	}

	// Sent twice all the same (the button bypassed): one organisation.
	fill("Beta Bank", "87654321")
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const f = document.querySelector("form[data-testid=organisation-form]") || document.getElementById("f-OrganisationName").form;
		f.requestSubmit();
		f.requestSubmit();
		return true;
	})()`))
	must(t, err)
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-name]`))))
	time.Sleep(500 * time.Millisecond)
	if got := count("Beta"); !strings.Contains(got, "1 organisation") {
		t.Fatalf("sent twice: %q", got)
	}

	// Same registration number and country: created, with a warning.
	fill("Acme Bank plc", "12345678")
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash].tf-flash-warning`)),
	))
	if msg, _ := flashOf(t, ctx); !strings.Contains(msg, "already has registration number 12345678") {
		t.Fatalf("warning %q", msg)
	}
	checkAccessibility(t, ctx, "warning flash")
}

// TestEndToEndExpiredSessionKeepsTheForm (issue 13, point 3): a contact
// typed in while the session expired is not lost: Save leads to sign-in,
// then back to the form with what was typed and a message saying why.
func TestEndToEndExpiredSessionKeepsTheForm(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	createAcmeBank(t, ctx, base)
	org := orgPath(t, ctx)
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org+"/contacts/new"),
		chromedp.WaitVisible(chromedp.ID("f-LastName")),
		chromedp.SetValue(chromedp.ID("f-ContactType"), "Technical"),
		chromedp.SendKeys(chromedp.ID("f-FirstName"), "Ada"),
		chromedp.SendKeys(chromedp.ID("f-LastName"), "Lovelace"),
		chromedp.SendKeys(chromedp.ID("f-EmailAddress"), "ada@acme.example"),
		// The session expires.
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, network.DeleteCookies, network.DeleteCookiesParams{Name: "trustframe_session", URL: base + "/"})
			return err
		}),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=dev-idp-banner]`)),
		chromedp.SetValue(chromedp.ID("email"), "admin@example.com"),
		click(chromedp.CSS(`[data-testid=dev-sign-in]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash].tf-flash-warning`)),
	))
	if p := orgPath(t, ctx); p != org+"/contacts/new" {
		t.Fatalf("after sign-in at %s", p)
	}
	if msg, _ := flashOf(t, ctx); !strings.Contains(msg, "session had expired") {
		t.Fatalf("flash %q", msg)
	}
	for id, want := range map[string]string{"f-ContactType": "Technical", "f-FirstName": "Ada", "f-LastName": "Lovelace", "f-EmailAddress": "ada@acme.example"} {
		if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("`+id+`").value`)); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	checkAccessibility(t, ctx, "form back after sign-in")
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=contact-row]`)),
	))
	if row := text(t, ctx, `[data-testid=contact-row]`); !strings.Contains(row, "Lovelace") {
		t.Fatalf("contact row %q", row)
	}
}

// TestEndToEndWizards (issue 13, point 9): the Add document page (one page,
// issue 40) asks for the type with the details and its messages use the
// labels' words; the certificate
// wizard says so when Next is pressed without a type; after Review, Back
// and Forward show pages again without "Confirm Form Resubmission" (the
// review is a GET after a redirect).
func TestEndToEndWizards(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	startDocumentWizard(t, ctx, base)
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("select[name=DocumentType], .tf-steps").length`)); n != 1 {
		t.Fatalf("%d type fields and steps: the page is not one form with the type", n)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-DocumentType").value`)); got != "Licence" {
		t.Fatalf("the chosen type is %q", got)
	}
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-DocumentStartDate"), "2027-01-01"),
		chromedp.SetValue(chromedp.ID("f-DocumentExpiryDate"), "2026-01-01"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-DocumentExpiryDate]`)),
	))
	if msg := text(t, ctx, `[data-testid=error-DocumentExpiryDate]`); !strings.Contains(msg, "expiry date") || strings.Contains(msg, "end date") {
		t.Fatalf("expiry message %q", msg)
	}
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-DocumentExpiryDate"), "2028-01-01"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=document-row]`)),
	))
	if row := text(t, ctx, `[data-testid=document-row]`); !strings.Contains(row, "Licence") {
		t.Fatalf("document row %q", row)
	}

	org := orgPath(t, ctx)
	org = strings.TrimSuffix(org, "/documents")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org+"/certificates/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=wizard-type]`)),
		click(chromedp.CSS(`[data-testid=next]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=wizard-type] .tf-field-error`)),
	))
	if msg := text(t, ctx, `[data-testid=wizard-type] .tf-field-error`); !strings.Contains(msg, "Choose") {
		t.Fatalf("Next without a type: %q", msg)
	}
	checkAccessibility(t, ctx, "certificate wizard without a type")
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=type-qseal]`)),
		click(chromedp.CSS(`[data-testid=next]`)),
		chromedp.WaitVisible(chromedp.ID("f-PEM")),
		chromedp.SetValue(chromedp.ID("f-PEM"), webtest.ValidCert(t, "p256", "seal.acme.example")),
		click(chromedp.CSS(`[data-testid=review]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=review-details]`)),
	))
	// Back to the upload step, Forward to the review: no form is sent again.
	must(t, chromedp.Do(ctx, chromedp.NavigateBack(), chromedp.WaitVisible(chromedp.ID("f-PEM"))))
	must(t, chromedp.Do(ctx, chromedp.NavigateForward(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=review-details]`))))
	method, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	if !strings.HasSuffix(method, "/certificates/new/review") {
		t.Fatalf("review at %s", method)
	}
	if review := text(t, ctx, `[data-testid=review-details]`); !strings.Contains(review, "seal.acme.example") {
		t.Fatalf("review after Forward: %q", review)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=confirm-upload]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=certificate-row]`)),
	))
}

// failServer answers every request to url with a 500, as a broken server
// would, until the Fetch domain is disabled.
func failServer(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	lctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	paused := chromedp.Events(lctx, fetch.RequestPaused)
	go func() {
		for e, err := range paused {
			if err != nil {
				return
			}
			go chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: e.RequestID, ResponseCode: 500, Body: []byte("Internal error")})
				return err
			}))
		}
	}()
	must(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: url}}})
		return err
	})))
}
