package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TestEndToEndAdministratorGroups (issue 18, docs/design.md §16): a Super
// User maps groups of an identity provider on its page (the SuperUser
// mapping asks for confirmation); a new person whose ID token lists the
// mapped group signs in through the provider as a Data Administrator; once
// the group is removed at the provider, their next sign-in is refused
// (403); the administrator pages say "via group G of provider P".
func TestEndToEndAdministratorGroups(t *testing.T) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	var mu sync.Mutex
	person, groups := "", []string{}
	codes := map[string]map[string]any{}
	var op *httptest.Server
	op = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]any{"issuer": op.URL, "jwks_uri": op.URL + "/jwks", "authorization_endpoint": op.URL + "/auth",
				"token_endpoint": op.URL + "/token", "id_token_signing_alg_values_supported": []string{"RS256"}})
		case "/jwks":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
		case "/auth": // the person is signed in at the provider already
			q := r.URL.Query()
			mu.Lock()
			codes["c-"+q.Get("state")] = map[string]any{"nonce": q.Get("nonce"), "email": person, "sub": person, "groups": append([]string{}, groups...)}
			mu.Unlock()
			http.Redirect(w, r, q.Get("redirect_uri")+"?code=c-"+url.QueryEscape(q.Get("state"))+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
		case "/token":
			r.ParseForm()
			id, _, ok := r.BasicAuth()
			if !ok {
				id = r.PostForm.Get("client_id")
			}
			mu.Lock()
			c := codes[r.PostForm.Get("code")]
			mu.Unlock()
			c["iss"], c["aud"], c["iat"], c["exp"] = op.URL, id, time.Now().Unix(), time.Now().Add(time.Hour).Unix()
			sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType("JWT"))
			idt, _ := jwt.Signed(sig).Claims(c).Serialize()
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"access_token": "opaque", "token_type": "Bearer", "id_token": idt, "expires_in": 3600})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(op.Close)
	at := func(email string, g ...string) {
		mu.Lock()
		defer mu.Unlock()
		person, groups = email, g
	}

	ctx := newBrowser(t)
	base, _ := startProgram(t)
	signIn(t, ctx, base, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/identity-providers/new"),
		chromedp.SendKeys(chromedp.ID("f-Name"), "Corp"),
		chromedp.SendKeys(chromedp.ID("f-Issuer"), op.URL),
		chromedp.SendKeys(chromedp.ID("f-EmailDomains"), "example.com"),
		chromedp.SendKeys(chromedp.ID("f-ClientId"), "console"),
		chromedp.SetValue(chromedp.ID("f-GroupRoles"), "tf-data = DataAdministrator\ntf-ops = SuperUser"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-super-user]`)),
	))
	checkAccessibility(t, ctx, "identity provider SuperUser confirmation")
	ask, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=error-ConfirmSuperUser]`)))
	if !strings.Contains(ask, "Every member of tf-ops at Corp will be a Super User") {
		t.Fatalf("confirmation %q", ask)
	}
	// The mappings typed are kept; confirm and save.
	must(t, chromedp.Do(ctx,
		click(chromedp.ID("f-ConfirmSuperUser")),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=idp-row]`)),
		click(chromedp.CSS(`[data-testid=idp-row] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=idp-edit-form] [data-testid=idp-groups]`)),
	))
	mappings, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("f-GroupRoles")))
	must(t, err)
	if mappings != "tf-data = DataAdministrator\ntf-ops = SuperUser\n" {
		t.Fatalf("saved mappings %q", mappings)
	}

	signOut := func() {
		must(t, chromedp.Do(ctx,
			chromedp.Navigate(base+"/"),
			click(chromedp.CSS(`[data-testid=sign-out]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`)),
		))
	}
	viaCorp := func() {
		must(t, chromedp.Do(ctx,
			click(chromedp.CSS(`[data-testid=sign-in]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in-choices]`)),
			click(chromedp.CSS(`[data-testid=sign-in-choice][href*="via=Corp"]`)),
			chromedp.WaitReady(chromedp.CSS(`main`)),
		))
	}
	// A new person with the mapped group: a Data Administrator.
	signOut()
	at("nina@example.com", "staff", "tf-data")
	viaCorp()
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=current-user]`))))
	if who, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=current-user]`))); who != "nina@example.com" {
		t.Fatalf("signed in as %q", who)
	}
	// The group is removed at the provider: the next sign-in is a 403.
	signOut()
	at("nina@example.com", "staff")
	viaCorp()
	body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`body`)))
	if !strings.Contains(body, "nina@example.com is not an active administrator") {
		t.Fatalf("after the group was removed: %q", body)
	}
	// A Super User by group sees how everyone is an administrator.
	at("sam@example.com", "tf-ops")
	must(t, chromedp.Do(ctx, chromedp.Navigate(base+"/")))
	viaCorp()
	must(t, chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=current-user]`)),
		chromedp.Navigate(base+"/references/super-users"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=super-users]`)),
	))
	rows, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=super-users]`)))
	if !strings.Contains(rows, "via group tf-ops of provider Corp") || !strings.Contains(rows, "created by bootstrap") {
		t.Fatalf("Super Users page: %q", rows)
	}
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/data-administrators"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=data-administrators]`)),
	))
	rows, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=data-administrators]`)))
	if !strings.Contains(rows, "nina@example.com") || !strings.Contains(rows, "via group tf-data of provider Corp") || !strings.Contains(rows, "Inactive") {
		t.Fatalf("Data Administrators page: %q", rows)
	}
}
