package views

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// signOwn signs claims with key as kid, publishing pub in jwks under pubKid.
func signOwn(t *testing.T, key, pub *ecdsa.PrivateKey, kid, pubKid string, claims map[string]any) string {
	t.Helper()
	claims["jwks"] = jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: pub.Public(), KeyID: pubKid, Algorithm: "ES256", Use: "sig"}}}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("entity-statement+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	jws, err := signer.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := jws.CompactSerialize()
	return tok
}

// TestFederationDecodeOwnConfiguration: an intermediate's claims (authority_hints,
// trust mark endpoints, trust_mark_issuers, constraints, other entity
// types) are all shown; a signature the published key does not make is
// said to fail, not hidden.
func TestFederationDecodeOwnConfiguration(t *testing.T) {
	k1, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k2, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	now := time.Unix(1_800_000_000, 0)
	claims := func() map[string]any {
		return map[string]any{"iss": "https://fed.example", "sub": "https://fed.example", "iat": now.Unix(), "exp": now.Add(26*time.Hour + 5*time.Minute).Unix(),
			"authority_hints":    []string{"https://ta.example"},
			"trust_mark_issuers": map[string]any{"https://tm.example/member": []string{"https://fed.example"}},
			"constraints":        map[string]any{"max_path_length": 1},
			"metadata": map[string]any{
				"federation_entity": map[string]any{"federation_fetch_endpoint": "https://fed.example/fetch", "federation_trust_mark_status_endpoint": "https://fed.example/tm/status",
					"federation_x_endpoint": "https://fed.example/x", "organization_name": "Fed", "contacts": []string{"ops@fed.example"}},
				"openid_provider": map[string]any{"issuer": "https://fed.example"},
			}}
	}
	var p OwnConfigPage
	if err := p.Decode(signOwn(t, k1, k1, "k1", "k1", claims()), now); err != nil {
		t.Fatal(err)
	}
	if !p.Verified || p.VerifyError != "" || p.Kid != "k1" || p.Alg != "ES256" || p.Typ != "entity-statement+jwt" {
		t.Fatalf("header/verification: %+v", p)
	}
	if p.ExpiresIn != "expires in 1 day 2 hours" || !p.Exp.Equal(now.Add(26*time.Hour+5*time.Minute)) || len(p.AuthorityHints) != 1 {
		t.Errorf("exp %v %q hints %v", p.Exp, p.ExpiresIn, p.AuthorityHints)
	}
	var eps []string
	for _, e := range p.Endpoints {
		eps = append(eps, e.Label+"="+e.URL)
	}
	if strings.Join(eps, " ") != "Fetch=https://fed.example/fetch Trust mark status=https://fed.example/tm/status federation_x_endpoint=https://fed.example/x" {
		t.Errorf("endpoints %v", eps)
	}
	names := func(fs []OwnField) string {
		var l []string
		for _, f := range fs {
			l = append(l, f.Name)
		}
		return strings.Join(l, " ")
	}
	if names(p.EntityFields) != "contacts organization_name" || names(p.OtherMetadata) != "openid_provider" || names(p.OtherClaims) != "constraints trust_mark_issuers" {
		t.Errorf("fields %q metadata %q claims %q", names(p.EntityFields), names(p.OtherMetadata), names(p.OtherClaims))
	}
	if len(p.Keys) != 1 || p.Keys[0].Kty != "EC P-256" || !p.Keys[0].Signs {
		t.Errorf("keys %+v", p.Keys)
	}

	// Signed with k2, k1 published under the same kid.
	p = OwnConfigPage{}
	if err := p.Decode(signOwn(t, k2, k1, "k1", "k1", claims()), now); err != nil {
		t.Fatal(err)
	}
	if p.Verified || !strings.Contains(p.VerifyError, "does not verify") {
		t.Errorf("a wrong key verified: %+v", p.VerifyError)
	}
	// Published under another kid than the header's.
	p = OwnConfigPage{}
	tok := signOwn(t, k1, k1, "k1", "other", claims())
	if err := p.Decode(tok, now); err != nil {
		t.Fatal(err)
	}
	if p.Verified || p.VerifyError != "The published jwks has no key with kid k1." {
		t.Errorf("unknown kid: %q", p.VerifyError)
	}
}
