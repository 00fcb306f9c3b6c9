package devidp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// RefreshTokenStore keeps refresh tokens' grants where a restart does not
// lose them (the service's database), so that a client's refresh token
// issued before a restart still works after it. Keys are token signatures,
// never tokens; requestID is the grant's ID.
type RefreshTokenStore interface {
	Save(ctx context.Context, signature, requestID string, data []byte, expires time.Time) error
	// Find returns the session and whether it is active; an error when
	// there is none (or it has expired).
	Find(ctx context.Context, signature string) ([]byte, bool, error)
	// Deactivate makes every refresh token of a grant inactive.
	Deactivate(ctx context.Context, requestID string) error
	// Use makes every refresh token of the token's grant inactive when the
	// token is active, and reports whether it was: of two instances using
	// one token, one gets true (rotation; false is a reuse).
	Use(ctx context.Context, signature string) (bool, error)
}

// CodeStore keeps authorization codes where every instance on the
// database finds them (docs/design.md §14): a code made by one instance is
// exchanged at another. Keys are code signatures, never codes; kind is
// "code".
type CodeStore interface {
	Save(ctx context.Context, kind, signature string, data []byte, expires time.Time) error
	// Find returns a request and whether it is active; an error when there
	// is none (or it has expired).
	Find(ctx context.Context, kind, signature string) ([]byte, bool, error)
	// Invalidate makes a request inactive (kept until it expires, so that a
	// reuse is recognised); false when it was not active.
	Invalidate(ctx context.Context, kind, signature string) (bool, error)
	// Delete forgets a request; false when there was none.
	Delete(ctx context.Context, kind, signature string) (bool, error)
}

// keptCode is the kind under which a CodeStore keeps codes.
const keptCode = "code"

// hmacSecret is the secret of the opaque tokens (codes, refresh tokens).
// With a kept key (a key file, or the key shared in the database) it is
// derived from the signing key, so it is the same after a restart and on
// every instance, and the refresh tokens issued before still verify;
// without one it is random, like the key.
func hmacSecret(kept bool, keyDER []byte, random []byte) []byte {
	if !kept {
		return random
	}
	sum := sha256.Sum256(append([]byte("trustframe development identity provider token secret\x00"), keyDER...))
	return sum[:]
}

// sign is the signature under which an opaque token (a code, a refresh
// token) is kept: what is kept cannot be used as the token.
func (p *Provider) sign(token string) string {
	m := hmac.New(sha256.New, p.secret)
	m.Write([]byte(token))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// randomToken is 32 random bytes, base64url: codes, refresh tokens, IDs.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// grant is an authorization grant as it is kept: with its code (until the
// code is exchanged) and with each of its refresh tokens. The grant's ID
// names every refresh token it led to, so that a reused code or refresh
// token revokes them all.
type grant struct {
	ID       string   `json:"id"`
	ClientID string   `json:"client_id"`
	Email    string   `json:"email"`
	Scope    []string `json:"scope"`
	AuthTime int64    `json:"auth_time"`
	Expires  int64    `json:"expires"` // the code's or refresh token's end (Unix seconds)
	// The authorization request, for the code exchange.
	RedirectURI   string `json:"redirect_uri,omitempty"`
	RedirectGiven bool   `json:"redirect_given,omitempty"`
	Nonce         string `json:"nonce,omitempty"`
	Challenge     string `json:"code_challenge,omitempty"`
	DPoPJKT       string `json:"dpop_jkt,omitempty"`
	// JKT is the key the grant's refresh tokens are bound to (RFC 9449 §5).
	JKT string `json:"jkt,omitempty"`
}

func (g *grant) has(scope string) bool { return slices.Contains(g.Scope, scope) }

func encodeGrant(g *grant) ([]byte, error) { return json.Marshal(g) }

func decodeGrant(b []byte) (*grant, error) {
	var g grant
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, err
	}
	if g.ID == "" || g.ClientID == "" || g.Email == "" {
		return nil, errors.New("devidp: a kept grant from another version")
	}
	return &g, nil
}
