// Package clienttoken holds the rules of the directory's own token
// endpoint (docs/design.md §20): an application authenticates with a
// client assertion (RFC 7523, private_key_jwt) signed by one of its keys
// and gets a short-lived access token (RFC 9068, at+jwt) for the API,
// signed by the directory. No HTTP and no SQL: the use case in directory
// and the handler call it.
package clienttoken

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const (
	// GrantType is the one grant the endpoint serves.
	GrantType = "client_credentials"
	// AssertionType is the client_assertion_type of RFC 7523 §2.2.
	AssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	// AuthMethod is the client authentication method (OpenID Connect Core §9).
	AuthMethod = "private_key_jwt"
	// Scope is the one scope: what an application may do for itself.
	Scope = "directory:software"
	// TokenType is the typ header of the access tokens (RFC 9068).
	TokenType = "at+jwt"
	// TokenLifetime is how long an access token is good for.
	TokenLifetime = 5 * time.Minute
	// MaxAssertionLifetime is how far ahead an assertion's exp may be.
	MaxAssertionLifetime = 5 * time.Minute
	// Skew is the clock difference allowed between a client and the
	// directory, on exp and nbf.
	Skew = 30 * time.Second
	// MaxJTI is the longest jti taken, in bytes: every used one is kept
	// until it expires, so its size is the client's to bound, not the
	// body limit's. A UUID is 36.
	MaxJTI = 256
	// ActorPrefix starts the audit actor and the principal's name of an
	// application: client:<ClientId>.
	ActorPrefix = "client:"
)

// AssertionAlgs are the algorithms a client assertion may be signed with:
// asymmetric only (a client secret is no private key).
var AssertionAlgs = []string{"ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512", "EdDSA"}

// Error is a refusal in the words of RFC 6749 §5.2 (and RFC 9449 §5 for
// invalid_dpop_proof).
type Error struct {
	Code        string // invalid_request, invalid_client, invalid_grant, unsupported_grant_type, invalid_scope, invalid_dpop_proof
	Description string
}

func (e *Error) Error() string { return "clienttoken: " + e.Code + ": " + e.Description }

func refuse(code, format string, args ...any) *Error {
	return &Error{Code: code, Description: fmt.Sprintf(format, args...)}
}

// The codes of RFC 6749 §5.2.
const (
	InvalidRequest       = "invalid_request"
	InvalidClient        = "invalid_client"
	InvalidGrant         = "invalid_grant"
	UnsupportedGrantType = "unsupported_grant_type"
	InvalidScope         = "invalid_scope"
	InvalidDPoPProof     = "invalid_dpop_proof"
)

// CheckGrant checks grant_type and scope; it answers the scope granted.
func CheckGrant(grantType, scope string) (string, error) {
	switch grantType {
	case "":
		return "", refuse(InvalidRequest, "grant_type is missing; send grant_type=%s", GrantType)
	case GrantType:
	default:
		return "", refuse(UnsupportedGrantType, "grant_type %q is not served here: the directory's token endpoint gives tokens by %s only", grantType, GrantType)
	}
	for _, s := range strings.Fields(scope) {
		if s != Scope {
			return "", refuse(InvalidScope, "scope %q is not one an application may ask for: the only scope is %s", s, Scope)
		}
	}
	return Scope, nil
}

// Assertion is a client assertion read but not yet verified.
type Assertion struct {
	token     *jwt.JSONWebToken
	Alg       string
	Kid       string
	Issuer    string
	Subject   string
	Audience  []string
	Expiry    time.Time // zero when absent
	NotBefore time.Time // zero when absent
	JTI       string
}

// ParseAssertion reads a client assertion: a compact JWS with an
// algorithm of AssertionAlgs. It checks no claim.
func ParseAssertion(raw string) (*Assertion, error) {
	if raw == "" {
		return nil, refuse(InvalidClient, "client_assertion is missing: authenticate with a JWT signed by a key of the application (%s)", AuthMethod)
	}
	algs := make([]jose.SignatureAlgorithm, len(AssertionAlgs))
	for i, a := range AssertionAlgs {
		algs[i] = jose.SignatureAlgorithm(a)
	}
	tok, err := jwt.ParseSigned(raw, algs)
	if err != nil {
		if strings.Contains(err.Error(), "unexpected signature algorithm") {
			return nil, refuse(InvalidClient, "the client assertion's alg is not one of %s", strings.Join(AssertionAlgs, ", "))
		}
		return nil, refuse(InvalidClient, "the client assertion is not a signed JWT (header.payload.signature, each base64url)")
	}
	if len(tok.Headers) != 1 {
		return nil, refuse(InvalidClient, "the client assertion must have one signature")
	}
	var c struct {
		Iss string           `json:"iss"`
		Sub string           `json:"sub"`
		Aud jwt.Audience     `json:"aud"`
		Exp *jwt.NumericDate `json:"exp"`
		Nbf *jwt.NumericDate `json:"nbf"`
		JTI string           `json:"jti"`
	}
	if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil {
		return nil, refuse(InvalidClient, "the client assertion's claims are not a JSON object of the expected types")
	}
	a := &Assertion{token: tok, Alg: tok.Headers[0].Algorithm, Kid: tok.Headers[0].KeyID, Issuer: c.Iss, Subject: c.Sub, Audience: c.Aud, JTI: c.JTI}
	if c.Exp != nil {
		a.Expiry = c.Exp.Time()
	}
	if c.Nbf != nil {
		a.NotBefore = c.Nbf.Time()
	}
	return a, nil
}

