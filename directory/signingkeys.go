package directory

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/ssa"
)

// SSAKeyring is the directory's SSA signing keys as Reference Data >
// Signing keys changes them (ssa/keyring.Keyring). Retire refuses, inside
// its transaction, the last Active key of an enabled algorithm.
type SSAKeyring interface {
	Keys(ctx context.Context) ([]SigningKey, error)
	Enabled() []string
	Rotate(ctx context.Context, a Actor, alg string) (ssa.JWK, error)
	Retire(ctx context.Context, a Actor, kid string) error
}

// FederationKeyring is the directory's federation signing keys
// (federation.Keyring, docs/design.md §13).
type FederationKeyring interface {
	Keys(ctx context.Context) ([]SigningKey, error)
	Alg() string
	// MaySignFrom is the instant from which a Next key may sign.
	MaySignFrom(k SigningKey) time.Time
	Rotate(ctx context.Context, a Actor) (jose.JSONWebKey, error)
	Prepare(ctx context.Context, a Actor) (jose.JSONWebKey, error)
	Activate(ctx context.Context, a Actor, now time.Time) (SigningKey, error)
}

// SigningKeys are the use cases of Reference Data > Signing keys: the SSA
// keys and the federation keys, made, retired and rolled over.
type SigningKeys struct {
	SSA        SSAKeyring
	Federation FederationKeyring
	Now        func() time.Time
}

// KeysOverview is every signing key and what each does now.
type KeysOverview struct {
	SSA     []SigningKey      // newest first
	Current map[string]string // algorithm → kid of the key that signs (its newest Active)
	Enabled []string          // the algorithms SSAs are signed with

	Federation []SigningKey // newest first
	FedAlg     string       // the algorithm new federation keys get
	NextFrom   time.Time    // when the prepared (Next) federation key may sign; zero: none prepared
	Now        time.Time
}

// NextReady reports whether the prepared federation key may sign now.
func (o KeysOverview) NextReady() bool {
	return !o.NextFrom.IsZero() && !o.Now.Before(o.NextFrom)
}

// Overview reads both kinds of keys.
func (s *SigningKeys) Overview(ctx context.Context) (KeysOverview, error) {
	keys, err := s.SSA.Keys(ctx)
	if err != nil {
		return KeysOverview{}, err
	}
	fed, err := s.Federation.Keys(ctx)
	if err != nil {
		return KeysOverview{}, err
	}
	o := KeysOverview{SSA: keys, Current: map[string]string{}, Enabled: s.SSA.Enabled(), Federation: fed, FedAlg: s.Federation.Alg(), Now: s.Now()}
	for _, k := range keys {
		if k.Status == "Active" && o.Current[k.Alg] == "" {
			o.Current[k.Alg] = k.Kid // the list is newest first
		}
	}
	for _, k := range fed {
		if k.Status == "Next" {
			o.NextFrom = s.Federation.MaySignFrom(k)
		}
	}
	return o, nil
}

// RotateSSA makes a new SSA signing key of alg, which signs from now on.
// refused are problems the caller found reading the input; alg may be any
// algorithm trustframe signs with, enabled or not.
func (s *SigningKeys) RotateSSA(ctx context.Context, a Actor, alg string, refused Fields) (ssa.JWK, error) {
	if len(refused) > 0 {
		return ssa.JWK{}, refused.Err()
	}
	if !slices.Contains(ssa.AllAlgs, alg) {
		return ssa.JWK{}, Fields{"alg": "alg must be one of " + strings.Join(ssa.AllAlgs, ", ")}.Err()
	}
	return s.SSA.Rotate(ctx, a, alg)
}

// RetireSSA stops publishing the SSA key kid.
func (s *SigningKeys) RetireSSA(ctx context.Context, a Actor, kid string) error {
	return Named(s.SSA.Retire(ctx, a, kid), "Signing key")
}

// RotateFederation makes a new federation key that signs at once: the
// emergency path (a compromised key). PrepareFederation and
// ActivateFederation are the staged rollover (docs/design.md §13).
func (s *SigningKeys) RotateFederation(ctx context.Context, a Actor) (jose.JSONWebKey, error) {
	return s.Federation.Rotate(ctx, a)
}

// PrepareFederation publishes the next federation key, not signing yet; a
// conflict while one is prepared.
func (s *SigningKeys) PrepareFederation(ctx context.Context, a Actor) (jose.JSONWebKey, error) {
	jwk, err := s.Federation.Prepare(ctx, a)
	return jwk, Named(err, "Federation key")
}

// EarlyActivation is the conflict of a next federation key asked to sign
// before it may: it says when it may, so that people can be told how long
// to wait.
type EarlyActivation struct {
	Err         error     // the keyring's conflict, as the API says it
	PublishedAt time.Time // when the next key was published
	From        time.Time // when it may sign
	Now         time.Time
}

func (e *EarlyActivation) Error() string { return e.Err.Error() }
func (e *EarlyActivation) Unwrap() error { return e.Err }

// ActivateFederation lets the next federation key sign; a conflict
// without one, or (an *EarlyActivation) before it may.
func (s *SigningKeys) ActivateFederation(ctx context.Context, a Actor) (SigningKey, error) {
	now := s.Now()
	k, err := s.Federation.Activate(ctx, a, now)
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		return k, Named(err, "Federation key")
	}
	keys, kerr := s.Federation.Keys(ctx)
	if kerr != nil {
		return k, err
	}
	for _, next := range keys {
		if from := s.Federation.MaySignFrom(next); next.Status == "Next" && now.Before(from) {
			return k, &EarlyActivation{Err: err, PublishedAt: next.CreatedAt, From: from, Now: now}
		}
	}
	return k, err
}
