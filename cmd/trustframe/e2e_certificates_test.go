package main

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndCertificates: upload a certificate through the wizard,
// revoke it, and read the Audit sub-tab with its filters.
func TestEndToEndCertificates(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)
	certPEM := webtest.ValidCert(t, "p256", "seal.acme.example")

	signIn(t, ctx, base, "admin@example.com")
	createAcmeBank(t, ctx, base)
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-certificates]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=upload-certificate]`)),
		click(chromedp.CSS(`[data-testid=upload-certificate]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=wizard-type]`)),
		click(chromedp.CSS(`[data-testid=type-qseal]`)),
		click(chromedp.CSS(`[data-testid=next]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=openssl]`)),
	))
	cmds, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=openssl]`)))
	if !strings.Contains(cmds, "openssl req -new -key qseal.key") {
		t.Fatalf("openssl commands: %q", cmds)
	}
	checkAccessibility(t, ctx, "certificate wizard")
	// A bad paste first: the message sits beside the field.
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-PEM"), "not a certificate"),
		click(chromedp.CSS(`[data-testid=review]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-PEM]`)),
		chromedp.SetValue(chromedp.ID("f-PEM"), certPEM),
		click(chromedp.CSS(`[data-testid=review]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=review-details]`)),
	))
	review, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=review-details]`)))
	if !strings.Contains(review, "seal.acme.example") {
		t.Fatalf("review: %q", review)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=confirm-upload]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=certificate-row]`)),
	))
	kid, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=certificate-kid]`)))
	if len(kid) != 43 {
		t.Fatalf("kid %q", kid)
	}
	// Revoke with a confirmation step.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=revoke]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=revoke-form]`)),
		chromedp.SetValue(chromedp.ID("reason"), "superseded"),
		click(chromedp.CSS(`[data-testid=confirm-revoke]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=certificate-row] [data-testid=status]`)),
	))
	status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=certificate-row] [data-testid=status]`)))
	if status != "Revoked" {
		t.Fatalf("status %q", status)
	}
	// The Audit sub-tab: filter by action revoke, clear the Action filter, filter by key ID.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=subtab-audit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit-filter]`)),
	))
	rows := func() int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=audit-row]").length`))
		must(t, err)
		return n
	}
	if rows() != 2 { // upload, revoke
		t.Fatalf("all events: %d", rows())
	}
	checkAccessibility(t, ctx, "certificate audit")
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-Action"), "revoke"),
		click(chromedp.CSS(`[data-testid=apply-filter]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=clear-action]`)),
	))
	if rows() != 1 {
		t.Fatalf("revoke filter: %d rows", rows())
	}
	act, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=audit-row]").dataset.action`))
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if act != "revoke" || !strings.Contains(loc, "Action=revoke") {
		t.Fatalf("filtered: %q at %s", act, loc)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=clear-action]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid=clear-action]`)),
	))
	if rows() != 2 {
		t.Fatalf("after clearing the Action filter: %d", rows())
	}
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-KeyId"), kid),
		click(chromedp.CSS(`[data-testid=apply-filter]`)),
	))
	waitURL(t, ctx, "KeyId=")
	loc, _ = chromedp.Run(ctx, chromedp.Location())
	if !strings.Contains(loc, "KeyId=") || rows() != 2 {
		t.Fatalf("key id filter: %d rows at %s", rows(), loc)
	}
	if dir := os.Getenv("TRUSTFRAME_SCREENSHOT_DIR"); dir != "" {
		if b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(dir+"/certificate-audit.png", b, 0o644)
		}
	}
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-KeyId"), "another-key-id"),
		click(chromedp.CSS(`[data-testid=apply-filter]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=empty]`)),
	))
}
