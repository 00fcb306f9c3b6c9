package web_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

const (
	fedNextPath     = "/references/signing-keys/federation/next"
	fedActivatePath = "/references/signing-keys/federation/next/activate"
)

// signedBy is the kid of a compact JWS's header and the kids of the jwks
// it carries (none for a subordinate statement's anchor keys).
func signedBy(t *testing.T, tok string) string {
	t.Helper()
	jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatalf("not a JWS: %v: %s", err, tok)
	}
	return jws.Signatures[0].Header.KeyID
}

// publishedKids are the kids of the entity configuration's jwks (verified
// with them) and the kid its header names.
func publishedKids(t *testing.T, env *webtest.Env) (map[string]bool, string) {
	t.Helper()
	code, _, ec := fedGet(t, env, "/.well-known/openid-federation")
	if code != 200 {
		t.Fatalf("entity configuration: %d %s", code, ec)
	}
	keys := fedClaims(t, ec, "entity-statement+jwt", nil)["jwks"].(map[string]any)["keys"].([]any)
	out := map[string]bool{}
	for _, k := range keys {
		out[k.(map[string]any)["kid"].(string)] = true
	}
	return out, signedBy(t, ec)
}

// TestFederationKeyStagedRollover: the planned rollover of the federation
// key (docs/design.md §13). Prepare publishes the next key in the entity
// configuration's jwks while the old key still signs it and the
// subordinate statements; a second prepare is 409; activate before the
// prepublish time is 409 naming when; after it the new key signs both and
// the old one is still published; activate without a next key is 409.
// Data Administrators and anonymous callers are refused and change nothing.
func TestFederationKeyStagedRollover(t *testing.T) {
	clock := &testClock{t: time.Now().Truncate(time.Second)}
	prepublish := time.Minute // shorter than an access token lives
	env := webtest.Start(t, func(c *web.Config) { c.Now = clock.Now; c.FederationKeyPrepublish = &prepublish })
	su := newAPI(t, env, "admin@example.com")

	// A subordinate, so that /federation/fetch has a statement to sign.
	oid := su.must(201, "POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"A-1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	key := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pb, _ := json.Marshal(jose.JSONWebKey{Key: key.Public(), KeyID: "acme-sig-1"})
	su.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pb)+`,"Use":"sig"}`)
	leaf := "http://127.0.0.1:18401/rp"
	su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Acme RP","FederationEntityId":"`+leaf+`"}`)
	fetchKid := func() string {
		t.Helper()
		code, _, st := fedGet(t, env, "/federation/fetch?sub="+url.QueryEscape(leaf))
		if code != 200 {
			t.Fatalf("fetch: %d %s", code, st)
		}
		return signedBy(t, st)
	}

	kids, oldKid := publishedKids(t, env)
	if len(kids) != 1 || !kids[oldKid] {
		t.Fatalf("before: published %v, signed by %s", kids, oldKid)
	}

	// Who may not: a Data Administrator and an anonymous caller.
	da := newAPIWithInvite(t, env, su, "dana@example.com")
	for _, p := range []string{fedNextPath, fedActivatePath} {
		if r, m := da.do("POST", p, ""); r.StatusCode != http.StatusForbidden {
			t.Errorf("data administrator %s: %d %v, want 403", p, r.StatusCode, m)
		}
		resp, err := http.Post(env.URL+"/api"+p, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("anonymous %s: %d, want 401", p, resp.StatusCode)
		}
	}
	// Activate with nothing prepared: 409, nothing changes.
	if r, m := su.do("POST", fedActivatePath, ""); r.StatusCode != http.StatusConflict || !strings.Contains(m["detail"].(string), "prepare one first") {
		t.Fatalf("activate without a next key: %d %v", r.StatusCode, m)
	}
	// A body with a field is refused.
	if r, m := su.do("POST", fedNextPath, `{"alg":"ES384"}`); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("prepare with a field: %d %v", r.StatusCode, m)
	}
	if list := su.must(200, "GET", "/references/signing-keys/federation", "")["list"].([]any); len(list) != 1 {
		t.Fatalf("refused requests made keys: %v", list)
	}

	// Prepare: published, not signing.
	next := su.must(201, "POST", fedNextPath, "")["kid"].(string)
	kids, signer := publishedKids(t, env)
	if len(kids) != 2 || !kids[next] || !kids[oldKid] || signer != oldKid {
		t.Fatalf("after prepare: published %v, signed by %s; want %s and %s published, %s signing", kids, signer, oldKid, next, oldKid)
	}
	if got := fetchKid(); got != oldKid {
		t.Fatalf("after prepare the subordinate statement is signed by %s, want %s", got, oldKid)
	}
	list := su.must(200, "GET", "/references/signing-keys/federation", "")["list"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["kid"] != next || list[0].(map[string]any)["Status"] != "Next" {
		t.Fatalf("list after prepare: %v", list)
	}
	// One next key at most.
	if r, m := su.do("POST", fedNextPath, `{}`); r.StatusCode != http.StatusConflict || !strings.Contains(m["detail"].(string), next) {
		t.Fatalf("second prepare: %d %v", r.StatusCode, m)
	}
	// Too early: published for less than the prepublish time.
	clock.Add(59 * time.Second)
	if r, m := su.do("POST", fedActivatePath, ""); r.StatusCode != http.StatusConflict || !strings.Contains(m["detail"].(string), "may sign from") {
		t.Fatalf("early activate: %d %v", r.StatusCode, m)
	}
	if _, signer := publishedKids(t, env); signer != oldKid {
		t.Fatalf("a refused activate changed the signer to %s", signer)
	}

	// Activate: the next key signs, the old one stays published.
	clock.Add(10 * time.Second) // the key was made a little after the clock was set
	act := su.must(200, "POST", fedActivatePath, "")
	if act["kid"] != next || act["Status"] != "Active" {
		t.Fatalf("activate: %v", act)
	}
	kids, signer = publishedKids(t, env)
	if len(kids) != 2 || !kids[oldKid] || signer != next {
		t.Fatalf("after activate: published %v, signed by %s; want %s still published, %s signing", kids, signer, oldKid, next)
	}
	if got := fetchKid(); got != next {
		t.Fatalf("after activate the subordinate statement is signed by %s, want %s", got, next)
	}
	if r, m := su.do("POST", fedActivatePath, ""); r.StatusCode != http.StatusConflict {
		t.Fatalf("a second activate: %d %v", r.StatusCode, m)
	}
	// Each action is in the audit log.
	audit := su.must(200, "GET", "/audit?SubjectType=FederationKey", "")
	b, _ := json.Marshal(audit)
	if !strings.Contains(string(b), "published as the next key") || !strings.Contains(string(b), "replaces "+oldKid) {
		t.Fatalf("audit: %s", b)
	}
}

