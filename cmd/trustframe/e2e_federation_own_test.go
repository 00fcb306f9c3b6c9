package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndFederationOwnConfiguration: a Super User goes from Reference
// Data to the directory's own entity configuration and reads it on a
// desktop (1366 px) and a phone (375 px): URL, header, iss, dates,
// endpoints, keys, the verified signature, the decoded JSON and the JWT are
// on screen, nothing is wider than the window, and axe-core is clean
// (docs/design.md §13).
func TestEndToEndFederationOwnConfiguration(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.FederationOrganizationName = "Example Trust Framework" })
	resp, err := http.Get(env.URL + "/.well-known/openid-federation")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	jws, err := jose.ParseSignedCompact(string(b), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatalf("served: %v %s", err, b)
	}
	kid := jws.Signatures[0].Header.KeyID

	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=nav-reference-data]`)),
		click(chromedp.CSS(`[data-testid=ref-federation]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=fed-own-jwt]`)),
	))
	for _, vp := range []struct{ w, h int64 }{{1366, 900}, {375, 812}} {
		must(t, chromedp.Do(ctx, chromedp.EmulateViewport(vp.w, vp.h)))
		checkPage(t, ctx, env.URL, "/references/federation", vp.w)
		for _, sel := range []string{"[data-testid=fed-own-url-text]", "[data-testid=copy-fed-own-url]", "[data-testid=fed-own-verified]",
			"[data-testid=fed-own-alg]", "[data-testid=fed-own-kid]", "[data-testid=fed-own-typ]", "[data-testid=fed-own-iss]",
			"[data-testid=fed-own-iat]", "[data-testid=fed-own-exp]", "[data-testid=fed-own-expires-in]",
			"[data-testid=fed-own-endpoint][data-claim=federation_fetch_endpoint] a", "[data-testid=fed-own-endpoint][data-claim=federation_list_endpoint] a",
			"[data-testid=fed-own-endpoint][data-claim=federation_resolve_endpoint] a", "[data-testid=fed-own-organization_name]",
			"[data-testid=fed-own-key-kid]", "[data-testid=fed-own-decoded] summary", "[data-testid=fed-own-jwt]", "[data-testid=copy-fed-own-jwt]"} {
			if !visible(t, ctx, sel) {
				t.Errorf("at %d px %s is not on screen", vp.w, sel)
			}
		}
		if got := text(t, ctx, "[data-testid=fed-own-iss]"); got != env.URL {
			t.Errorf("at %d px iss %q, want %s", vp.w, got, env.URL)
		}
		if got := text(t, ctx, "[data-testid=fed-own-verified]"); !strings.Contains(got, "verified") || !strings.Contains(got, kid) {
			t.Errorf("at %d px verification %q (kid %s)", vp.w, got, kid)
		}
		if got := text(t, ctx, "[data-testid=fed-own-expires-in]"); got != "expires in 1 day" {
			t.Errorf("at %d px %q", vp.w, got)
		}
		// The decoded JSON opens.
		must(t, chromedp.Do(ctx, click(chromedp.CSS(`[data-testid=fed-own-decoded] summary`))))
		if !visible(t, ctx, "[data-testid=fed-own-json]") || !strings.Contains(text(t, ctx, "[data-testid=fed-own-json]"), `"federation_resolve_endpoint"`) {
			t.Errorf("at %d px the decoded JSON does not open", vp.w)
		}
	}

	// On a phone, starting the next key too early: the refusal, far down
	// the page, gets the focus and is on screen (the page used to come
	// back at its top, as if nothing had happened).
	answerDialogs(t, ctx, true)
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/references/signing-keys"),
		click(chromedp.CSS(`[data-testid=prepare-federation-key]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=activate-federation-key]`)),
		click(chromedp.CSS(`[data-testid=activate-federation-key]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=federation-keys-error]`)),
	))
	var shown string
	for deadline := time.Now().Add(3 * time.Second); shown != "true true" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		shown, err = chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){var e=document.querySelector("[data-testid=federation-keys-error]"), r=e.getBoundingClientRect();
			return (document.activeElement === e) + " " + (r.top >= 0 && r.bottom <= window.innerHeight);})()`))
	}
	if err != nil || shown != "true true" {
		t.Errorf("the early start's refusal: focused, on screen = %q (%v)", shown, err)
	}
}
