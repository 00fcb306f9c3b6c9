package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// remoteKeys verifies JWTs with an issuer's published keys (its JWKS),
// fetched again only when a token names a key it does not have, and then
// at most once per minRefresh. go-oidc's RemoteKeySet fetches for every
// such token, so anyone could make this service call the issuer at will by
// sending tokens with made-up key IDs; here that costs one fetch per
// interval, and a key rotated in at the issuer is picked up by the first
// token that needs it after the interval.
type remoteKeys struct {
	uri        string
	client     *http.Client
	minRefresh time.Duration

	fetchMu sync.Mutex // one fetch at a time
	mu      sync.RWMutex
	keys    []jose.JSONWebKey
	fetched time.Time // last fetch, successful or not
	fetches int       // for tests
}

// maxJWKS bounds an issuer's key set document.
const maxJWKS = 1 << 20

func newRemoteKeys(uri string, client *http.Client, minRefresh time.Duration) *remoteKeys {
	return &remoteKeys{uri: uri, client: client, minRefresh: minRefresh}
}

var jwsAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

// VerifySignature implements oidc.KeySet.
func (k *remoteKeys) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	// A JWT is the compact serialization only (RFC 7519 §1).
	jws, err := jose.ParseSignedCompact(raw, jwsAlgs)
	if err != nil {
		return nil, fmt.Errorf("malformed JWT: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("the JWT must carry exactly one signature")
	}
	kid := jws.Signatures[0].Header.KeyID
	if payload, ok := k.verify(jws, kid); ok {
		return payload, nil
	}
	if err := k.refresh(ctx); err != nil {
		return nil, err
	}
	if payload, ok := k.verify(jws, kid); ok {
		return payload, nil
	}
	return nil, errors.New("no key of the issuer verifies this token")
}

func (k *remoteKeys) verify(jws *jose.JSONWebSignature, kid string) ([]byte, bool) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, key := range k.keys {
		if kid != "" && key.KeyID != kid {
			continue
		}
		if payload, err := jws.Verify(key); err == nil {
			return payload, true
		}
	}
	return nil, false
}

// refresh fetches the key set unless that was done less than minRefresh
// ago (then the keys in hand are as fresh as the rule allows).
func (k *remoteKeys) refresh(ctx context.Context) error {
	k.fetchMu.Lock()
	defer k.fetchMu.Unlock()
	k.mu.RLock()
	recent := !k.fetched.IsZero() && time.Since(k.fetched) < k.minRefresh
	k.mu.RUnlock()
	if recent {
		return errors.New("no key of the issuer verifies this token (its keys were fetched moments ago)")
	}
	keys, err := k.fetch(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fetched = time.Now()
	k.fetches++
	if err != nil {
		return fmt.Errorf("fetching the issuer's keys from %s: %w", k.uri, err)
	}
	k.keys = keys
	return nil
}

func (k *remoteKeys) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.uri, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKS+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxJWKS {
		return nil, errors.New("the key set is larger than 1 MiB")
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("the key set is not a JWKS: %w", err)
	}
	var keys []jose.JSONWebKey
	for _, rawKey := range set.Keys {
		var key jose.JSONWebKey
		// A key of a type this service does not know is skipped, not fatal.
		if key.UnmarshalJSON(rawKey) != nil {
			continue
		}
		if key.IsPublic() && key.Valid() && (key.Use == "" || key.Use == "sig") {
			keys = append(keys, key)
		}
	}
	return keys, nil
}
