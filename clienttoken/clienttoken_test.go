package clienttoken

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

func TestCheckGrant(t *testing.T) {
	for _, tc := range []struct{ grant, scope, code string }{
		{"client_credentials", "", ""},
		{"client_credentials", "directory:software", ""},
		{"", "", InvalidRequest},
		{"authorization_code", "", UnsupportedGrantType},
		{"client_credentials", "directory:software openid", InvalidScope},
	} {
		scope, err := CheckGrant(tc.grant, tc.scope)
		var code string
		if e, ok := err.(*Error); ok {
			code = e.Code
		}
		if code != tc.code || (tc.code == "" && scope != Scope) {
			t.Errorf("CheckGrant(%q, %q) = %q, %v; want %s", tc.grant, tc.scope, scope, err, tc.code)
		}
	}
}

// A short RSA key does not sign assertions, even registered.
func TestShortRSAKeyRefused(t *testing.T) {
	key, _ := rsa.GenerateKey(rand.Reader, 1024)
	s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.PS256, Key: key}, nil)
	raw, _ := jwt.Signed(s).Claims(map[string]any{"iss": "c", "sub": "c"}).Serialize()
	a, err := ParseAssertion(raw)
	if err != nil {
		t.Fatal(err)
	}
	jwk, _ := json.Marshal(jose.JSONWebKey{Key: key.Public()})
	if err := a.Verify([]Key{{Kid: "k", JWK: jwk}}); err == nil {
		t.Fatal("an RSA 1024 key verified an assertion")
	}
}

// A symmetric alg is refused before any key is looked at.
func TestHS256AssertionRefused(t *testing.T) {
	s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("0123456789abcdef0123456789abcdef")}, nil)
	raw, _ := jwt.Signed(s).Claims(map[string]any{"iss": "c", "sub": "c"}).Serialize()
	if _, err := ParseAssertion(raw); err == nil || !strings.Contains(err.Error(), "alg") {
		t.Fatalf("HS256: %v", err)
	}
}

func TestMinterVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	m, err := NewMinter(make([]byte, 32), clock)
	if err != nil {
		t.Fatal(err)
	}
	c := Claims{Issuer: "https://d.example", Audience: "https://d.example/api", Subject: "app", ClientID: "app", OrgID: "org", SoftwareID: "app", Scope: Scope}
	raw, _, err := m.Mint(c)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := m.Verify(raw, c.Issuer, c.Audience); err != nil || got.ClientID != "app" || got.Expiry-got.IssuedAt != 300 {
		t.Fatalf("Verify: %+v %v", got, err)
	}
	other, _ := NewMinter([]byte(strings.Repeat("x", 32)), clock)
	forged, _, _ := other.Mint(c)
	if _, err := m.Verify(forged, c.Issuer, c.Audience); err == nil {
		t.Fatal("a token of another key verified")
	}
	if _, err := m.Verify(raw, c.Issuer, "https://elsewhere.example/api"); err == nil {
		t.Fatal("a token for another audience verified")
	}
	now = now.Add(TokenLifetime)
	if _, err := m.Verify(raw, c.Issuer, c.Audience); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("an expired token: %v", err)
	}
}
