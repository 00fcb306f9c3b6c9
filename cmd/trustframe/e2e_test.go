package main

import (
	"bufio"
	"context"
	_ "embed"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

//go:embed testdata/axe.min.js
var axeSource string

// startProgram runs the real program through run on 127.0.0.1:0 and
// returns its URL. The program stops when the test ends.
func startProgram(t *testing.T, extraArgs ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dataDir := t.TempDir()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, extraArgs...)
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("the server did not stop within 20 s of the signal")
		}
	})
	urlRe := regexp.MustCompile(`listening on (http://\S+)`)
	lines := bufio.NewScanner(pr)
	for lines.Scan() {
		if m := urlRe.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, pr)
			return m[1], dataDir
		}
	}
	t.Fatal("the program never said where it listens")
	return "", ""
}

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

func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return newBrowserFor(t, 4*time.Minute) // a safeguard, not a speed test: a loaded machine is slow
}

// newBrowserFor is newBrowser for a test that needs longer than 4 minutes.
func newBrowserFor(t *testing.T, limit time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browserPath(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	// The browser starts on the tab's own context: the first run's context
	// sets the browser's lifetime, and the test's time limit must not close
	// it before dumpPageOnFailure has read the page.
	tab := ctx
	stuck := time.AfterFunc(time.Minute, cancelA) // a browser that does not start is stopped
	err := chromedp.Do(tab)
	stuck.Stop()
	if err != nil {
		cancelC()
		cancelA()
		t.Fatalf("start browser: %v", err)
	}
	ctx, cancelT := context.WithTimeout(tab, limit)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	t.Cleanup(func() { dumpPageOnFailure(t, tab) }) // runs first: the tab is still open
	watchConsole(t, ctx)
	return ctx
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
			if m.Type == chromedp.ConsoleException || strings.Contains(m.Text, "Content Security Policy") {
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

// signIn goes through the real sign-in: start page, development identity
// provider form, callback.
func signIn(t *testing.T, ctx context.Context, base, email string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS(`[data-testid=sign-in]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=dev-idp-banner]`)),
		chromedp.SetValue(chromedp.ID("email"), email),
		chromedp.Click(chromedp.CSS(`[data-testid=dev-sign-in]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=current-user]`)),
	)
	if err != nil {
		t.Fatalf("sign in as %s: %v", email, err)
	}
	who, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=current-user]`)))
	if err != nil || who != email {
		t.Fatalf("signed in as %q (%v), want %s", who, err, email)
	}
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

// checkAccessibility runs axe-core on the current page and fails on
// serious or critical violations.
func checkAccessibility(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axeSource+";true")); err != nil {
		t.Fatalf("load axe: %v", err)
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[axeResult](`axe.run(document, {runOnly: ["wcag2a", "wcag2aa"]})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	for _, v := range res.Violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("%s: accessibility %s (%s): %s %v", page, v.ID, v.Impact, v.Help, v.Nodes)
		}
	}
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
		chromedp.Click(chromedp.CSS(`[data-testid=nav-reference-data]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=ref-data-administrators]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=new-data-administrator]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	checkAccessibility(t, ctx, "data administrators")
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid=new-data-administrator]`)),
		chromedp.WaitVisible(chromedp.ID("da-email")),
	)
	if err != nil {
		t.Fatal(err)
	}
	checkAccessibility(t, ctx, "new data administrator")
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("da-email"), "dana@example.com"),
		chromedp.Click(chromedp.CSS(`[data-testid=save]`)),
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
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=sign-out]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`))); err != nil {
		t.Fatal(err)
	}
	signIn(t, ctx, base, "dana@example.com")
	navRef, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=nav-reference-data]").length`))
	if err != nil || navRef != 0 {
		t.Fatalf("a Data Administrator sees Reference Data (%d, %v)", navRef, err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=nav-organisations]`)), chromedp.WaitVisible(chromedp.CSS(`h1`))); err != nil {
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
