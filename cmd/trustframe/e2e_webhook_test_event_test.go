package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestEndToEndWebhookSendTestEvent: on a phone-wide window a Super User
// adds a webhook, reaches Send test event from the keyboard and presses
// it; the page says the test is queued, and its delivery log, reloading
// itself, shows the delivery Delivered with the receiver's status code.
// The receiver got exactly one message, a Webhook.test.
func TestEndToEndWebhookSendTestEvent(t *testing.T) {
	var mu sync.Mutex
	var types []string
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Type string `json:"type"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		types = append(types, body.Type)
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(rc.Close)
	received := func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), types...) }

	ctx := newBrowser(t)
	base, _ := startProgram(t, "--allow-private-webhook-urls")
	signIn(t, ctx, base, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(375, 812),
		chromedp.Navigate(base+"/references/webhooks/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=new-item-form]`)),
		chromedp.SendKeys(chromedp.ID("f-Url"), rc.URL+"/hook"),
		click(chromedp.CSS(`input[name=SubjectTypes][value=Organisation]`)),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=webhook-secret]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=no-deliveries]`)),
	))
	if !visible(t, ctx, `[data-testid=send-test]`) {
		t.Fatal("Send test event is not on screen at 375 px")
	}
	if over, _ := chromedp.Run(ctx, chromedp.Evaluate[string](overflowing)); over != "" {
		t.Fatalf("the webhook's page is wider than 375 px: %s", over)
	}
	// From the keyboard: focus the button, Enter.
	must(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=send-test]`))))
	if f, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.dataset.testid || ""`)); f != "send-test" {
		t.Fatalf("Send test event takes no focus (focus on %q)", f)
	}
	must(t, chromedp.Do(ctx,
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash]`)),
	))
	flash, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=flash]`)))
	if !strings.Contains(flash, "Test event queued") {
		t.Fatalf("flash %q", flash)
	}
	// The log reloads itself: no navigation from here.
	var status string
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(status, "Delivered"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the log still says %q (received %v)", status, received())
		}
		status, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("[data-testid=delivery-status]")||{}).textContent||""`))
	}
	code, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=delivery-code]`)))
	row, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=delivery-row]`)))
	if !strings.Contains(code, "202") || !strings.Contains(row, "Webhook.test") {
		t.Fatalf("delivery row %q (code %q)", row, code)
	}
	if got := received(); len(got) != 1 || got[0] != "Webhook.test" {
		t.Fatalf("the receiver got %v, want one Webhook.test", got)
	}
	checkAccessibility(t, ctx, "webhook page with a test delivery at 375 px")
	if dir := os.Getenv("TRUSTFRAME_SCREENSHOT_DIR"); dir != "" {
		if b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "phone-webhook-test-event.png"), b, 0o644)
		}
	}
}
