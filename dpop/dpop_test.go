package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/formats"
)

var (
	t0     = time.Unix(1_800_000_000, 0)
	ecKey  = mustEC()
	ecKey2 = mustEC()
)

func mustEC() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

const (
	token     = "eyJ0eXAiOiJhdCtqd3QifQ.eyJzdWIiOiJhIn0.sig"
	targetURL = "https://tf.example/api/users/super"
)

func ath(tok string) string {
	s := sha256.Sum256([]byte(tok))
	return b64(s[:])
}

func jktOf(k *ecdsa.PrivateKey) string {
	s, _ := NewSigner(k)
	return s.Thumbprint()
}

func TestGoodProofPasses(t *testing.T) {
	h, c := goodParts()
	p, err := checker().Check([]string{build(t, h, c, ecKey)}, request())
	if err != nil {
		t.Fatal(err)
	}
	if p.Thumbprint != jktOf(ecKey) || p.HTM != "GET" || p.JTI != "jti-1" {
		t.Fatalf("%+v", p)
	}
}

// TestEachRule: every case breaks exactly one rule of RFC 9449 §4.3 and is
// refused for that rule.
func TestEachRule(t *testing.T) {
	cases := []struct {
		name string
		rule string
		mod  func(h, c map[string]any)
		req  func(r *Request)
		raw  func(good string) []string
	}{
		{name: "two proofs", rule: RuleHeaderCount, raw: func(g string) []string { return []string{g, g} }},
		{name: "no proof", rule: RuleHeaderCount, raw: func(string) []string { return nil }},
		{name: "two proofs in one header", rule: RuleHeaderCount, raw: func(g string) []string { return []string{g + "," + g} }},
		{name: "malformed JWT", rule: RuleMalformed, raw: func(string) []string { return []string{"not.a-jwt"} }},
		{name: "header not JSON", rule: RuleMalformed, raw: func(string) []string { return []string{b64([]byte("{")) + ".e30.c2ln"} }},
		{name: "header nested past the JSON limit", rule: RuleMalformed, mod: func(h, c map[string]any) { h["x"] = nestedArrays(formats.MaxJSONDepth) }},
		{name: "claims nested past the JSON limit", rule: RuleMalformed, mod: func(h, c map[string]any) { c["x"] = nestedArrays(formats.MaxJSONDepth) }},
		{name: "typ JWT", rule: RuleTyp, mod: func(h, c map[string]any) { h["typ"] = "JWT" }},
		{name: "typ missing", rule: RuleTyp, mod: func(h, c map[string]any) { delete(h, "typ") }},
		{name: "HS256", rule: RuleAlg, mod: func(h, c map[string]any) { h["alg"] = "HS256" }},
		{name: "none", rule: RuleAlg, mod: func(h, c map[string]any) { h["alg"] = "none" }},
		{name: "no jwk", rule: RuleJWK, mod: func(h, c map[string]any) { delete(h, "jwk") }},
		{name: "private jwk", rule: RulePrivateKey, mod: func(h, c map[string]any) { h["jwk"] = ecJWK(ecKey, true) }},
		{name: "symmetric jwk", rule: RulePrivateKey, mod: func(h, c map[string]any) { h["jwk"] = map[string]any{"kty": "oct", "k": "c2VjcmV0"} }},
		{name: "signed by another key", rule: RuleSignature, mod: func(h, c map[string]any) { h["jwk"] = ecJWK(ecKey2, false) }},
		{name: "no jti", rule: RuleClaims, mod: func(h, c map[string]any) { delete(c, "jti") }},
		{name: "no iat", rule: RuleClaims, mod: func(h, c map[string]any) { delete(c, "iat") }},
		{name: "wrong htm", rule: RuleHTM, mod: func(h, c map[string]any) { c["htm"] = "POST" }},
		{name: "htm lower case", rule: RuleHTM, mod: func(h, c map[string]any) { c["htm"] = "get" }},
		{name: "htu with another host", rule: RuleHTU, mod: func(h, c map[string]any) { c["htu"] = "https://evil.example/api/users/super" }},
		{name: "htu with another path", rule: RuleHTU, mod: func(h, c map[string]any) { c["htu"] = "https://tf.example/api/users" }},
		{name: "htu with another scheme", rule: RuleHTU, mod: func(h, c map[string]any) { c["htu"] = "http://tf.example/api/users/super" }},
		{name: "old iat", rule: RuleIAT, mod: func(h, c map[string]any) { c["iat"] = t0.Add(-61 * time.Second).Unix() }},
		{name: "future iat", rule: RuleIAT, mod: func(h, c map[string]any) { c["iat"] = t0.Add(10 * time.Second).Unix() }},
		{name: "missing ath", rule: RuleATH, mod: func(h, c map[string]any) { delete(c, "ath") }},
		{name: "wrong ath", rule: RuleATH, mod: func(h, c map[string]any) { c["ath"] = ath("another token") }},
		{name: "key not matching cnf.jkt", rule: RuleBinding, req: func(r *Request) { r.JKT = jktOf(ecKey2) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, c := goodParts()
			if tc.mod != nil {
				tc.mod(h, c)
			}
			proof := build(t, h, c, ecKey)
			headers := []string{proof}
			if tc.raw != nil {
				hh, cc := goodParts()
				headers = tc.raw(build(t, hh, cc, ecKey))
			}
			req := request()
			if tc.req != nil {
				tc.req(&req)
			}
			_, err := checker().Check(headers, req)
			var de *Error
			if !errors.As(err, &de) || de.Rule != tc.rule {
				t.Fatalf("got %v, want rule %s", err, tc.rule)
			}
		})
	}
}

