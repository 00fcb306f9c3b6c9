package clienttoken

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Claims are the claims of an application's access token.
type Claims struct {
	Issuer     string `json:"iss"`
	Subject    string `json:"sub"` // the ClientId (RFC 9068 §2.2: the client, no resource owner)
	Audience   string `json:"aud"`
	ClientID   string `json:"client_id"`
	OrgID      string `json:"org_id"`
	SoftwareID string `json:"software_id"` // the SoftwareStatementId, as in the SSA
	Scope      string `json:"scope"`
	JTI        string `json:"jti"`
	IssuedAt   int64  `json:"iat"`
	Expiry     int64  `json:"exp"`
	Cnf        *Cnf   `json:"cnf,omitempty"`
}

// Cnf binds a token to a DPoP key (RFC 9449 §6).
type Cnf struct {
	JKT string `json:"jkt"`
}

// Minter signs and verifies the directory's access tokens for
// applications with one Ed25519 key. Only the directory verifies them,
// so the key is published nowhere; it is derived from a secret every
// instance shares (the KEK), so that every instance verifies what
// another signed.
type Minter struct {
	key    ed25519.PrivateKey
	kid    string
	header string // the JWS protected header, base64url
	now    func() time.Time
}

// NewMinter makes the minter of the key derived from seed (32 bytes).
func NewMinter(seed []byte, now func() time.Time) (*Minter, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("clienttoken: the key seed must be %d bytes", ed25519.SeedSize)
	}
	if now == nil {
		now = time.Now
	}
	key := ed25519.NewKeyFromSeed(seed)
	tp, err := (&jose.JSONWebKey{Key: key.Public()}).Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, err
	}
	kid := base64.RawURLEncoding.EncodeToString(tp)
	hdr, err := json.Marshal(map[string]string{"alg": "EdDSA", "kid": kid, "typ": TokenType})
	if err != nil {
		return nil, err
	}
	return &Minter{key: key, kid: kid, header: base64.RawURLEncoding.EncodeToString(hdr), now: now}, nil
}

// Mint signs an access token for c, filling jti, iat and exp.
func (m *Minter) Mint(c Claims) (string, time.Time, error) {
	now := m.now()
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	c.JTI = base64.RawURLEncoding.EncodeToString(jti)
	c.IssuedAt = now.Unix()
	exp := now.Add(TokenLifetime)
	c.Expiry = exp.Unix()
	// A compact JWS made here: the header is fixed, and one Ed25519
	// signature is the whole cost (a JOSE library's builder costs more
	// than the signature).
	payload, err := json.Marshal(c)
	if err != nil {
		return "", time.Time{}, err
	}
	input := m.header + "." + base64.RawURLEncoding.EncodeToString(payload)
	sig := ed25519.Sign(m.key, []byte(input))
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), time.Unix(c.Expiry, 0), nil
}

// Verify checks an access token the minter signed: typ, signature, iss,
// aud and exp.
func (m *Minter) Verify(raw, issuer, audience string) (Claims, error) {
	var c Claims
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		return c, fmt.Errorf("it is not a JWT signed by the directory: %w", ErrNotAccessToken)
	}
	if len(tok.Headers) != 1 || tok.Headers[0].ExtraHeaders[jose.HeaderType] != TokenType {
		return c, fmt.Errorf("its typ is not %s", TokenType)
	}
	if err := tok.Claims(m.key.Public(), &c); err != nil {
		return c, fmt.Errorf("its signature does not verify with the directory's key (signed by another key, or changed after signing)")
	}
	switch now := m.now(); {
	case c.Issuer != issuer:
		return c, fmt.Errorf("its iss is not %s", issuer)
	case c.Audience != audience:
		return c, fmt.Errorf("it is not for this API: its aud %s does not name %s", c.Audience, audience)
	case !now.Before(time.Unix(c.Expiry, 0)):
		return c, fmt.Errorf("it expired at %s; get a new one", time.Unix(c.Expiry, 0).UTC().Format("2006-01-02 15:04:05 UTC"))
	case c.ClientID == "" || c.OrgID == "" || c.SoftwareID == "" || c.Scope != Scope:
		return c, fmt.Errorf("it names no application (client_id, org_id, software_id) or not the scope %s", Scope)
	}
	return c, nil
}

// Metadata is the authorization server metadata (RFC 8414) of the token
// endpoint of issuer, with dpopAlgs the DPoP proof algorithms.
func Metadata(issuer string, dpopAlgs []string) map[string]any {
	return map[string]any{
		"issuer":                                issuer,
		"token_endpoint":                        issuer + "/oauth/token",
		"grant_types_supported":                 []string{GrantType},
		"token_endpoint_auth_methods_supported": []string{AuthMethod},
		"token_endpoint_auth_signing_alg_values_supported": AssertionAlgs,
		"dpop_signing_alg_values_supported":                dpopAlgs,
		"scopes_supported":                                 []string{Scope},
		"response_types_supported":                         []string{},
	}
}
