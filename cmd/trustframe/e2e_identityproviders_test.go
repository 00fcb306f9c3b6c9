package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TestEndToEndIdentityProviders: a Super User binds an OpenID Provider in
// Reference Data (an unreachable issuer is refused beside the field), the
// API accepts its tokens, and setting it Inactive on its page stops that.
func TestEndToEndIdentityProviders(t *testing.T) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	var op *httptest.Server
	op = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]any{"issuer": op.URL, "jwks_uri": op.URL + "/jwks"})
		case "/jwks":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(op.Close)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String()
	ln.Close()

	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references"),
		click(chromedp.CSS(`[data-testid=ref-identity-providers]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=empty]`)),
		click(chromedp.CSS(`[data-testid=add-idp]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=idp-form]`)),
	))
	checkAccessibility(t, ctx, "identity providers")
	must(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("f-Name"), "Ops Keycloak"),
		chromedp.SendKeys(chromedp.ID("f-Issuer"), dead),
		chromedp.SendKeys(chromedp.ID("f-Audience"), "automation"),
		chromedp.SendKeys(chromedp.ID("f-EmailDomains"), "example.com"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-Issuer]`)),
	))
	msg, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=error-Issuer]`)))
	if !strings.Contains(msg, "could not be read") || strings.Contains(msg, "dial tcp") {
		t.Fatalf("issuer error %q", msg)
	}
	// The form kept what was typed; fix the issuer.
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-Issuer"), op.URL),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=idp-row]`)),
	))
	row, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=idp-row]`)))
	if !strings.Contains(row, "Ops Keycloak") || !strings.Contains(row, op.URL) || !strings.Contains(row, "automation") || !strings.Contains(row, "Active") {
		t.Fatalf("row %q", row)
	}

	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType("at+jwt"))
	tok, _ := jwt.Signed(sig).Claims(map[string]any{"iss": op.URL, "aud": "automation", "sub": "robot", "email": "admin@example.com",
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}).Serialize()
	call := func() int {
		req, _ := http.NewRequest("GET", base+"/api/users/super", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := call(); got != 200 {
		t.Fatalf("token of the bound provider: %d", got)
	}

	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=idp-row] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=jwks-uri]`)),
		chromedp.SetValue(chromedp.ID("f-Status"), "Inactive"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=idp-row]`)),
	))
	row, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=idp-row]`)))
	flash, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=flash]`)))
	if !strings.Contains(row, "Inactive") || !strings.Contains(flash, "no longer accepts") {
		t.Fatalf("after Inactive: row %q flash %q", row, flash)
	}
	if got := call(); got != 401 {
		t.Fatalf("token after Inactive: %d", got)
	}
}

// TestEndToEndSignInThroughIdentityProvider: a Super User binds another
// trustframe's identity provider with a client ID; the sign-in page then
// offers it, and a Data Administrator signs in through it in the browser.
func TestEndToEndSignInThroughIdentityProvider(t *testing.T) {
	partner, _ := startProgram(t)
	base, _ := startProgram(t)
	ctx := newBrowser(t)
	signIn(t, ctx, base, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/data-administrators/new"),
		chromedp.SendKeys(chromedp.ID("da-email"), "dana@example.com"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=data-administrator-row]`)),
		chromedp.Navigate(base+"/references/identity-providers/new"),
		chromedp.SendKeys(chromedp.ID("f-Name"), "Partner"),
		chromedp.SendKeys(chromedp.ID("f-Issuer"), partner+"/dev/idp"),
		chromedp.SendKeys(chromedp.ID("f-EmailDomains"), "example.com"),
		chromedp.SendKeys(chromedp.ID("f-ClientId"), "trustframe-cli"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=idp-row]`)),
		click(chromedp.CSS(`[data-testid=sign-out]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`)),
		click(chromedp.CSS(`[data-testid=sign-in]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in-choices]`)),
	))
	checkAccessibility(t, ctx, "sign-in choice")
	choices, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=sign-in-choices]`)))
	if !strings.Contains(choices, "Sign in with the service's identity provider") || !strings.Contains(choices, "Sign in with Partner") {
		t.Fatalf("choices %q", choices)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=sign-in-choice][href*="via=Partner"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=dev-idp-banner]`)),
	))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasPrefix(loc, partner+"/dev/idp/") {
		t.Fatalf("the partner's sign-in page is at %s", loc)
	}
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("email"), "dana@example.com"),
		click(chromedp.CSS(`[data-testid=dev-sign-in]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=current-user]`)),
	))
	who, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=current-user]`)))
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if who != "dana@example.com" || !strings.HasPrefix(loc, base+"/") {
		t.Fatalf("signed in as %q at %s", who, loc)
	}
}

// TestEndToEndSignInWithExternalIssuer: with --oidc-issuer on another
// origin, the Sign in button and an expired session inside a boosted page
// both reach the issuer's page (htmx must not fetch a cross-origin
// redirect, which the CSP forbids).
func TestEndToEndSignInWithExternalIssuer(t *testing.T) {
	partner, _ := startProgram(t)
	base, _ := startProgram(t, "--oidc-issuer", partner+"/dev/idp", "--oidc-client-id", "trustframe-cli")
	ctx := newBrowser(t)
	signIn(t, ctx, base, "admin@example.com")
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasPrefix(loc, base+"/") {
		t.Fatalf("after sign-in at %s", loc)
	}
	// The session ends on the server (signed out elsewhere); a click on a
	// boosted link must lead to the issuer's sign-in page, not fail in the
	// background.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch("/logout", {method: "POST"}).then(r => r.status)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=nav-organisations]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=dev-idp-banner]`)),
	))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasPrefix(loc, partner+"/dev/idp/") {
		t.Fatalf("expired session led to %s", loc)
	}
}
