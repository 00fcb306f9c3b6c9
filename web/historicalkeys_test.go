package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// historicalKeys fetches /federation/historical-keys, checks its media
// type, caching and header (typ jwk-set+jwt, the kid of the key that signs
// the entity configuration now), verifies it with the entity
// configuration's published keys and returns its claims and its keys by kid.
func historicalKeys(t *testing.T, env *webtest.Env) (map[string]any, map[string]map[string]any) {
	t.Helper()
	published, signer := publishedKids(t, env)
	_, _, ec := fedGet(t, env, "/.well-known/openid-federation")
	b, _ := json.Marshal(fedClaims(t, ec, "entity-statement+jwt", nil)["jwks"])
	var jwks jose.JSONWebKeySet
	if err := json.Unmarshal(b, &jwks); err != nil || len(jwks.Keys) != len(published) {
		t.Fatalf("published keys: %v %s", err, b)
	}
	resp, body := send(t, "GET", env.URL+"/federation/historical-keys")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/jwk-set+jwt" {
		t.Fatalf("historical keys: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=60" {
		t.Errorf("Cache-Control %q, want as the entity configuration's", cc)
	}
	if kid := signedBy(t, body); kid != signer {
		t.Fatalf("signed by %s, want the current key %s", kid, signer)
	}
	claims := fedClaims(t, body, "jwk-set+jwt", &jwks)
	if claims["iss"] != env.URL {
		t.Errorf("iss %v, want %s", claims["iss"], env.URL)
	}
	if iat, _ := claims["iat"].(float64); iat <= 0 {
		t.Errorf("iat %v", claims["iat"])
	}
	keys, ok := claims["keys"].([]any)
	if !ok {
		t.Fatalf("keys is not an array: %v", claims)
	}
	byKid := map[string]map[string]any{}
	for _, k := range keys {
		m := k.(map[string]any)
		if m["d"] != nil {
			t.Fatalf("a private key is listed: %v", m)
		}
		byKid[m["kid"].(string)] = m
	}
	return claims, byKid
}

// fedKeysByKid is the federation keys as the API lists them, by kid.
func fedKeysByKid(su *api) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, k := range su.must(200, "GET", "/references/signing-keys/federation", "")["list"].([]any) {
		m := k.(map[string]any)
		out[m["kid"].(string)] = m
	}
	return out
}

func unixOf(t *testing.T, v any) int64 {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, v.(string))
	if err != nil {
		t.Fatal(err)
	}
	return ts.Unix()
}

// TestHistoricalKeys: GET /federation/historical-keys (docs/design.md §17)
// lists every retired federation key with iat (first published) and exp
// (retired plus one statement lifetime); a key the staged rollover
// retired is not revoked, one the emergency rotation retired is revoked
// as compromised. The Active and the Next key are never listed. The answer
// is a jwk-set+jwt the current key signs; anything but GET is a
// federation error.
func TestHistoricalKeys(t *testing.T) {
	clock := &testClock{t: time.Now().Truncate(time.Second)}
	prepublish := time.Duration(0)
	lifetime := 2 * time.Hour
	env := webtest.Start(t, func(c *web.Config) {
		c.Now = clock.Now
		c.FederationKeyPrepublish = &prepublish
		c.FederationStatementLifetime = lifetime
	})
	su := newAPI(t, env, "admin@example.com")

	// One key, Active: nothing is historical.
	_, first := publishedKids(t, env)
	if _, keys := historicalKeys(t, env); len(keys) != 0 {
		t.Fatalf("before any rotation: %v", keys)
	}

	// A Next key is published, not historical.
	next := su.must(201, "POST", fedNextPath, "")["kid"].(string)
	if _, keys := historicalKeys(t, env); len(keys) != 0 {
		t.Fatalf("with a next key: %v", keys)
	}

	// The staged rollover retires the first key: listed, not revoked.
	clock.Add(10 * time.Second)
	su.must(200, "POST", fedActivatePath, "")
	_, keys := historicalKeys(t, env)
	stored := fedKeysByKid(su)
	k, ok := keys[first]
	if len(keys) != 1 || !ok {
		t.Fatalf("after the rollover: %v, want %s only", keys, first)
	}
	if int64(k["iat"].(float64)) != unixOf(t, stored[first]["CreatedAt"]) ||
		int64(k["exp"].(float64)) != unixOf(t, stored[first]["RetiredAt"])+int64(lifetime.Seconds()) {
		t.Errorf("iat/exp %v %v, want created %v and retired %v plus %s", k["iat"], k["exp"], stored[first]["CreatedAt"], stored[first]["RetiredAt"], lifetime)
	}
	if k["revoked"] != nil || stored[first]["Compromised"] != nil {
		t.Errorf("a key the staged rollover retired is revoked: %v %v", k, stored[first])
	}
	if k["kty"] != "EC" || k["x"] == nil || k["alg"] != "ES256" {
		t.Errorf("not the public JWK: %v", k)
	}

	// The emergency rotation retires the key that signed: revoked, compromised.
	clock.Add(10 * time.Second)
	current := su.must(201, "POST", "/references/signing-keys/federation", "")["kid"].(string)
	claims, keys := historicalKeys(t, env)
	if len(keys) != 2 || keys[first] == nil || keys[next] == nil || keys[current] != nil {
		t.Fatalf("after the emergency rotation: %v, want %s and %s", keys, first, next)
	}
	stored = fedKeysByKid(su)
	if stored[next]["Compromised"] != true {
		t.Errorf("the listing does not say the replaced key is compromised: %v", stored[next])
	}
	rev, _ := keys[next]["revoked"].(map[string]any)
	if rev["reason"] != "compromised" || int64(rev["revoked_at"].(float64)) != unixOf(t, stored[next]["RetiredAt"]) {
		t.Errorf("revoked %v, want compromised at %v", keys[next]["revoked"], stored[next]["RetiredAt"])
	}
	if int64(keys[next]["exp"].(float64)) != unixOf(t, stored[next]["RetiredAt"])+int64(lifetime.Seconds()) {
		t.Errorf("exp %v", keys[next]["exp"])
	}
	if keys[first]["revoked"] != nil {
		t.Errorf("the key the rollover retired became revoked: %v", keys[first])
	}
	if int64(claims["iat"].(float64)) != clock.Now().Unix() {
		t.Errorf("iat %v, want now %d", claims["iat"], clock.Now().Unix())
	}

	// Long after the keys stopped being published they are still listed.
	clock.Add(3 * lifetime)
	if published, _ := publishedKids(t, env); len(published) != 1 {
		t.Fatalf("published after a lifetime: %v", published)
	}
	if _, keys := historicalKeys(t, env); len(keys) != 2 {
		t.Fatalf("later: %v", keys)
	}

	// Anything but GET: the federation error shape.
	resp, body := send(t, "POST", env.URL+"/federation/historical-keys")
	var fe map[string]string
	if resp.StatusCode != http.StatusMethodNotAllowed || json.Unmarshal([]byte(body), &fe) != nil || fe["error"] != "invalid_request" ||
		!strings.Contains(resp.Header.Get("Allow"), "GET") {
		t.Errorf("POST: %d %s %q", resp.StatusCode, body, resp.Header.Get("Allow"))
	}
}
