package federation

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/store"
)

// SigningAlgs are the algorithms a directory's federation keys may use,
// default first (docs/design.md §13).
var SigningAlgs = []string{"ES256", "ES384", "PS256", "EdDSA"}

// Sealer seals private keys at rest: the key-encryption key (keyring.KEK).
type Sealer interface {
	Seal(plain, aad []byte) []byte
	Open(sealed, aad []byte) ([]byte, error)
}

type keyStore interface {
	ListFederationKeys(ctx context.Context) ([]store.SigningKey, error)
	CurrentFederationKey(ctx context.Context) (store.SigningKey, error)
	AddFederationKey(ctx context.Context, a store.Audit, k store.SigningKey) error
	PrepareFederationKey(ctx context.Context, a store.Audit, k store.SigningKey, prepublish time.Duration) error
	ActivateFederationKey(ctx context.Context, a store.Audit, ready func(store.SigningKey) error) (store.SigningKey, error)
}

// Keyring holds the directory's federation signing keys, sealed in the
// store (docs/design.md §13). The newest Active key signs; a key replaced
// by a rotation stays published for one statement lifetime after it
// stopped signing, so that everything it signed can still be verified. A
// Next key (Prepare) is published but does not sign until Activate.
type Keyring struct {
	store      keyStore
	kek        Sealer
	alg        string
	lifetime   time.Duration
	prepublish time.Duration

	mu    sync.Mutex
	cache map[string]crypto.Signer
}

func keyAAD(kid string) []byte { return []byte("trustframe federation key\x00" + kid) }