// nestedArrays is n arrays, one in the other.
func nestedArrays(n int) any {
	var v any = "x"
	for range n {
		v = []any{v}
	}
	return v
}

func TestReplayedJTI(t *testing.T) {
	c := checker()
	h, cl := goodParts()
	proof := build(t, h, cl, ecKey)
	if _, err := c.Check([]string{proof}, request()); err != nil {
		t.Fatal(err)
	}
	_, err := c.Check([]string{proof}, request())
	var de *Error
	if !errors.As(err, &de) || de.Rule != RuleReplay {
		t.Fatalf("replay: %v", err)
	}
	// A refused proof does not use up its jti.
	c2 := checker()
	bad := request()
	bad.Method = "POST"
	if _, err := c2.Check([]string{proof}, bad); err == nil {
		t.Fatal("wrong method accepted")
	}
	if _, err := c2.Check([]string{proof}, request()); err != nil {
		t.Fatalf("a refused proof consumed its jti: %v", err)
	}
}

func TestReplayCacheExpiresAndIsBounded(t *testing.T) {
	now := t0
	rc := NewReplayCache(3, func() time.Time { return now })
	add := func(k string, exp time.Time) (bool, error) { return rc.Add(k, exp) }
	for i, k := range []string{"a", "b", "c"} {
		if fresh, err := add(k, now.Add(time.Duration(i+1)*time.Minute)); !fresh || err != nil {
			t.Fatal("add", err)
		}
	}
	if fresh, err := add("b", now.Add(time.Minute)); fresh || err != nil {
		t.Fatalf("a live key again: fresh %v, err %v; want a replay (false, no error)", fresh, err)
	}
	if fresh, err := add("d", now.Add(time.Minute)); fresh || err == nil {
		t.Fatalf("a full cache of live entries: fresh %v, err %v; want an error (not a replay)", fresh, err)
	}
	now = now.Add(90 * time.Second) // "a" expired
	if fresh, err := add("d", now.Add(time.Minute)); !fresh || err != nil || rc.Len() != 3 {
		t.Fatalf("expired entry not dropped: %d %v", rc.Len(), err)
	}
	if fresh, _ := add("a", now.Add(time.Minute)); fresh || rc.Len() > 3 {
		t.Fatal("bound exceeded")
	}
}

// failingReplay is a ReplayStore that cannot record anything.
type failingReplay struct{}

func (failingReplay) Add(string, time.Time) (bool, error) { return false, errors.New("database gone") }

// TestReplayStoreErrorIsNotAReplay: when the proofs seen cannot be checked,
// Check fails with ErrReplayUnavailable, not with the jti_replay rule (the
// client did nothing wrong and may try again).
func TestReplayStoreErrorIsNotAReplay(t *testing.T) {
	h, cl := goodParts()
	c := &Checker{Now: func() time.Time { return t0 }, Replay: failingReplay{}}
	_, err := c.Check([]string{build(t, h, cl, ecKey)}, request())
	var de *Error
	if !errors.Is(err, ErrReplayUnavailable) || errors.As(err, &de) {
		t.Fatalf("Check: %v; want ErrReplayUnavailable and no rule", err)
	}
}