// TestFederationKeyRolloverInTheConsole: Reference Data > Signing keys
// prepares the next key (shown as Next, published since, not signing),
// refuses a second one on the page, and starts signing with it.
func TestFederationKeyRolloverInTheConsole(t *testing.T) {
	zero := time.Duration(0)
	env := webtest.Start(t, func(c *web.Config) { c.FederationKeyPrepublish = &zero })
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, oldKid := publishedKids(t, env)

	_, doc := page(t, c, env.URL+"/references/signing-keys")
	if doc.Find("[data-testid=prepare-federation-key]").Length() != 1 || doc.Find("[data-testid=activate-federation-key]").Length() != 0 {
		t.Fatal("without a next key the page should offer prepare and not activate")
	}
	if !strings.Contains(doc.Text(), "Emergency rotation") {
		t.Error("the immediate rotation is not described as the emergency path")
	}
	status, doc := postForm(t, c, env.URL+fedNextPath, url.Values{})
	if status != 200 || !strings.Contains(doc.Find("[data-testid=flash]").Text(), "does not sign yet") {
		t.Fatalf("prepare: %d flash %q", status, doc.Find("[data-testid=flash]").Text())
	}
	nextText := doc.Find("[data-testid=federation-key-next]").Text()
	if !strings.Contains(nextText, "Next (published since") || !strings.Contains(nextText, "not signing") {
		t.Fatalf("next key shown as %q", nextText)
	}
	if doc.Find("[data-testid=activate-federation-key]").Length() != 1 || doc.Find("[data-testid=prepare-federation-key]").Length() != 0 {
		t.Fatal("with a next key the page should offer activate and not prepare")
	}
	if cls, _ := doc.Find("[data-testid=activate-federation-key]").Attr("class"); strings.Contains(cls, "secondary") ||
		!strings.Contains(doc.Find("[data-testid=federation-next-from]").Text(), "may sign since") {
		t.Errorf("a next key that may sign now: button class %q, text %q", cls, doc.Find("[data-testid=federation-next-from]").Text())
	}
	// The decoded entity configuration says which published key is the next one.
	_, own := page(t, c, env.URL+"/references/federation")
	if own.Find("[data-testid=fed-own-key]").Length() != 2 || own.Find("[data-testid=fed-own-key-signs]").Length() != 1 ||
		own.Find("[data-testid=fed-own-key-next]").Length() != 1 {
		t.Fatalf("decoded configuration keys: %q", own.Find("[data-testid=fed-own-keys]").Text())
	}
	// A second prepare (an old page): 409 on the page, with why.
	status, doc = postForm(t, c, env.URL+fedNextPath, url.Values{})
	if status != http.StatusConflict || !strings.Contains(doc.Find("[data-testid=federation-keys-error]").Text(), "already published as the next key") {
		t.Fatalf("second prepare: %d %q", status, doc.Find("[data-testid=federation-keys-error]").Text())
	}
	status, doc = postForm(t, c, env.URL+fedActivatePath, url.Values{})
	if status != 200 || !strings.Contains(doc.Find("[data-testid=flash]").Text(), "signs from now on") {
		t.Fatalf("activate: %d flash %q", status, doc.Find("[data-testid=flash]").Text())
	}
	if _, signer := publishedKids(t, env); signer == oldKid {
		t.Fatal("after activate in the console the old key still signs")
	}
	// Activate again (an old page): 409 on the page.
	status, doc = postForm(t, c, env.URL+fedActivatePath, url.Values{})
	if status != http.StatusConflict || !strings.Contains(doc.Find("[data-testid=federation-keys-error]").Text(), "prepare one first") {
		t.Fatalf("activate without a next key: %d %q", status, doc.Find("[data-testid=federation-keys-error]").Text())
	}
}

