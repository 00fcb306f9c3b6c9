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
		chromedp.Click(chromedp.CSS(`[data-testid=ref-identity-providers]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=idp-form]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=empty]`)),
	))
	checkAccessibility(t, ctx, "identity providers")
	must(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("f-Name"), "Ops Keycloak"),
		chromedp.SendKeys(chromedp.ID("f-Issuer"), dead),
		chromedp.SendKeys(chromedp.ID("f-Audience"), "automation"),
		chromedp.Click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-Issuer]`)),
	))
	msg, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=error-Issuer]`)))
	if !strings.Contains(msg, "unreachable") {
		t.Fatalf("issuer error %q", msg)
	}
	// The form kept what was typed; fix the issuer.
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-Issuer"), op.URL),
		chromedp.Click(chromedp.CSS(`[data-testid=save]`)),
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
		chromedp.Click(chromedp.CSS(`[data-testid=idp-row] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=jwks-uri]`)),
		chromedp.SetValue(chromedp.ID("f-Status"), "Inactive"),
		chromedp.Click(chromedp.CSS(`[data-testid=save]`)),
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
