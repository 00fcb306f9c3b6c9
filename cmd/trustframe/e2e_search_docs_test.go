package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// quickFind types q into the header's quick find and presses Enter.
func quickFind(t *testing.T, ctx context.Context, q string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("[data-testid=quick-search] input[name=q]").value = ""; true`))
	must(t, err)
	// "/" goes to the search box, as a person would.
	must(t, chromedp.Do(ctx, chromedp.KeyEvent("/"), chromedp.KeyEvent(q+"\r")))
}

// TestEndToEndSearchResults: the header's search with more than one match
// (issue 40). Organisations alone are listed by the organisation list,
// both of them, one click from each; names of several kinds give the
// results page, grouped by kind, whose links open what they name.
func TestEndToEndSearchResults(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	bank := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	pay := api.call("POST", "/organisations", `{"OrganisationName":"Acme Payments","RegistrationNumber":"87654321","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	api.call("POST", "/organisations", `{"OrganisationName":"Zeta","RegistrationNumber":"11112222","CountryOfRegistration":"GB"}`, 201)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=quick-search]`))))

	// Two organisations: the list of those two (the home page has no
	// organisation rows, so the rows are the new page's).
	quickFind(t, ctx, "acme")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-row]`))))
	rows := text(t, ctx, `[data-testid=organisations]`)
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=organisation-row]").length`)); n != 2 ||
		!strings.Contains(rows, "Acme Bank") || !strings.Contains(rows, "Acme Payments") || strings.Contains(rows, "Zeta") {
		t.Fatalf("%d rows: %q", n, rows)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=organisation-row] a[href="/organisations/`+pay+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=organisation-name]`)),
	))
	if name := text(t, ctx, `[data-testid=organisation-name]`); name != "Acme Payments" {
		t.Fatalf("opened %q", name)
	}

	// An application named Acme too: the results page, by kind.
	wallet := api.call("POST", "/organisations/"+bank+"/softwarestatements", `{"ClientName":"Acme Wallet"}`, 201)["SoftwareStatementId"].(string)
	quickFind(t, ctx, "acme")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=search-group]`))))
	checkAccessibility(t, ctx, "search results")
	results := text(t, ctx, `main`)
	for _, want := range []string{"Organisations", "Acme Bank", "Acme Payments", "Applications", "Acme Wallet"} {
		if !strings.Contains(results, want) {
			t.Fatalf("results page without %q: %q", want, results)
		}
	}
	if strings.Contains(results, "Zeta") {
		t.Fatalf("results page lists Zeta: %q", results)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=search-result] a[href="/organisations/`+bank+`/softwarestatements/`+wallet+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=application-certifications]`)),
	))
	waitURL(t, ctx, "/softwarestatements/"+wallet)
}

// withdrawDocument clicks the Withdraw of the documents table's first row
// and confirms when the page asks (an in-page confirmation), then waits
// for the row that can be made Active again: only the answer has it.
func withdrawDocument(t *testing.T, ctx context.Context) {
	t.Helper()
	must(t, chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=document-row] [data-testid=withdraw-document]`))))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){
			if (document.querySelector("[data-testid=reactivate-document]")) return "done";
			const ok = document.querySelector("[data-testid=confirm-ok]");
			if (ok && ok.offsetParent !== null) return "ask";
			return "";
		})()`))
		switch state {
		case "done":
			return
		case "ask":
			must(t, chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=confirm-ok]`))))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the document was never shown withdrawn")
}

// TestEndToEndDocumentWithdrawn: a document that expires soon is in "Needs
// attention"; Withdraw on the documents table (through the page's
// confirmation, when it asks) makes it Withdrawn, and the home page no
// longer lists it (issue 40).
func TestEndToEndDocumentWithdrawn(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	oid := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	soon := time.Now().UTC().AddDate(0, 0, 10).Format("2006-01-02")
	doc := api.call("POST", "/organisations/"+oid+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-777","DocumentExpiryDate":"`+soon+`"}`, 201)["DocumentId"].(string)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=expiring-document]`))))
	if row := text(t, ctx, `[data-testid=expiring-document]`); !strings.Contains(row, "FCA-777") {
		t.Fatalf("needs attention: %q", row)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=expiring-document] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=withdraw-document]`)),
	))
	withdrawDocument(t, ctx)
	if row := text(t, ctx, `[data-testid=document-row]`); !strings.Contains(row, "FCA-777") || !strings.Contains(row, "Withdrawn") {
		t.Fatalf("document row %q", row)
	}
	if got := api.call("GET", "/organisations/"+oid+"/documents/"+doc, "", 200)["Status"]; got != "Withdrawn" {
		t.Fatalf("status %v", got)
	}
	checkAccessibility(t, ctx, "a withdrawn document")
	must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=nothing-expiring]`))))
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=expiring-document]").length`)); n != 0 {
		t.Fatalf("the withdrawn document still needs attention (%d rows)", n)
	}
}

// TestEndToEndAcknowledgeNeedsAttention: Acknowledge on a home page item
// takes it off "Needs attention", says so, and leaves the document as it
// was (issue 40).
func TestEndToEndAcknowledgeNeedsAttention(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	oid := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	soon := time.Now().UTC().AddDate(0, 0, 10).Format("2006-01-02")
	doc := api.call("POST", "/organisations/"+oid+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-888","DocumentExpiryDate":"`+soon+`"}`, 201)["DocumentId"].(string)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=expiring-document] [data-testid=acknowledge]`))))
	if label, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=expiring-document] [data-testid=acknowledge]").getAttribute("aria-label")`)); label != "Acknowledge the Licence document of Acme Bank" {
		t.Fatalf("the button is labelled %q", label)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=expiring-document] [data-testid=acknowledge]`)),
		// Only the answer says nothing needs attention: the page before
		// listed the document.
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=nothing-expiring]`)),
	))
	if flash := text(t, ctx, `[data-testid=flash]`); !strings.Contains(flash, "Acknowledged") {
		t.Fatalf("flash %q", flash)
	}
	checkAccessibility(t, ctx, "home after an acknowledgement")
	// Reloaded, it stays off; the document itself is unchanged.
	must(t, chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=nothing-expiring]`))))
	if got := api.call("GET", "/organisations/"+oid+"/documents/"+doc, "", 200)["Status"]; got != "Active" {
		t.Fatalf("status %v", got)
	}
}
