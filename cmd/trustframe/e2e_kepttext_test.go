package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndLegacyTextIsKept: text saved before the text rule on two
// lines, in a real browser (which sends line breaks as CRLF and drops them
// from a one-line input). A contact type's Disable button and the key
// material Edit and Revoke forms, used without touching the description,
// are not refused for it and keep it as it was (docs/design.md §4).
func TestEndToEndLegacyTextIsKept(t *testing.T) {
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
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return m
	}
	oid := call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`)["OrganisationId"].(string)
	pem, _ := json.Marshal(webtest.ValidCert(t, "rsa2048", "km"))
	kmID := call("POST", "/organisations/"+oid+"/key-material", `{"PEM":`+string(pem)+`,"Use":"enc"}`)["KeyMaterialID"].(string)
	kmPath := "/organisations/" + oid + "/key-material/" + kmID
	legacy := "first line\nsecond line"
	for _, q := range []string{
		`UPDATE contact_types SET description = ? WHERE name = 'Business'`,
		`UPDATE key_material SET description = ? WHERE key_material_id = '` + kmID + `'`,
	} {
		if _, err := env.DB.SQL().ExecContext(t.Context(), q, legacy); err != nil {
			t.Fatal(err)
		}
	}
	// waitFor polls the record until want holds: each button loads a page.
	waitFor := func(what, path string, want func(m map[string]any) bool) {
		t.Helper()
		var m map[string]any
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if m = call("GET", path, ""); want(m) {
				return
			}
		}
		t.Fatalf("%s: %v", what, m)
	}

	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	answerDialogs(t, ctx, true, true, true)
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/references/contact-types"),
		click(chromedp.CSS(`form[action="/references/contact-types/Business"] button`)),
		// The page the button leads to, before the next navigation: one
		// begun while it loads is aborted (net::ERR_ABORTED).
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash]`)),
	))
	waitFor("Disable", "/references/contact-types/Business", func(m map[string]any) bool {
		return m["Status"] == "Inactive" && m["Description"] == legacy
	})

	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+kmPath),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name=Description]`)),
		chromedp.SetValue(chromedp.CSS(`select[name=Use]`), "sig"),
		click(chromedp.CSS(`form:has(input[name=Status][value=Active]) button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=flash]`)),
	))
	waitFor("Edit", kmPath, func(m map[string]any) bool { return m["Use"] == "sig" && m["Description"] == legacy })

	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+kmPath),
		click(chromedp.CSS(`[data-testid=danger-zone] [data-testid=revoke]`)),
		chromedp.WaitVisible(chromedp.ID("reason")),
		click(chromedp.CSS(`form:has(input[name=Status][value=Revoked]) button[type=submit]`)),
	))
	waitFor("Revoke", kmPath, func(m map[string]any) bool { return m["Status"] == "Revoked" && m["Description"] == legacy })
}