func TestHTUNormalisation(t *testing.T) {
	for _, ok := range []string{"HTTPS://TF.example/api/users/super", "https://tf.example:443/api/users/super"} {
		h, c := goodParts()
		c["htu"] = ok
		if _, err := checker().Check([]string{build(t, h, c, ecKey)}, request()); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestNonces(t *testing.T) {
	now := t0
	n := NewNonces(5*time.Minute, func() time.Time { return now })
	c := &Checker{Now: func() time.Time { return now }, Nonces: n}
	h, cl := goodParts()
	_, err := c.Check([]string{build(t, h, cl, ecKey)}, request())
	var de *Error
	if !errors.As(err, &de) || de.Rule != RuleNonce || !de.UseNonce {
		t.Fatalf("no nonce: %v", err)
	}
	cl["nonce"] = "forged"
	cl["jti"] = "2"
	if _, err := c.Check([]string{build(t, h, cl, ecKey)}, request()); !errors.As(err, &de) || de.Rule != RuleNonce {
		t.Fatalf("forged nonce: %v", err)
	}
	cl["nonce"] = n.New()
	cl["jti"] = "3"
	if _, err := c.Check([]string{build(t, h, cl, ecKey)}, request()); err != nil {
		t.Fatalf("good nonce: %v", err)
	}
	stale := n.New()
	now = now.Add(6 * time.Minute)
	cl["nonce"], cl["jti"], cl["iat"] = stale, "4", now.Unix()
	if _, err := c.Check([]string{build(t, h, cl, ecKey)}, request()); !errors.As(err, &de) || de.Rule != RuleNonce {
		t.Fatalf("stale nonce: %v", err)
	}
}

// TestSignerRoundTrip: proofs made by Signer pass Check, for each key type.
func TestSignerRoundTrip(t *testing.T) {
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	for _, k := range []crypto.Signer{ecKey, p384, rsaKey, edKey} {
		s, err := NewSigner(k)
		if err != nil {
			t.Fatal(err)
		}
		s.now = func() time.Time { return t0 }
		raw, err := s.Proof("GET", targetURL, token, "")
		if err != nil {
			t.Fatal(err)
		}
		p, err := checker().Check([]string{raw}, Request{Method: "GET", URL: targetURL, AccessToken: token, JKT: s.Thumbprint()})
		if err != nil {
			t.Fatalf("%T: %v", k, err)
		}
		if p.Thumbprint != s.Thumbprint() {
			t.Fatal("thumbprint")
		}
	}
}

// TestRFC7638Thumbprint checks the thumbprint against the example of RFC 7638 §3.1.
func TestRFC7638Thumbprint(t *testing.T) {
	n := "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
	nb, _ := base64.RawURLEncoding.DecodeString(n)
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(nb), E: 65537}
	if got := thumbprintOf(pub); got != "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs" {
		t.Fatalf("thumbprint %s", got)
	}
}

func TestParseRefusesHugeProofs(t *testing.T) {
	_, err := Parse(strings.Repeat("a", 9000), DefaultAlgs)
	var de *Error
	if !errors.As(err, &de) || de.Rule != RuleMalformed {
		t.Fatal(err)
	}
}

// The iat refusal says its window as a person would: it read "more than
// 1m0s in the past".
func TestIATMessageSaysTheWindowPlainly(t *testing.T) {
	for _, tc := range []struct {
		iat  time.Time
		want string
	}{
		{t0.Add(-61 * time.Second), "iat is more than 1 minute in the past"},
		{t0.Add(10 * time.Second), "iat is more than 5 seconds in the future"},
	} {
		h, c := goodParts()
		c["iat"] = tc.iat.Unix()
		_, err := checker().Check([]string{build(t, h, c, ecKey)}, request())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("got %v, want %q", err, tc.want)
		}
	}
	for d, want := range map[time.Duration]string{time.Minute: "1 minute", 5 * time.Minute: "5 minutes", time.Second: "1 second", 90 * time.Second: "90 seconds", 1500 * time.Millisecond: "1.5s"} {
		if got := spoken(d); got != want {
			t.Errorf("spoken(%v) = %q, want %q", d, got, want)
		}
	}
}
