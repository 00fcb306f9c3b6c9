package main

import (
	"context"
	_ "embed"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

//go:embed testdata/axe.min.js
var axeSource string

// browserPath finds Debian's Chromium; .ci/test installs it when missing.
func browserPath(t *testing.T) string {
	for _, p := range []string{os.Getenv("TRUSTFRAME_CHROME"), "chromium-headless-shell", "chromium", "chrome-headless-shell", "google-chrome"} {
		if p == "" {
			continue
		}
		if full, err := exec.LookPath(p); err == nil {
			return full
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium found; .ci/test installs chromium-headless-shell")
	}
	// Outside CI a developer may run `go test ./...` without the browser:
	// the README's test command installs it and runs this test.
	t.Skip("no Chromium on PATH (bash .ci/test installs it)")
	return ""
}

// dumpPageOnFailure logs where a failed browser test stood: the URL and
// the page's main element (else its body). A step that waits for
// something that never comes ends in "context deadline exceeded" and
// says nothing else.
func dumpPageOnFailure(t *testing.T, tab context.Context) {
	if !t.Failed() {
		return
	}
	ctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Logf("the page at failure could not be read: %v", err)
		return
	}
	html, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("main") || document.body).outerHTML`))
	if err != nil {
		t.Logf("the page at failure (%s) could not be read: %v", loc, err)
		return
	}
	if len(html) > 6000 {
		html = html[:6000] + "…"
	}
	t.Logf("the page at failure: %s\n%s", loc, html)
}

// watchConsole fails the test on what the browser console reports as
// broken: uncaught exceptions and Content Security Policy violations (the
// CSP allows no inline script or style).
func watchConsole(t *testing.T, ctx context.Context) {
	t.Helper()
	var mu sync.Mutex
	var bad []string
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range chromedp.Console(wctx) {
			if err != nil {
				return
			}
			// htmx's own errors name the attribute at fault (hx-…): a
			// Cancel link inherited its form's hx-disabled-elt.
			if m.Type == chromedp.ConsoleException || strings.Contains(m.Text, "Content Security Policy") || m.Type == chromedp.ConsoleError && strings.Contains(m.Text, "hx-") {
				mu.Lock()
				bad = append(bad, string(m.Type)+": "+m.Text)
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		stop()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bad {
			t.Errorf("browser console: %s", b)
		}
	})
}

type axeResult struct {
	Violations []struct {
		ID     string `json:"id"`
		Impact string `json:"impact"`
		Help   string `json:"help"`
		Nodes  []struct {
			Target []any `json:"target"`
		} `json:"nodes"`
	} `json:"violations"`
}

// TestEndToEndInviteDataAdministrator is the foundation's story in a real
// browser: the bootstrap Super User invites a Data Administrator, who signs
// in, sees Organisations but no Reference Data, and is refused Reference Data.
func TestEndToEndInviteDataAdministrator(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)

	signIn(t, ctx, base, "admin@example.com")
	checkAccessibility(t, ctx, "home")
	err := chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=nav-reference-data]`)),
		click(chromedp.CSS(`[data-testid=ref-data-administrators]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=new-data-administrator]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	checkAccessibility(t, ctx, "data administrators")
	err = chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=new-data-administrator]`)),
		chromedp.WaitVisible(chromedp.ID("da-email")),
	)
	if err != nil {
		t.Fatal(err)
	}
	checkAccessibility(t, ctx, "new data administrator")
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("da-email"), "dana@example.com"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=data-administrator-row]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	row, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=data-administrator-row]`)))
	flash, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=flash]`)))
	if !strings.Contains(row, "dana@example.com") || !strings.Contains(row, "Invited") {
		t.Fatalf("row %q", row)
	}
	if !strings.Contains(flash, "dana@example.com") {
		t.Fatalf("flash %q", flash)
	}
	if shot := os.Getenv("TRUSTFRAME_SCREENSHOT"); shot != "" {
		b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			_ = os.WriteFile(shot, b, 0o644)
		}
	}

	// Sign out, sign in as dana.
	if err := chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=sign-out]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`))); err != nil {
		t.Fatal(err)
	}
	signIn(t, ctx, base, "dana@example.com")
	navRef, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=nav-reference-data]").length`))
	if err != nil || navRef != 0 {
		t.Fatalf("a Data Administrator sees Reference Data (%d, %v)", navRef, err)
	}
	if err := chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=nav-organisations]`)), chromedp.WaitVisible(chromedp.CSS(`h1`))); err != nil {
		t.Fatal(err)
	}
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+"/references/data-administrators"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 403 {
		t.Fatalf("Reference Data URL answered %d to a Data Administrator", resp.Status)
	}
	detail, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=error-detail]`)))
	if !strings.Contains(detail, "Super Users") {
		t.Fatalf("403 page says %q", detail)
	}
}