// OpenKeyring makes a key of alg when the store has none (first start).
func OpenKeyring(ctx context.Context, st keyStore, kek Sealer, alg string, lifetime time.Duration) (*Keyring, error) {
	if alg == "" {
		alg = SigningAlgs[0]
	}
	if !contains(anyList(SigningAlgs), alg) {
		return nil, fmt.Errorf("federation: signing algorithm %q is not one of %v", alg, SigningAlgs)
	}
	kr := &Keyring{store: st, kek: kek, alg: alg, lifetime: lifetime, prepublish: lifetime, cache: map[string]crypto.Signer{}}
	if _, err := st.CurrentFederationKey(ctx); errors.Is(err, store.ErrNotFound) {
		if _, err := kr.Rotate(ctx, store.Audit{Actor: "system"}); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	return kr, nil
}

// Alg is the algorithm new keys get.
func (kr *Keyring) Alg() string { return kr.alg }

// Lifetime is how long a statement signed now lives.
func (kr *Keyring) Lifetime() time.Duration { return kr.lifetime }

// SetPrepublish sets how long a Next key that Prepare makes must have
// been published before Activate lets it sign (0: at once). The default is
// one statement lifetime: an entity configuration fetched just before the
// key was published is kept that long, and does not name the key. Prepare
// stores the instant with the key; Activate reads this time only for a
// Next key prepared before that (see MaySignFrom).
func (kr *Keyring) SetPrepublish(d time.Duration) { kr.prepublish = d }

// Prepublish is the time SetPrepublish set.
func (kr *Keyring) Prepublish() time.Duration { return kr.prepublish }

func generate(alg string) (crypto.Signer, error) {
	switch alg {
	case "ES256":
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ES384":
		return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "PS256":
		return rsa.GenerateKey(rand.Reader, 2048)
	case "EdDSA":
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return k, err
	}
	return nil, fmt.Errorf("federation: unknown algorithm %q", alg)
}

// Rotate makes a new key that signs from now on; the previous one stops
// signing and stays published for a statement lifetime. It is the
// emergency path: relying parties that hold the anchor's keys configured
// fail until they add the new key (Prepare and Activate avoid that).
func (kr *Keyring) Rotate(ctx context.Context, a store.Audit) (jose.JSONWebKey, error) {
	return kr.make(ctx, func(k store.SigningKey) error { return kr.store.AddFederationKey(ctx, a, k) })
}

// Prepare makes the Next key: published in the entity configuration's
// jwks from now on, not signing until Activate. It may sign from now plus
// Prepublish; the store keeps that instant with the key. While a Next key
// exists it is a store.ConflictError.
func (kr *Keyring) Prepare(ctx context.Context, a store.Audit) (jose.JSONWebKey, error) {
	return kr.make(ctx, func(k store.SigningKey) error { return kr.store.PrepareFederationKey(ctx, a, k, kr.prepublish) })
}

// MaySignFrom is the instant from which a Next key may sign: the one
// stored when it was prepared. A Next key prepared before migration 0031
// has none stored and is reckoned as before, from its creation time and
// this keyring's Prepublish (docs/decisions.md).
func (kr *Keyring) MaySignFrom(k store.SigningKey) time.Time {
	if k.MaySignFrom != nil {
		return *k.MaySignFrom
	}
	return k.CreatedAt.Add(kr.prepublish)
}

// Activate lets the Next key sign from now on; the key that signed until
// now is retired and stays published for a statement lifetime. Without a
// Next key, or before the instant it may sign from (MaySignFrom, stored
// when it was prepared), it is a store.ConflictError naming why (and when
// it becomes possible).
func (kr *Keyring) Activate(ctx context.Context, a store.Audit, now time.Time) (store.SigningKey, error) {
	return kr.store.ActivateFederationKey(ctx, a, func(next store.SigningKey) error {
		if from := kr.MaySignFrom(next); now.Before(from) {
			return &store.ConflictError{Message: fmt.Sprintf("federation key %s has been published since %s; it may sign from %s (published for %s first, so that relying parties can add it)",
				next.Kid, next.CreatedAt.UTC().Format(time.RFC3339), from.UTC().Format(time.RFC3339), from.Sub(next.CreatedAt).Round(time.Second))}
		}
		return nil
	})
}

// make generates a key of the keyring's algorithm and hands it, sealed,
// to save.
func (kr *Keyring) make(ctx context.Context, save func(store.SigningKey) error) (jose.JSONWebKey, error) {
	priv, err := generate(kr.alg)
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	pub := jose.JSONWebKey{Key: priv.Public(), Algorithm: kr.alg, Use: "sig"}
	tp, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	pub.KeyID = b64(tp)
	pj, err := pub.MarshalJSON()
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	if err := save(store.SigningKey{Kid: pub.KeyID, Alg: kr.alg, PublicJWK: string(pj),
		PrivateEnc: kr.kek.Seal(der, keyAAD(pub.KeyID))}); err != nil {
		return jose.JSONWebKey{}, err
	}
	kr.mu.Lock()
	kr.cache[pub.KeyID] = priv
	kr.mu.Unlock()
	return pub, nil
}

// Keys lists every stored key, newest first (for the Reference Data page).
func (kr *Keyring) Keys(ctx context.Context) ([]store.SigningKey, error) {
	return kr.store.ListFederationKeys(ctx)
}

// Published is the key set of the entity configuration: the signing key,
// the Next key (published before it signs) and every key that stopped
// signing less than a lifetime ago.
func (kr *Keyring) Published(ctx context.Context, now time.Time) (jose.JSONWebKeySet, error) {
	set, _, err := kr.PublishedAndCompromised(ctx, now)
	return set, err
}

// PublishedAndCompromised is Published, with when each published key an
// emergency rotation retired was retired (by kid): what such a key
// signed may be anyone's (docs/design.md §17).
func (kr *Keyring) PublishedAndCompromised(ctx context.Context, now time.Time) (jose.JSONWebKeySet, map[string]time.Time, error) {
	keys, err := kr.store.ListFederationKeys(ctx)
	if err != nil {
		return jose.JSONWebKeySet{}, nil, err
	}
	var set jose.JSONWebKeySet
	var compromised map[string]time.Time
	for _, k := range keys {
		if k.Status != "Active" && k.Status != "Next" && (k.RetiredAt == nil || !k.RetiredAt.Add(kr.lifetime).After(now)) {
			continue
		}
		var j jose.JSONWebKey
		if err := j.UnmarshalJSON([]byte(k.PublicJWK)); err != nil {
			return set, nil, fmt.Errorf("federation: key %s: %w", k.Kid, err)
		}
		set.Keys = append(set.Keys, j)
		if k.Compromised && k.RetiredAt != nil {
			if compromised == nil {
				compromised = map[string]time.Time{}
			}
			compromised[k.Kid] = *k.RetiredAt
		}
	}
	return set, compromised, nil
}

// Sign signs claims as a JWT of type typ with the current key.
func (kr *Keyring) Sign(ctx context.Context, typ string, claims map[string]any) (string, error) {
	sk, err := kr.store.CurrentFederationKey(ctx)
	if err != nil {
		return "", fmt.Errorf("federation: no signing key: %w", err)
	}
	kr.mu.Lock()
	priv, ok := kr.cache[sk.Kid]
	kr.mu.Unlock()
	if !ok {
		der, err := kr.kek.Open(sk.PrivateEnc, keyAAD(sk.Kid))
		if err != nil {
			return "", fmt.Errorf("federation: key %s does not open with this KEK", sk.Kid)
		}
		k, err := x509.ParsePKCS8PrivateKey(der)
		if err != nil {
			return "", fmt.Errorf("federation: key %s: %w", sk.Kid, err)
		}
		if priv, ok = k.(crypto.Signer); !ok {
			return "", fmt.Errorf("federation: key %s is not a signing key", sk.Kid)
		}
		kr.mu.Lock()
		kr.cache[sk.Kid] = priv
		kr.mu.Unlock()
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(sk.Alg), Key: jose.JSONWebKey{Key: priv, KeyID: sk.Kid}},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
