package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestDPoPAcrossInstances: two instances of one directory (same database,
// same data directory, so the same KEK and base URL, as behind a load
// balancer). A DPoP proof used on one is refused on the other, and a
// server nonce made by one is accepted by the other (docs/design.md §2.1).
func TestDPoPAcrossInstances(t *testing.T) {
	needInstances(t)
	dir := t.TempDir()
	a := webtest.StartIn(t, dir, func(c *web.Config) { c.DPoPNonce = true })
	b := webtest.StartOn(t, dir, webtest.Database(t, dir), func(c *web.Config) { c.DPoPNonce = true; c.BaseURL = a.URL })
	key := newDPoPSigner(t)
	api := "/api/users/super"

	// A token from A's token endpoint (which asks for a nonce first).
	post := tokenPoster(t, a.URL, key)
	resp, _ := post("")
	resp, m := post(resp.Header.Get("DPoP-Nonce"))
	if resp.StatusCode != 200 {
		t.Fatalf("token: %d %v", resp.StatusCode, m)
	}
	tok := struct{ AccessToken string }{m["access_token"].(string)}
	r, _ := call(t, "GET", a.URL+api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {proof(t, key, "GET", a.URL+api, tok.AccessToken, "")}})
	nonce := r.Header.Get("DPoP-Nonce")
	if r.StatusCode != 401 || nonce == "" {
		t.Fatalf("A without a nonce: %d", r.StatusCode)
	}
	// A's nonce on B: accepted. The htu is the shared base URL (A's).
	p := proof(t, key, "GET", a.URL+api, tok.AccessToken, nonce)
	if r, body := call(t, "GET", b.URL+api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {p}}); r.StatusCode != 200 {
		t.Fatalf("B with A's nonce: %d %s", r.StatusCode, body)
	}
	// The same proof again, on A: a replay.
	r, body := call(t, "GET", a.URL+api, http.Header{"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {p}})
	if r.StatusCode != 401 || !strings.Contains(body, "jti_replay") {
		t.Fatalf("the proof used on B, again on A: %d %s", r.StatusCode, body)
	}
}

// TestTwoInstancesOnOneDatabase: two instances of one directory on one
// PostgreSQL database (same data directory and base URL, as behind a load
// balancer, no sticky sessions): a session made on A works on B; an
// organisation created on A is in B's list, total and deep pages at the
// next request; a signing key rotated on A is the key B signs with.
func TestTwoInstancesOnOneDatabase(t *testing.T) {
	needInstances(t)
	dir := t.TempDir()
	a := webtest.StartIn(t, dir, nil)
	b := webtest.StartOn(t, dir, webtest.Database(t, dir), func(c *web.Config) { c.BaseURL = a.URL })
	ctx := context.Background()
	if err := a.DB.SeedDirectory(ctx, store.Audit{Actor: "seed"}, 1100, 7); err != nil {
		t.Fatal(err)
	}
	onA := &api{t: t, base: a.URL, token: webtest.Token(t, a.URL, "admin@example.com", nil).AccessToken}
	onB := &api{t: t, base: b.URL, token: onA.token}

	// A session made on A, presented to B.
	browser := webtest.Browser()
	webtest.SignIn(t, browser, a.URL, "admin@example.com").Body.Close()
	req, _ := http.NewRequest("GET", b.URL+"/organisations", nil)
	for _, c := range browser.Jar.Cookies(mustURL(a.URL)) {
		req.AddCookie(c)
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("A's session on B: %d (%s)", resp.StatusCode, resp.Header.Get("Location"))
	}

	// B reads a deep page (its anchors built), A writes, B reads again.
	page := func(on *api, n int) (int, []any) {
		m := on.must(200, "GET", fmt.Sprintf("/organisations?size=20&page=%d", n), "")
		l, _ := m["content"].([]any)
		return int(m["totalSize"].(float64)), l
	}
	total, _ := page(onB, 50)
	onA.must(201, "POST", "/organisations", `{"OrganisationName":"AAAA First Bank","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Active"}`)
	totalB, deepB := page(onB, 50)
	totalA, deepA := page(onA, 50)
	if totalB != total+1 || totalA != totalB {
		t.Fatalf("totals after A's write: B %d, A %d, before %d", totalB, totalA, total)
	}
	if fmt.Sprint(deepA) != fmt.Sprint(deepB) {
		t.Fatal("B's deep page differs from A's after A's write")
	}
	if first, _ := onB.must(200, "GET", "/organisations?size=1", "")["content"].([]any); len(first) != 1 || first[0].(map[string]any)["OrganisationName"] != "AAAA First Bank" {
		t.Fatalf("B's first page after A's write: %v", first)
	}

	// A key rotated on A signs on B.
	org := onA.must(201, "POST", "/organisations", `{"OrganisationName":"Signer","RegistrationNumber":"2","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	app := onA.must(201, "POST", "/organisations/"+org+"/softwarestatements", `{"ClientName":"App","RedirectUri":["https://app.example/cb"]}`)["SoftwareStatementId"].(string)
	kid := onA.must(201, "POST", "/references/signing-keys", `{"alg":"PS256"}`)["kid"].(string)
	req, _ = http.NewRequest("GET", b.URL+"/api/organisations/"+org+"/softwarestatements/"+app+"/assertion?signingAlg=PS256", nil)
	req.Header.Set("Authorization", "Bearer "+onA.token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	jws, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	hdr, _ := base64.RawURLEncoding.DecodeString(strings.SplitN(string(jws), ".", 2)[0])
	if resp.StatusCode != 200 || !strings.Contains(string(hdr), `"kid":"`+kid+`"`) {
		t.Fatalf("B's SSA after the rotation on A to %s: %d %s", kid, resp.StatusCode, hdr)
	}
}

// TestDevIdPKeySharedAcrossInstances: two instances on one PostgreSQL
// database with their own data directories (the KEK copied, as the README
// says; not the identity provider's key file) sign with one key: the first
// stores it, sealed, in the database, the other reads it. A token from A's
// /dev/idp is accepted by B, and both publish the same key. Each signed
// with the key of its own data directory, so B refused A's tokens.
func TestDevIdPKeySharedAcrossInstances(t *testing.T) {
	needInstances(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	database := webtest.Database(t, dirA)
	a := webtest.StartOn(t, dirA, database, nil)
	kek, err := os.ReadFile(filepath.Join(dirA, "kek.key"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dirB, "kek.key"), kek, 0o600)
	b := webtest.StartOn(t, dirB, database, func(c *web.Config) { c.BaseURL = a.URL })

	tok := webtest.Token(t, a.URL, "admin@example.com", nil).AccessToken
	if r, body := call(t, "GET", b.URL+"/api/users/super", http.Header{"Authorization": {"Bearer " + tok}}); r.StatusCode != 200 {
		t.Fatalf("A's token on B: %d %s", r.StatusCode, body)
	}
	jwks := func(base string) string {
		_, body := call(t, "GET", base+"/dev/idp/jwks", nil)
		return body
	}
	if ja, jb := jwks(a.URL), jwks(b.URL); ja != jb || !strings.Contains(ja, `"kid"`) {
		t.Fatalf("A publishes %s, B %s", ja, jb)
	}
	// Each data directory's key file holds the shared key.
	fa, _ := os.ReadFile(filepath.Join(dirA, "dev-idp-key.pem"))
	fb, _ := os.ReadFile(filepath.Join(dirB, "dev-idp-key.pem"))
	if len(fa) == 0 || string(fa) != string(fb) {
		t.Fatal("the key files of the two data directories differ")
	}
}

// TestDevIdPCodeExchangedOnAnotherInstance: two instances on one PostgreSQL
// database behind one base URL, no sticky sessions. A sign-in whose
// authorization request and sign-in form are served by A has its code
// exchanged at B's token endpoint (with the PKCE verifier and the ID
// token's request), and that code is then refused on both (single use).
func TestDevIdPCodeExchangedOnAnotherInstance(t *testing.T) {
	needInstances(t)
	a, b, form := codeMadeOnA(t)
	exchange := func(base string) (*http.Response, map[string]any) {
		resp, err := http.PostForm(base+"/dev/idp/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp, m
	}
	resp, tok := exchange(b.URL)
	if resp.StatusCode != 200 || tok["id_token"] == nil || tok["refresh_token"] == nil {
		t.Fatalf("A's code at B: %d %v", resp.StatusCode, tok)
	}
	if r, body := call(t, "GET", a.URL+"/api/users/super", http.Header{"Authorization": {"Bearer " + tok["access_token"].(string)}}); r.StatusCode != 200 {
		t.Fatalf("the token from B on A: %d %s", r.StatusCode, body)
	}
	for _, on := range []*webtest.Env{b, a} {
		if resp, m := exchange(on.URL); resp.StatusCode != 400 || m["error"] != "invalid_grant" {
			t.Fatalf("the used code again at %s: %d %v", on.URL, resp.StatusCode, m)
		}
	}
}

// TestDevIdPCodeRaceAcrossInstances: one code sent to the token endpoints
// of two instances at once is exchanged once; every other attempt is
// invalid_grant, none a server error.
func TestDevIdPCodeRaceAcrossInstances(t *testing.T) {
	needInstances(t)
	a, b, form := codeMadeOnA(t)
	statuses := make(chan string, 8)
	for i := range 8 {
		base := []string{a.URL, b.URL}[i%2]
		go func() {
			resp, err := http.PostForm(base+"/dev/idp/token", form)
			if err != nil {
				statuses <- err.Error()
				return
			}
			defer resp.Body.Close()
			var m map[string]any
			json.NewDecoder(resp.Body).Decode(&m)
			statuses <- fmt.Sprint(resp.StatusCode, " ", m["error"])
		}()
	}
	got := map[string]int{}
	for range 8 {
		got[<-statuses]++
	}
	if got["200 <nil>"] != 1 || got["400 invalid_grant"] != 7 {
		t.Fatalf("8 exchanges of one code on two instances: %v", got)
	}
}

// TestDevIdPRefreshTokenRotatedOnAnotherInstance: a refresh token used on
// A (which rotates it) is refused when it comes back to B, which issued it.
func TestDevIdPRefreshTokenRotatedOnAnotherInstance(t *testing.T) {
	needInstances(t)
	dir := t.TempDir()
	a := webtest.StartIn(t, dir, nil)
	b := webtest.StartOn(t, dir, webtest.Database(t, dir), func(c *web.Config) { c.BaseURL = a.URL })
	rt := webtest.Token(t, b.URL, "admin@example.com", nil).RefreshToken
	refresh := func(base string) (int, map[string]any) {
		resp, err := http.PostForm(base+"/dev/idp/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"trustframe-cli"}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if code, m := refresh(a.URL); code != 200 || m["refresh_token"] == nil {
		t.Fatalf("B's refresh token on A: %d %v", code, m)
	}
	if code, m := refresh(b.URL); code != 400 || m["error"] != "invalid_grant" {
		t.Fatalf("the refresh token rotated on A, again on B: %d %v", code, m)
	}
}

// needInstances skips a test of several instances unless the tests run on
// PostgreSQL: instances share a database there (TRUSTFRAME_TEST_POSTGRES,
// set by .ci/test for its PostgreSQL run); one SQLite file is one
// process's.
func needInstances(t *testing.T) {
	t.Helper()
	if !storetest.Postgres() {
		t.Skip("several instances share a database on PostgreSQL only; .ci/test runs this on PostgreSQL")
	}
}

// codeMadeOnA starts instances A and B on one database behind A's base
// URL and signs in at A's development identity provider: the token
// request that exchanges the code it made (PKCE verifier included).
func codeMadeOnA(t *testing.T) (a, b *webtest.Env, form url.Values) {
	t.Helper()
	dir := t.TempDir()
	a = webtest.StartIn(t, dir, nil)
	b = webtest.StartOn(t, dir, webtest.Database(t, dir), func(c *web.Config) { c.BaseURL = a.URL })
	verifier, challenge := webtest.PKCE()
	redirect := "http://127.0.0.1:53682/callback"
	code := webtest.Authorize(t, a.URL, "admin@example.com", redirect, challenge)
	return a, b, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {"trustframe-cli"}, "code_verifier": {verifier}}
}