// ClientID is the application the assertion says it is from: iss, which
// must equal sub (RFC 7523 §3), and clientID when the request named one.
func (a *Assertion) ClientID(clientID string) (string, error) {
	if a.Issuer == "" || a.Subject != a.Issuer {
		return "", refuse(InvalidClient, "the client assertion's iss and sub must both be the application's ClientId")
	}
	if clientID != "" && clientID != a.Issuer {
		return "", refuse(InvalidClient, "client_id %q is not the client assertion's iss", clientID)
	}
	return a.Issuer, nil
}

// CheckClaims checks aud (one of audiences), exp (present, not past, at
// most MaxAssertionLifetime ahead), nbf (not ahead) and jti (present, at
// most MaxJTI long).
func (a *Assertion) CheckClaims(audiences []string, now time.Time) error {
	if !slices.ContainsFunc(a.Audience, func(aud string) bool { return slices.Contains(audiences, aud) }) {
		return refuse(InvalidClient, "the client assertion's aud must name this token endpoint (%s)", strings.Join(audiences, " or "))
	}
	switch {
	case a.Expiry.IsZero():
		return refuse(InvalidClient, "the client assertion has no exp")
	case !now.Before(a.Expiry.Add(Skew)):
		return refuse(InvalidClient, "the client assertion expired at %s", a.Expiry.UTC().Format(time.RFC3339))
	case a.Expiry.After(now.Add(MaxAssertionLifetime + Skew)):
		return refuse(InvalidClient, "the client assertion's exp is more than %s ahead", MaxAssertionLifetime)
	case !a.NotBefore.IsZero() && a.NotBefore.After(now.Add(Skew)):
		return refuse(InvalidClient, "the client assertion is not valid before %s", a.NotBefore.UTC().Format(time.RFC3339))
	case a.JTI == "":
		return refuse(InvalidClient, "the client assertion has no jti")
	case len(a.JTI) > MaxJTI:
		return refuse(InvalidClient, "the client assertion's jti is longer than %d bytes", MaxJTI)
	}
	return nil
}

// Key is a public key that may sign an application's assertions.
type Key struct {
	Kid string
	JWK json.RawMessage // a public JWK
}

// Verify checks the assertion's signature with the key of keys its kid
// names, or with each of keys when it names none.
func (a *Assertion) Verify(keys []Key) error {
	if len(keys) == 0 {
		return refuse(InvalidClient, "the application has no Active signing key: register key material with Use sig bound to it (SoftwareStatementId), or have the directory issue it a signing certificate")
	}
	tried := false
	for _, k := range keys {
		if a.Kid != "" && k.Kid != a.Kid {
			continue
		}
		tried = true
		var jwk jose.JSONWebKey
		if err := jwk.UnmarshalJSON(k.JWK); err != nil || !strongEnough(jwk.Key) {
			continue
		}
		var claims map[string]any
		if err := a.token.Claims(jwk.Key, &claims); err == nil {
			return nil
		}
	}
	if !tried {
		return refuse(InvalidClient, "the client assertion's kid %q is not an Active signing key of the application", a.Kid)
	}
	return refuse(InvalidClient, "the client assertion's signature does not verify with an Active signing key of the application")
}

// maxRSABits is the largest RSA key an assertion may be signed with: the
// bound of orgkeys.MaxRSABits and pki.MaxRSABits, which this package may
// not import (docs/design.md §1.1).
const maxRSABits = 8192

// strongEnough refuses RSA keys under 2048 bits, and over maxRSABits (key
// material takes none; one registered before would cost a token request
// seconds of CPU to check a garbage signature under it).
func strongEnough(key any) bool {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return k.N.BitLen() >= 2048 && k.N.BitLen() <= maxRSABits
	case *ecdsa.PublicKey, ed25519.PublicKey:
		return true
	}
	return false
}

// ErrNotAccessToken is a token that is not one of the directory's.
var ErrNotAccessToken = errors.New("clienttoken: not an access token of the directory")