// TestFederationKeyEarlyStartInTheConsole: starting to sign with the next
// key before its prepublish time is refused in the federation section in
// the page's own words (the time as the page shows it, the wait in days
// and hours, not RFC 3339 and a Go duration), and the emergency rotation,
// which breaks relying parties at once, asks first.
func TestFederationKeyEarlyStartInTheConsole(t *testing.T) {
	env := webtest.Start(t, nil) // the default prepublish: one statement lifetime
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/references/signing-keys")
	if confirm, _ := doc.Find("[data-testid=rotate-federation-key]").Attr("data-confirm"); !strings.Contains(confirm, "fail") {
		t.Errorf("the emergency rotation does not ask first (data-confirm %q)", confirm)
	}
	if status, _ := postForm(t, c, env.URL+fedNextPath, url.Values{}); status != 200 {
		t.Fatalf("prepare: %d", status)
	}
	status, doc := postForm(t, c, env.URL+fedActivatePath, url.Values{})
	msg := doc.Find("[data-testid=federation-keys-error]").Text()
	from := doc.Find("[data-testid=federation-next-from]").Text()
	if status != http.StatusConflict || msg == "" {
		t.Fatalf("early start: %d %q", status, msg)
	}
	if !strings.HasPrefix(msg, "Not started yet:") || !strings.Contains(msg, "1 day") || strings.Contains(msg, "0m0s") || regexp.MustCompile(`\dT\d`).MatchString(msg) {
		t.Errorf("early start refused as %q", msg)
	}
	if at := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d UTC`).FindString(from); at == "" || !strings.Contains(msg, at) {
		t.Errorf("the refusal %q does not give the time the page shows (%q)", msg, from)
	}
	// Before its time the start is offered as a secondary action, saying so.
	if cls, _ := doc.Find("[data-testid=activate-federation-key]").Attr("class"); !strings.Contains(cls, "secondary") || !strings.Contains(from, "until then") {
		t.Errorf("before its time: button class %q, text %q", cls, from)
	}
}

// TestFederationKeyActivationFollowsTheStoredInstant: a next key prepared
// elsewhere (keys prepare --federation, or another instance) with another
// prepublish time than this server's: the server lists the instant stored
// with the key, its 409 and its console name that instant, and it starts
// the key at that instant, not at its own --federation-key-prepublish
// (docs/design.md §13).
func TestFederationKeyActivationFollowsTheStoredInstant(t *testing.T) {
	clock := &testClock{t: time.Now().Truncate(time.Second)}
	serverPrepublish := 48 * time.Hour
	env := webtest.Start(t, func(c *web.Config) { c.Now = clock.Now; c.FederationKeyPrepublish = &serverPrepublish })
	su := newAPI(t, env, "admin@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	// As keys prepare --federation --federation-key-prepublish 2m does.
	ctx := context.Background()
	kek, err := keyring.OpenKEK(ctx, env.DB, filepath.Join(env.DataDir, "kek.key"))
	if err != nil {
		t.Fatal(err)
	}
	cli, err := federation.OpenKeyring(ctx, env.DB, kek, "ES256", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cli.SetPrepublish(2 * time.Minute)
	jwk, err := cli.Prepare(ctx, store.Audit{Actor: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	nk, err := env.DB.NextFederationKey(ctx)
	if err != nil || nk.MaySignFrom == nil {
		t.Fatalf("next key %+v %v: no instant stored", nk, err)
	}
	from := *nk.MaySignFrom

	list := su.must(200, "GET", "/references/signing-keys/federation", "")["list"].([]any)
	if got, _ := list[0].(map[string]any)["MaySignFrom"].(string); list[0].(map[string]any)["kid"] != jwk.KeyID || got == "" {
		t.Fatalf("list: %v, want %s with MaySignFrom", list, jwk.KeyID)
	} else if at, err := time.Parse(time.RFC3339Nano, got); err != nil || !at.Equal(from) {
		t.Fatalf("listed MaySignFrom %q, want %s", got, from)
	}
	_, doc := page(t, c, env.URL+"/references/signing-keys")
	if text := doc.Find("[data-testid=federation-next-from]").Text(); !strings.Contains(text, views.FormatTime(from)) {
		t.Fatalf("the console says %q, want the stored instant %s", text, views.FormatTime(from))
	}

	// Before the stored instant: refused, naming it.
	clock.Add(from.Add(-time.Minute).Sub(clock.Now()))
	if r, m := su.do("POST", fedActivatePath, ""); r.StatusCode != http.StatusConflict || !strings.Contains(m["detail"].(string), "may sign from "+from.UTC().Format(time.RFC3339)) {
		t.Fatalf("activate before the stored instant: %d %v, want 409 naming %s", r.StatusCode, m, from.UTC().Format(time.RFC3339))
	}
	status, doc := postForm(t, c, env.URL+fedActivatePath, url.Values{})
	if msg := doc.Find("[data-testid=federation-keys-error]").Text(); status != http.StatusConflict || !strings.Contains(msg, views.FormatTime(from)) || !strings.Contains(msg, "2 minutes first") {
		t.Fatalf("console start before the stored instant: %d %q", status, msg)
	}
	// At it: the key signs, though this server's own prepublish time
	// (48 hours) has not passed.
	clock.Add(from.Sub(clock.Now()))
	if act := su.must(200, "POST", fedActivatePath, ""); act["kid"] != jwk.KeyID {
		t.Fatalf("activate at the stored instant: %v", act)
	}
	if _, signer := publishedKids(t, env); signer != jwk.KeyID {
		t.Fatalf("after activation %s signs, want %s", signer, jwk.KeyID)
	}
}
