package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndSlowActionSaysWhatItDoes: while the issuer's discovery
// document is read (up to 5 s), the server form says so (issue 40: only
// the button greyed).
func TestEndToEndSlowActionSaysWhatItDoes(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	oid := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	var disc *httptest.Server
	disc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Second)
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": disc.URL, "jwks_uri": disc.URL + "/jwks"})
	}))
	t.Cleanup(disc.Close)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/organisations/"+oid+"/authorisationservers/new"),
		chromedp.WaitVisible(chromedp.ID("f-Issuer")),
	))
	if visible(t, ctx, `[data-testid=busy]`) {
		t.Fatal("the busy message shows before anything is sent")
	}
	must(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("f-CustomerFriendlyName"), "Acme AS"),
		chromedp.SendKeys(chromedp.ID("f-Issuer"), disc.URL),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=busy]`)),
	))
	if got := text(t, ctx, `[data-testid=busy]`); !strings.Contains(got, "Checking the issuer's discovery document") {
		t.Fatalf("busy says %q", got)
	}
	checkAccessibility(t, ctx, "the issuer check under way")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash]:not(:empty)`))))
}
