package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndOrgAdminDay is an Organisation Administrator's day in a
// real browser (docs/design.md §19): signed in through the development
// identity provider they land on their organisation, whose record they
// cannot change; they add a contact, create an application, upload a
// certificate, get the application's SSA, invite a colleague and
// deactivate them on the People tab, and read their organisation's audit
// log, where their changes are under their e-mail.
func TestEndToEndOrgAdminDay(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	su := &apiClient{t: t, url: base, tok: webtest.Token(t, base, "admin@example.com", nil).AccessToken}
	orgID := su.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"AB-1","CountryOfRegistration":"GB","Status":"Active"}`, 201)["OrganisationId"].(string)
	su.call("POST", "/organisations", `{"OrganisationName":"Other Bank","RegistrationNumber":"OB-1","CountryOfRegistration":"GB"}`, 201)
	// The operator invites Olga through the API (the People tab does the same).
	su.call("POST", "/organisations/"+orgID+"/administrators", `{"Email":"olga@acme.example"}`, 201)

	signIn(t, ctx, base, "olga@acme.example")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-name]`))))
	if got := text(t, ctx, `[data-testid=organisation-name]`); got != "Acme Bank" || orgPath(t, ctx) != "/organisations/"+orgID {
		t.Fatalf("landed on %q at %s, want their organisation", got, orgPath(t, ctx))
	}
	absent := func(page string, testids ...string) {
		t.Helper()
		for _, id := range testids {
			n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=`+id+`]").length`))
			must(t, err)
			if n != 0 {
				t.Errorf("%s: an Organisation Administrator sees %s", page, id)
			}
		}
	}
	absent("their organisation", "edit-organisation", "set-status-Withdrawn", "set-status-Pending", "nav-reference-data")
	checkAccessibility(t, ctx, "an Organisation Administrator's organisation")

	// A contact.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-contacts]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=new-contact]`)),
		click(chromedp.CSS(`[data-testid=new-contact]`)),
		chromedp.WaitVisible(chromedp.ID("f-LastName")),
		chromedp.SetValue(chromedp.ID("f-ContactType"), "Technical"),
		chromedp.SendKeys(chromedp.ID("f-LastName"), "Lovelace"),
		chromedp.SendKeys(chromedp.ID("f-EmailAddress"), "ada@acme.example"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=contact-row]`)),
	))
	if got := text(t, ctx, `[data-testid=contact-row]`); !strings.Contains(got, "ada@acme.example") {
		t.Fatalf("contact row %q", got)
	}

	// An application: its form shows no flag to tick (the end state is
	// theirs to choose: only leaving it is not).
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-applications]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=new-application]`)),
		click(chromedp.CSS(`[data-testid=new-application]`)),
		chromedp.WaitVisible(chromedp.ID("f-ClientName")),
	))
	absent("new application", "error-Flags")
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("input[type=checkbox][name=Flags]").length`)); n != 0 {
		t.Errorf("the application form offers flags to tick (%d)", n)
	}
	checkAccessibility(t, ctx, "an Organisation Administrator's application form")
	must(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("f-ClientName"), "Payments app"),
		chromedp.SendKeys(chromedp.ID("f-RedirectUri"), "https://tpp.acme.example/cb"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=application-name]`)),
	))
	absent("their application", "reactivate-link")

	// The SSA of their application.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=generate-ssa]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=ssa-token]`)),
	))
	if ssa := text(t, ctx, `[data-testid=ssa-token]`); strings.Count(ssa, ".") != 2 {
		t.Fatalf("SSA %q", ssa)
	}

	// A certificate, uploaded through the wizard.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/organisations/"+orgID),
		click(chromedp.CSS(`[data-testid=tab-certificates]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=upload-certificate]`)),
		click(chromedp.CSS(`[data-testid=upload-certificate]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=wizard-type]`)),
		click(chromedp.CSS(`[data-testid=type-qseal]`)),
		click(chromedp.CSS(`[data-testid=next]`)),
		chromedp.WaitVisible(chromedp.ID("f-PEM")),
		chromedp.SetValue(chromedp.ID("f-PEM"), webtest.ValidCert(t, "p256", "seal.acme.example")),
		click(chromedp.CSS(`[data-testid=review]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-upload]`)),
		click(chromedp.CSS(`[data-testid=confirm-upload]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=certificate-row]`)),
	))
	absent("their organisation's documents", "add-document")

	// Their People tab: they invite a colleague, whom they may deactivate
	// (after the page's confirmation); their own row has no button.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-people]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=invite-administrator]`)),
		click(chromedp.CSS(`[data-testid=invite-administrator]`)),
		chromedp.WaitVisible(chromedp.ID("oa-email")),
		chromedp.SendKeys(chromedp.ID("oa-email"), "omar@acme.example"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash]`)),
	))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("[data-testid=organisation-administrator-row]")].map(r =>
		r.querySelector("[data-testid=email]").textContent + "|" + r.querySelector("[data-testid=granted-by]").textContent + "|" + r.querySelectorAll("button").length)`))
	must(t, err)
	if got := strings.Join(rows, ", "); got != "olga@acme.example|invited by admin@example.com|0, omar@acme.example|invited by olga@acme.example|1" {
		t.Errorf("their People tab: %s", got)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=deactivate]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-dialog]`)),
		click(chromedp.CSS(`[data-testid=confirm-ok]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=reactivate]`)),
	))
	checkAccessibility(t, ctx, "an Organisation Administrator's People tab")

	// Their audit log: their organisation's records, their changes under
	// their e-mail.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=nav-audit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit-of]`)),
	))
	if got := text(t, ctx, `[data-testid=audit-of]`); got != "The records of Acme Bank." {
		t.Errorf("the audit log says %q", got)
	}
	log := text(t, ctx, `[data-testid=audit]`)
	for _, want := range []string{"olga@acme.example", "Payments app", "Lovelace", "omar@acme.example"} {
		if !strings.Contains(log, want) {
			t.Errorf("their audit log lacks %q: %s", want, log)
		}
	}
	if strings.Contains(log, "Other Bank") {
		t.Errorf("their audit log shows another organisation: %s", log)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=audit-filter] input[name=OrganisationId]:not([type=hidden])").length`)); n != 0 {
		t.Error("their audit log offers to type another organisation")
	}
	checkAccessibility(t, ctx, "an Organisation Administrator's audit log")
}
