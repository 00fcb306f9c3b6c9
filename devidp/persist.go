package devidp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"github.com/ory/fosite"
)

// RefreshTokenStore keeps refresh token sessions where a restart does not
// lose them (the service's database), so that a client's refresh token
// issued before a restart still works after it. Keys are token signatures,
// never tokens.
type RefreshTokenStore interface {
	Save(ctx context.Context, signature, requestID string, data []byte, expires time.Time) error
	// Find returns the session and whether it is active; an error when
	// there is none (or it has expired).
	Find(ctx context.Context, signature string) ([]byte, bool, error)
	Deactivate(ctx context.Context, requestID string) error
	Delete(ctx context.Context, signature string) error
}

// CodeStore keeps authorization codes, with the PKCE and OpenID Connect
// requests made with them, where every instance on the database finds
// them (docs/design.md §14): a code made by one instance is exchanged at
// another. Keys are code signatures, never codes; kind is "code", "pkce"
// or "oidc".
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

// Kinds of what a CodeStore keeps under a code's signature.
const (
	keptCode = "code"
	keptPKCE = "pkce"
	keptOIDC = "oidc"
)

// errCodeTaken is a code another exchange (on this instance or another)
// took first: the token endpoint answers invalid_grant, as for a used code.
var errCodeTaken = errors.New("devidp: the authorization code has already been used")

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

// storedRequest is an authorization request as it is kept.
type storedRequest struct {
	ID                string          `json:"id"`
	RequestedAt       time.Time       `json:"requested_at"`
	ClientID          string          `json:"client_id"`
	RequestedScope    []string        `json:"requested_scope"`
	GrantedScope      []string        `json:"granted_scope"`
	RequestedAudience []string        `json:"requested_audience"`
	GrantedAudience   []string        `json:"granted_audience"`
	Form              url.Values      `json:"form"`
	Session           json.RawMessage `json:"session"`
}

func encodeRequest(req fosite.Requester) ([]byte, error) {
	sess, err := json.Marshal(req.GetSession())
	if err != nil {
		return nil, err
	}
	return json.Marshal(storedRequest{ID: req.GetID(), RequestedAt: req.GetRequestedAt(), ClientID: req.GetClient().GetID(),
		RequestedScope: req.GetRequestedScopes(), GrantedScope: req.GetGrantedScopes(),
		RequestedAudience: req.GetRequestedAudience(), GrantedAudience: req.GetGrantedAudience(),
		Form: req.GetRequestForm(), Session: sess})
}

func (s *clientStore) decodeRequest(ctx context.Context, b []byte) (fosite.Requester, error) {
	var sr storedRequest
	if err := json.Unmarshal(b, &sr); err != nil {
		return nil, err
	}
	client, err := s.GetClient(ctx, sr.ClientID)
	if err != nil {
		return nil, err
	}
	sess := newSession("", s.audience)
	if err := json.Unmarshal(sr.Session, sess); err != nil {
		return nil, err
	}
	return &fosite.Request{ID: sr.ID, RequestedAt: sr.RequestedAt, Client: client,
		RequestedScope: sr.RequestedScope, GrantedScope: sr.GrantedScope,
		RequestedAudience: sr.RequestedAudience, GrantedAudience: sr.GrantedAudience,
		Form: sr.Form, Session: sess}, nil
}
