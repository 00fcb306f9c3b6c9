package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndConfirmationInThePage: a dangerous action asks in the page's
// own dialog, not the browser's confirm(): the question, a button saying
// what it does; Cancel (or Esc) leaves everything as it was with the focus
// back on the button; confirming does it (issue 40).
func TestEndToEndConfirmationInThePage(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	oid := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	api.call("POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Business","FirstName":"Ann","LastName":"Doe","EmailAddress":"ann@acme.example"}`, 201)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/organisations/"+oid+"/contacts"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=contact-row]`)),
	))
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.tfAsked = 0; window.confirm = function(){ window.tfAsked++; return true; }; true`))
	must(t, err)
	del := `[data-testid=contact-row] button[data-confirm]`
	must(t, chromedp.Do(ctx, click(chromedp.CSS(del)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-dialog]`))))
	if q := text(t, ctx, `[data-testid=confirm-dialog] [data-confirm-text]`); q != "Delete the contact Ann Doe?" {
		t.Fatalf("asked %q", q)
	}
	if ok := text(t, ctx, `[data-testid=confirm-ok]`); ok != "Delete" {
		t.Fatalf("the confirming button says %q", ok)
	}
	checkAccessibility(t, ctx, "the confirmation")
	must(t, chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=confirm-cancel]`)), chromedp.WaitNotVisible(chromedp.CSS(`[data-testid=confirm-dialog]`))))
	time.Sleep(300 * time.Millisecond)
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=contact-row]").length`)); n != 1 {
		t.Fatalf("cancelled, %d contacts", n)
	}
	if f := focused(ctx); !strings.Contains(f, "Delete") {
		t.Fatalf("focus after Cancel on %s", f)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(del)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-dialog]`)),
		click(chromedp.CSS(`[data-testid=confirm-ok]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=empty]`)),
	))
	if asked, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.tfAsked || 0`)); asked != 0 {
		t.Fatalf("the browser's confirm() was called %d times", asked)
	}
}

// TestEndToEndRowWithdrawAsksInThePage: a row's dangerous action (the
// documents table's Withdraw) goes through the page's confirmation, as
// every danger zone's does: Cancel leaves the document Active, confirming
// withdraws it (issue 40: it withdrew at once).
func TestEndToEndRowWithdrawAsksInThePage(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	oid := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	api.call("POST", "/organisations/"+oid+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"L-1","DocumentStartDate":"2026-01-01"}`, 201)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	withdraw := `[data-testid=withdraw-document]`
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/organisations/"+oid+"/documents"),
		chromedp.WaitVisible(chromedp.CSS(withdraw)),
		click(chromedp.CSS(withdraw)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-dialog]`)),
	))
	if q := text(t, ctx, `[data-testid=confirm-dialog] [data-confirm-text]`); !strings.Contains(q, "Withdraw the Licence document L-1?") {
		t.Fatalf("asked %q", q)
	}
	must(t, chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=confirm-cancel]`)), chromedp.WaitNotVisible(chromedp.CSS(`[data-testid=confirm-dialog]`))))
	time.Sleep(300 * time.Millisecond)
	if st := text(t, ctx, `[data-testid=document-row] [data-testid=status]`); st != "Active" {
		t.Fatalf("cancelled, the document is %q", st)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(withdraw)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-dialog]`)),
		click(chromedp.CSS(`[data-testid=confirm-ok]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=reactivate-document]`)),
	))
}
