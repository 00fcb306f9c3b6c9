package main

import (
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndFederationSimulatorAndCheckNow: a Super User tries two roles'
// policies on Reference Data > Role metadata policies > Try it, then opens
// an application's Federation tab, sees the statement and the merged
// policy, and Check now resolves the live RP served here (docs/design.md §13);
// a broken RP shows the exact failure.
func TestEndToEndFederationSimulatorAndCheckNow(t *testing.T) {
	env := webtest.Start(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	call := func(method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, env.URL+"/api"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	oid := call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	call("POST", "/references/authorisation-domains", `{"Name":"Payments"}`)
	call("POST", "/references/authorisation-domains/Payments/roles", `{"Name":"PISP","Type":"Federation"}`)
	call("POST", "/references/authorisation-domains/Payments/roles", `{"Name":"AISP","Type":"Federation"}`)
	authority := call("POST", "/references/authorities", `{"AuthorityName":"Central Bank","AuthorityCode":"CB","Country":"GB","AuthorisationDomains":["Payments"]}`)["AuthorityId"].(string)
	call("POST", "/organisations/"+oid+"/authority-claims", `{"AuthorityId":"`+authority+`","AuthorisationDomain":"Payments","Role":"PISP"}`)
	call("POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code","refresh_token"]}}}`)
	call("POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"AISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code"]}}}`)
	key := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pb, _ := json.Marshal(jose.JSONWebKey{Key: &key.PublicKey})
	kid := call("POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pb)+`,"Use":"sig"}`)["Kid"].(string)

	hints := []string{env.URL}
	var rp *httptest.Server
	rp = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("entity-statement+jwt"))
		b, _ := json.Marshal(map[string]any{"iss": rp.URL, "sub": rp.URL, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(),
			"jwks":            jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: kid}}},
			"authority_hints": hints, "metadata": map[string]any{"openid_relying_party": map[string]any{"grant_types": []string{"authorization_code", "implicit"}}}})
		jws, _ := signer.Sign(b)
		s, _ := jws.CompactSerialize()
		_, _ = io.WriteString(w, s)
	}))
	t.Cleanup(rp.Close)
	aid := call("POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Acme RP","Roles":["PISP"],"FederationEntityId":"`+rp.URL+`"}`)["SoftwareStatementId"].(string)

	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	// The simulator: two roles, their subset_of merged.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/references/role-metadata-policies"),
		click(chromedp.CSS(`[data-testid=try-it]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=try-form]`)),
	))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { for (const o of document.querySelectorAll('#try-roles option')) o.selected = true; document.getElementById('try-metadata').value = '{"grant_types":["authorization_code","implicit","refresh_token"]}'; return true })()`)); err != nil {
		t.Fatal(err)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=try-submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=try-result], [data-testid=try-errors]`)),
	))
	res, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=try-result], [data-testid=try-errors]`)))
	if !strings.Contains(res, `"authorization_code"`) || strings.Contains(res, "implicit") || strings.Contains(res, "refresh_token") {
		t.Fatalf("simulated metadata: %s", res)
	}
	checkAccessibility(t, ctx, "policy simulator")

	// The Federation tab and Check now.
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/organisations/"+oid+"/softwarestatements/"+aid),
		click(chromedp.CSS(`[data-testid=application-federation]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=fed-statement], [data-testid=fed-reason]`)),
	))
	st, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=fed-statement], [data-testid=fed-reason]`)))
	if !strings.Contains(st, kid) || !strings.Contains(st, "Acme Bank") || !strings.Contains(st, "refresh_token") {
		t.Fatalf("statement: %s", st)
	}
	// The tab is swapped in by htmx: a click while that swap settles was
	// lost on a loaded CI machine, and the check never ran.
	waitURL(t, ctx, "/federation")
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=fed-check]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=fed-resolved], [data-testid=fed-check-error]`)),
	))
	resolved, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=fed-resolved], [data-testid=fed-check-error]`)))
	if !strings.Contains(resolved, "authorization_code") || strings.Contains(resolved, "implicit") {
		t.Fatalf("resolved: %s", resolved)
	}
	checkAccessibility(t, ctx, "federation tab")
	// The RP stops naming the directory: Check now says so.
	hints = []string{"https://elsewhere.example"}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=fed-check]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=fed-check-error]`)),
	))
	msg, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=fed-check-error]`)))
	if !strings.Contains(msg, "authority_hints") {
		t.Fatalf("check error: %s", msg)
	}
}
