package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/dpop"
	"github.com/trustframe/trustframe/store/storetest"
	"github.com/trustframe/trustframe/web/webtest"
)

// instance is one `trustframe serve` process as a client sees it.
type instance struct {
	t     *testing.T
	name  string // "A" or "B", for messages
	base  string // where it listens
	token string // a bearer token (any instance's: they share the identity)
}

// on is in for the (sub)test t, whose failures its must reports.
func (in *instance) on(t *testing.T) *instance {
	c := *in
	c.t = t
	return &c
}

// call sends an API request; err is the transport's (the process may be
// dead), never a test failure.
func (in *instance) call(method, path, body string, hdr http.Header) (int, http.Header, []byte, error) {
	req, _ := http.NewRequest(method, in.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if in.token != "" {
		req.Header.Set("Authorization", "Bearer "+in.token)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	c := &http.Client{Timeout: 15 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// must sends an API request and fails the test unless it answers want; it
// returns the JSON body.
func (in *instance) must(want int, method, path, body string) map[string]any {
	in.t.Helper()
	status, _, b, err := in.call(method, path, body, nil)
	if err != nil || status != want {
		in.t.Fatalf("%s %s on %s: %d (want %d) %v %s", method, path, in.name, status, want, err, b)
	}
	var m map[string]any
	if len(b) > 0 && json.Unmarshal(b, &m) != nil {
		in.t.Fatalf("%s %s on %s: not JSON: %s", method, path, in.name, b)
	}
	return m
}

// page reads page n (from 0) of the organisation list: its total and the
// ids on it.
func (in *instance) page(size, n int) (int, []string) {
	in.t.Helper()
	m := in.must(200, "GET", fmt.Sprintf("/api/organisations?size=%d&page=%d", size, n), "")
	var ids []string
	for _, o := range m["content"].([]any) {
		ids = append(ids, o.(map[string]any)["OrganisationId"].(string))
	}
	return int(m["totalSize"].(float64)), ids
}

func orgBody(name string) string {
	return fmt.Sprintf(`{"OrganisationName":%q,"RegistrationNumber":"R-%d","CountryOfRegistration":"GB","Status":"Active"}`, name, time.Now().UnixNano())
}

// TestTwoServeProcessesOnPostgres runs two `trustframe serve` processes on
// one PostgreSQL database, set up as the README's "Two instances behind a
// reverse proxy" says: separate data directories and ports, the same KEK
// (kek.key copied from A's data directory), the same --base-url (A's
// address stands for the address users see) and the same identity
// provider (the development one, whose key the instances share through the
// database, as a real --oidc-issuer would be one for both). Over real HTTP, with no
// sticky sessions: a session made on A works on B; an organisation
// created on A is in B's list, total and deep pages at once; a DPoP proof
// used on one is refused on the other; a key rotated on A signs on B; and
// kill -9 of A during writes loses no acknowledged write while B keeps
// serving (docs/design.md §2.1, §14).
func TestTwoServeProcessesOnPostgres(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("several instances share a PostgreSQL database (TRUSTFRAME_TEST_POSTGRES, set by .ci/test); one SQLite file is one process's")
	}
	if testing.Short() {
		t.Skip("starts server processes (-short)")
	}
	database := storetest.Path(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	// 300 organisations: the list has 15 pages of 20 before the test writes.
	if err := run(context.Background(), []string{"seed", "--data-dir", dirA, "--database", database, "--organisations", "300"},
		func(string) string { return "" }, nil, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	procA := startServeProcess(t, "--data-dir", dirA, "--database", database, "--dpop-nonce")
	baseA := procA.base
	// A made the KEK on its first start; the identity provider's key B
	// reads from the database.
	copyFile(t, filepath.Join(dirA, "kek.key"), filepath.Join(dirB, "kek.key"))
	procB := startServeProcess(t, "--data-dir", dirB, "--database", database, "--dpop-nonce", "--base-url", baseA)
	baseB := procB.listen
	if procB.base != baseA || baseB == baseA {
		t.Fatalf("B's base URL %s (want A's %s), B listens on %s", procB.base, baseA, baseB)
	}

	token := webtest.Token(t, baseA, "admin@example.com", nil).AccessToken
	a := &instance{t: t, name: "A", base: baseA, token: token}
	b := &instance{t: t, name: "B", base: baseB, token: token}

	t.Run("SessionMadeOnAWorksOnB", func(t *testing.T) {
		browser := webtest.Browser()
		resp := webtest.SignIn(t, browser, baseA, "admin@example.com")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !signedInAs(body, "admin@example.com") {
			t.Fatalf("sign-in on A: %d, page does not show admin@example.com signed in", resp.StatusCode)
		}
		cookies := browser.Jar.Cookies(mustParse(t, baseA))
		onB := func(path string) (int, string, []byte) {
			req, _ := http.NewRequest("GET", baseB+path, nil)
			for _, c := range cookies {
				req.AddCookie(c)
			}
			resp, err := (&http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, resp.Header.Get("Location"), b
		}
		// Without the cookie B sends the visitor to sign in: the check below can fail.
		req, _ := http.NewRequest("GET", baseB+"/organisations", nil)
		if resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req); err != nil || resp.StatusCode == 200 {
			t.Fatalf("B without a session: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
		status, loc, page := onB("/organisations")
		if status != 200 || !signedInAs(page, "admin@example.com") {
			t.Fatalf("A's session cookie on B: %d (Location %q), signed in: %v", status, loc, signedInAs(page, "admin@example.com"))
		}
		// Signing out on B ends the session on A too.
		req, _ = http.NewRequest("POST", baseB+"/logout", nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil || resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign out on B: %v %v", resp, err)
		}
		resp.Body.Close()
		req, _ = http.NewRequest("GET", baseA+"/organisations", nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		resp, err = (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Fatal("the session signed out on B still works on A")
		}
	})

	t.Run("OrganisationCreatedOnAIsInBsListAtOnce", func(t *testing.T) {
		a, b := a.on(t), b.on(t)
		const size = 20
		total, _ := b.page(size, 0)
		deep := (total - 1) / size // the last page
		_, deepBefore := b.page(size, deep-2)
		_, lastBefore := b.page(size, deep) // B's caches hold the totals and anchors now
		// "0000…" sorts before every seeded name: every later page shifts by one.
		id := a.must(201, "POST", "/api/organisations", orgBody("0000 Made on A"))["OrganisationId"].(string)
		totalB, firstB := b.page(1, 0)
		if totalB != total+1 {
			t.Fatalf("B's totalSize right after A's write: %d, want %d", totalB, total+1)
		}
		if len(firstB) != 1 || firstB[0] != id {
			t.Fatalf("B's first page right after A's write: %v, want [%s]", firstB, id)
		}
		_, deepB := b.page(size, deep-2)
		_, deepA := a.page(size, deep-2)
		if fmt.Sprint(deepB) != fmt.Sprint(deepA) || fmt.Sprint(deepB) == fmt.Sprint(deepBefore) {
			t.Fatalf("B's page %d right after A's write:\n%v\nA's:\n%v\nbefore:\n%v", deep-2, deepB, deepA, deepBefore)
		}
		if fmt.Sprint(deepB[1:]) != fmt.Sprint(deepBefore[:size-1]) {
			t.Fatalf("B's page %d did not shift by one: %v, before %v", deep-2, deepB, deepBefore)
		}
		// The list's end is unchanged, on what is now its last page.
		_, lastB := b.page(size, total/size)
		_, lastA := a.page(size, total/size)
		if fmt.Sprint(lastB) != fmt.Sprint(lastA) || len(lastB) == 0 || lastB[len(lastB)-1] != lastBefore[len(lastBefore)-1] {
			t.Fatalf("B's last page right after A's write: %v, A's %v, before %v", lastB, lastA, lastBefore)
		}
		// And the other way: an organisation made on B is on A's last page.
		idB := b.must(201, "POST", "/api/organisations", orgBody("zzzz Made on B"))["OrganisationId"].(string)
		totalA, _ := a.page(size, 0)
		_, lastA = a.page(size, (totalA-1)/size)
		if totalA != total+2 || len(lastA) == 0 || lastA[len(lastA)-1] != idB {
			t.Fatalf("A right after B's write: total %d (want %d), last page %v (want it to end with %s)", totalA, total+2, lastA, idB)
		}
	})

	t.Run("DPoPProofUsedOnOneIsRefusedOnTheOther", func(t *testing.T) {
		a, b := a.on(t), b.on(t)
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		key, err := dpop.NewSigner(k)
		if err != nil {
			t.Fatal(err)
		}
		prove := func(method, u, tok, nonce string) string {
			p, err := key.Proof(method, u, tok, nonce)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		// A DPoP-bound token from A's token endpoint (--dpop-nonce: it asks for a nonce first).
		tokURL := baseA + "/dev/idp/token"
		verifier, challenge := webtest.PKCE()
		redirect := "http://127.0.0.1:53682/callback"
		code := webtest.Authorize(t, baseA, "admin@example.com", redirect, challenge)
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
			"client_id": {"trustframe-cli"}, "code_verifier": {verifier}}.Encode()
		nonce := ""
		var tok string
		for range 2 {
			req, _ := http.NewRequest("POST", tokURL, strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("DPoP", prove("POST", tokURL, "", nonce))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				AccessToken string `json:"access_token"`
				TokenType   string `json:"token_type"`
			}
			json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				tok = m.AccessToken
				if m.TokenType != "DPoP" {
					t.Fatalf("token type %q", m.TokenType)
				}
				break
			}
			nonce = resp.Header.Get("DPoP-Nonce")
		}
		if tok == "" || nonce == "" {
			t.Fatalf("no DPoP token from A (nonce %q)", nonce)
		}
		// The htu is the shared base URL (A's), whichever instance answers.
		api := "/api/users/super"
		htu := baseA + api
		use := func(on *instance, p string) (int, string) {
			bare := *on
			bare.token = ""
			status, hdr, body, err := bare.call("GET", api, "", http.Header{"Authorization": {"DPoP " + tok}, "Dpop": {p}})
			if err != nil {
				t.Fatal(err)
			}
			if n := hdr.Get("DPoP-Nonce"); n != "" {
				nonce = n
			}
			return status, string(body) + hdr.Get("WWW-Authenticate")
		}
		// A nonce from A's token endpoint: a proof carrying it works on A.
		p := prove("GET", htu, tok, nonce)
		if status, _ := use(a, p); status != 200 {
			// The API may ask for a fresh nonce of its own first.
			p = prove("GET", htu, tok, nonce)
			if status, body := use(a, p); status != 200 {
				t.Fatalf("a fresh proof on A: %d %s", status, body)
			}
		}
		if status, body := use(b, p); status != 401 || !strings.Contains(body, dpop.RuleReplay) {
			t.Fatalf("the proof used on A, replayed on B: %d %s (want 401 %s)", status, body, dpop.RuleReplay)
		}
		// A fresh proof with the same key and token, with A's nonce, works on B:
		// the refusal above was the replay, and nonces are shared.
		q := prove("GET", htu, tok, nonce)
		if status, body := use(b, q); status != 200 {
			t.Fatalf("a fresh proof on B with A's nonce: %d %s", status, body)
		}
		if status, body := use(a, q); status != 401 || !strings.Contains(body, dpop.RuleReplay) {
			t.Fatalf("the proof used on B, replayed on A: %d %s (want 401 %s)", status, body, dpop.RuleReplay)
		}
	})

	t.Run("KeyRotatedOnASignsOnB", func(t *testing.T) {
		a, b := a.on(t), b.on(t)
		org := a.must(201, "POST", "/api/organisations", orgBody("Signer"))["OrganisationId"].(string)
		app := a.must(201, "POST", "/api/organisations/"+org+"/softwarestatements", `{"ClientName":"App","RedirectUri":["https://app.example/cb"]}`)["SoftwareStatementId"].(string)
		assertion := "/api/organisations/" + org + "/softwarestatements/" + app + "/assertion?signingAlg=PS256"
		ssaOnB := func() (string, string) {
			status, _, jws, err := b.call("GET", assertion, "", nil)
			if err != nil || status != 200 {
				t.Fatalf("SSA on B: %d %v %s", status, err, jws)
			}
			hdr, _ := base64.RawURLEncoding.DecodeString(strings.SplitN(string(jws), ".", 2)[0])
			var h struct{ Kid string }
			json.Unmarshal(hdr, &h)
			return string(jws), h.Kid
		}
		_, before := ssaOnB()
		kid := a.must(201, "POST", "/api/references/signing-keys", `{"alg":"PS256"}`)["kid"].(string)
		if kid == before {
			t.Fatalf("the rotation on A made no new key (%s)", kid)
		}
		jws, got := ssaOnB()
		if got != kid {
			t.Fatalf("B signs with %s right after the rotation on A to %s (before: %s)", got, kid, before)
		}
		// The SSA verifies against the keyset each instance publishes.
		for _, on := range []*instance{b, a} {
			status, _, set, err := on.call("GET", "/keystore/ssa.jwks", "", nil)
			if err != nil || status != 200 {
				t.Fatalf("%s's keyset: %d %v", on.name, status, err)
			}
			var keys struct{ Keys []json.RawMessage }
			if err := json.Unmarshal(set, &keys); err != nil {
				t.Fatalf("%s's keyset: %v", on.name, err)
			}
			var found *jose.JSONWebKey
			for _, raw := range keys.Keys {
				var k struct{ Kid string }
				json.Unmarshal(raw, &k)
				if k.Kid == kid {
					found = &jose.JSONWebKey{}
					if err := found.UnmarshalJSON(raw); err != nil {
						t.Fatalf("%s's published %s: %v", on.name, kid, err)
					}
				}
			}
			if found == nil {
				t.Fatalf("%s's keyset right after the rotation lacks %s: %s", on.name, kid, set)
			}
			sig, err := jose.ParseSignedCompact(jws, []jose.SignatureAlgorithm{jose.PS256})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sig.Verify(found); err != nil {
				t.Fatalf("B's SSA does not verify with %s's published %s: %v", on.name, kid, err)
			}
		}
	})

	t.Run("Kill9OfADuringWritesLosesNoAcknowledgedWrite", func(t *testing.T) {
		a, b := a.on(t), b.on(t)
		before, _ := b.page(1, 0)
		type write struct{ id, name string }
		var mu sync.Mutex
		var acked []write
		attempted := 0
		const writers = 4
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := 0; ; i++ {
					name := fmt.Sprintf("Kill %d-%04d", w, i)
					mu.Lock()
					attempted++
					mu.Unlock()
					status, _, body, err := a.call("POST", "/api/organisations", orgBody(name), nil)
					if err != nil {
						return // A is dead
					}
					if status == 201 {
						var m struct{ OrganisationId string }
						json.Unmarshal(body, &m)
						mu.Lock()
						acked = append(acked, write{m.OrganisationId, name})
						mu.Unlock()
					} else if status != 503 { // 503: busy, not acknowledged, may be retried
						t.Errorf("a write on A: %d %s", status, body)
						return
					}
				}
			})
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			n := len(acked)
			mu.Unlock()
			if n >= 40 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("only %d writes acknowledged by A in 30 s", n)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := procA.cmd.Process.Kill(); err != nil { // SIGKILL, writes in flight
			t.Fatal(err)
		}
		_ = procA.cmd.Wait()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		t.Logf("A acknowledged %d writes of %d attempted before kill -9", len(acked), attempted)

		for _, w := range acked {
			m := b.must(200, "GET", "/api/organisations/"+w.id, "")
			if m["OrganisationName"] != w.name {
				t.Fatalf("acknowledged write %s on B: name %v, want %q", w.id, m["OrganisationName"], w.name)
			}
		}
		// Every acknowledged write, and at most the ones in flight besides.
		after, _ := b.page(1, 0)
		if after < before+len(acked) || after > before+attempted {
			t.Fatalf("B's totalSize after the kill: %d, want %d to %d", after, before+len(acked), before+attempted)
		}
		// B keeps serving: reads and writes, at once.
		if status, _, body, err := b.call("GET", "/readyz", "", nil); err != nil || status != 200 {
			t.Fatalf("B's /readyz after the kill: %d %v %s", status, err, body)
		}
		for i := range 5 {
			name := fmt.Sprintf("After the kill %d", i)
			id := b.must(201, "POST", "/api/organisations", orgBody(name))["OrganisationId"].(string)
			if m := b.must(200, "GET", "/api/organisations/"+id, ""); m["OrganisationName"] != name {
				t.Fatalf("B's write after the kill reads back %v", m["OrganisationName"])
			}
		}
		if total, _ := b.page(1, 0); total != after+5 {
			t.Fatalf("B's totalSize after 5 more writes: %d, want %d", total, after+5)
		}
		if status, _, body, err := b.call("GET", "/api/organisations?size=20&page=10", "", nil); err != nil || status != 200 {
			t.Fatalf("B's deep page after the kill: %d %v %s", status, err, body)
		}
	})
}

// signedInAs reports whether a console page shows email as the signed-in user.
func signedInAs(page []byte, email string) bool {
	return bytes.Contains(page, []byte(`data-testid="current-user">`+email+`<`))
}

func mustParse(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
