package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestEndToEndWebhooks: a Super User adds a webhook in Reference Data,
// sees its secret once, makes a change, sees the delivery in the log of
// the webhook's page, and presses Redeliver: the receiver gets the same
// message again.
func TestEndToEndWebhooks(t *testing.T) {
	var mu sync.Mutex
	var ids []string
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		mu.Lock()
		ids = append(ids, r.Header.Get("webhook-id"))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.Close)
	received := func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), ids...) }

	ctx := newBrowser(t)
	base, _ := startProgram(t, "--allow-private-webhook-urls")
	signIn(t, ctx, base, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references"),
		click(chromedp.CSS(`[data-testid=ref-webhooks]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=empty]`)),
		click(chromedp.CSS(`[data-testid=new-item]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=new-item-form]`)),
	))
	// Each subject type's words and its API name beside them do not overlap
	// (Pico's "input + small" rule made the name a block pulled up over the
	// words, the text between them being no element).
	overlaps, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("[data-testid=subject-types] label")].filter(l => {
		const words = document.createRange();
		words.selectNodeContents(l);
		words.setEndBefore(l.querySelector("small"));
		const a = words.getBoundingClientRect(), b = l.querySelector("small").getBoundingClientRect();
		return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
	}).map(l => l.textContent.trim())`))
	if err != nil || len(overlaps) > 0 {
		t.Fatalf("subject types whose API name covers their words: %q (%v)", overlaps, err)
	}
	must(t, chromedp.Do(ctx,
		// Nothing chosen: refused beside the fields, what was typed kept.
		chromedp.SendKeys(chromedp.ID("f-Url"), rc.URL+"/hook"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-SubjectTypes]`)),
		click(chromedp.CSS(`input[name=SubjectTypes][value=SuperUser]`)),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=webhook-secret]`)),
	))
	secret, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=webhook-secret]`)))
	if !strings.HasPrefix(secret, "whsec_") || len(secret) < 40 {
		t.Fatalf("secret %q", secret)
	}
	checkAccessibility(t, ctx, "webhook created")
	page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("form[data-testid=webhook-edit-form]").action`))
	// Shown once: the page read again has no secret.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(page),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=no-deliveries]`)),
	))
	if html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerHTML`)); strings.Contains(html, secret) {
		t.Fatal("the secret is shown again")
	}

	// A change of the subject type: a new Super User.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/super-users/new"),
		chromedp.SendKeys(chromedp.ID("su-email"), "hooked@example.com"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=super-user-row]`)),
	))
	deadline := time.Now().Add(15 * time.Second)
	for len(received()) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("nothing delivered")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The log on the webhook's page (reload until the deliverer has written it).
	var status string
	for deadline = time.Now().Add(10 * time.Second); !strings.Contains(status, "Delivered"); {
		if time.Now().After(deadline) {
			t.Fatalf("delivery status %q", status)
		}
		must(t, chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(`[data-testid=delivery-row]`))))
		status, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=delivery-status]`)))
	}
	code, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=delivery-code]`)))
	row, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=delivery-row]`)))
	if !strings.Contains(code, "200") || !strings.Contains(row, "SuperUser.create") || !strings.Contains(row, "hooked@example.com") {
		t.Fatalf("delivery row %q (code %q)", row, code)
	}
	checkAccessibility(t, ctx, "webhook with deliveries")
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=redeliver]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash]`)),
	))
	flash, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=flash]`)))
	if !strings.Contains(flash, "queued again") {
		t.Fatalf("flash %q", flash)
	}
	for deadline = time.Now().Add(10 * time.Second); len(received()) < 2; {
		if time.Now().After(deadline) {
			t.Fatal("Redeliver sent nothing")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := received(); got[0] != got[1] {
		t.Fatalf("redelivered %s, first %s", got[1], got[0])
	}
}
