// Package keyring keeps the SSA signing keys in the database, encrypted
// with the key-encryption key (KEK), a file kept apart from the database:
// a copy of the database alone signs nothing. It makes, rotates, retires
// and publishes the keys, and lets serve, keys and the API share them. The
// KEK also seals the federation keys and identity providers' client
// secrets, and derives what several instances of one directory must share
// without storing it.
package keyring

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/ssa"
)

// KEK is the key-encryption key: AES-256-GCM over every private key.
type KEK struct {
	aead cipher.AEAD
	path string
	raw  []byte // for Derive only
}

// LoadKEK reads the KEK file (64 hex characters); a missing file is an
// error that wraps fs.ErrNotExist.
func LoadKEK(path string) (*KEK, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ssa: read KEK %s: %w", path, err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("ssa: KEK %s must hold 64 hexadecimal characters (32 bytes)", path)
	}
	return newKEK(key, path)
}

// Matches reports whether the database's KEK check value opens with this
// KEK: the keys sealed in that database were sealed with it.
func (k *KEK) Matches(check []byte) bool {
	v, err := k.Open(check, []byte("kek-check"))
	return err == nil && string(v) == kekCheckValue
}

// LoadOrCreateKEK reads the KEK file (64 hex characters), creating it with
// mode 0600 when it does not exist.
func LoadOrCreateKEK(path string) (*KEK, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("ssa: create KEK %s: %w", path, err)
		}
		if _, err := f.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		return newKEK(key, path)
	}
	if err != nil {
		return nil, fmt.Errorf("ssa: read KEK %s: %w", path, err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("ssa: KEK %s must hold 64 hexadecimal characters (32 bytes)", path)
	}
	return newKEK(key, path)
}

// ErrMissingKEK means the KEK file is missing while the database has keys
// sealed with a KEK: a new one would open none of them.
var ErrMissingKEK = errors.New("keyring: the key-encryption key file is missing")

// kekState is what the database says about the KEK it was sealed with.
type kekState interface {
	KEKCheck(ctx context.Context) ([]byte, error)
	ListSigningKeys(ctx context.Context) ([]directory.SigningKey, error)
}

// CheckKEK checks, without writing anything, that the KEK file at path opens
// the keys sealed in the database. A database with nothing sealed yet (a
// first start) needs no file: OpenKEK makes one. A missing file on a
// database with sealed keys is ErrMissingKEK, another KEK ErrWrongKEK.
func CheckKEK(ctx context.Context, st kekState, path string) error {
	_, err := checkKEK(ctx, st, path)
	return err
}

// checkKEK answers the KEK that opens the database's keys, or nil when
// nothing is sealed yet and the file does not exist.
func checkKEK(ctx context.Context, st kekState, path string) (*KEK, error) {
	check, err := st.KEKCheck(ctx)
	if err != nil {
		return nil, err
	}
	sealed := check != nil
	if !sealed {
		keys, err := st.ListSigningKeys(ctx)
		if err != nil {
			return nil, err
		}
		sealed = len(keys) > 0
	}
	kek, err := LoadKEK(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && sealed:
		return nil, fmt.Errorf("%w: %s does not exist, and this database's signing keys are sealed with a KEK: put that file back (or name it with --kek-file); nothing was changed", ErrMissingKEK, path)
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case check != nil && !kek.Matches(check):
		return nil, fmt.Errorf("%w (KEK file %s): start with the KEK this database was created with", ErrWrongKEK, path)
	}
	return kek, nil
}

// OpenKEK is the KEK of the database: the file at path, which must open the
// keys sealed in it (CheckKEK). Only a database with nothing sealed yet (a
// first start) gets a new KEK file, made with mode 0600.
func OpenKEK(ctx context.Context, st kekState, path string) (*KEK, error) {
	kek, err := checkKEK(ctx, st, path)
	if err != nil || kek != nil {
		return kek, err
	}
	return LoadOrCreateKEK(path)
}

func newKEK(key []byte, path string) (*KEK, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &KEK{aead: aead, path: path, raw: append([]byte(nil), key...)}, nil
}

// Derive is a 32-byte key for purpose, the same wherever this KEK is
// (HMAC-SHA256 of the purpose under the KEK): what several instances of one
// directory share without storing it, e.g. the DPoP nonce key.
func (k *KEK) Derive(purpose string) []byte {
	m := hmac.New(sha256.New, k.raw)
	m.Write([]byte("trustframe derived key\x00" + purpose))
	return m.Sum(nil)
}

// Seal encrypts with a fresh nonce; aad binds the ciphertext to its key id.
func (k *KEK) Seal(plain, aad []byte) []byte {
	nonce := make([]byte, k.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return k.aead.Seal(nonce, nonce, plain, aad)
}

// Open decrypts what Seal made.
func (k *KEK) Open(sealed, aad []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("keyring: sealed value too short")
	}
	return k.aead.Open(nil, sealed[:n], sealed[n:], aad)
}

const kekCheckValue = "trustframe key-encryption key check v1"

// ErrWrongKEK means the KEK does not open this database's keys.
var ErrWrongKEK = errors.New("keyring: the key-encryption key does not open this database's signing keys")

type keyStore interface {
	ListSigningKeys(ctx context.Context) ([]directory.SigningKey, error)
	CurrentSigningKey(ctx context.Context, alg string) (directory.SigningKey, error)
	CurrentSigningKid(ctx context.Context, alg string) (string, error)
	GetSigningKey(ctx context.Context, kid string) (directory.SigningKey, error)
	AddSigningKey(ctx context.Context, a directory.Actor, k directory.SigningKey) error
	RetireSigningKey(ctx context.Context, a directory.Actor, kid string, keep func(alg string) bool) error
	KEKCheck(ctx context.Context) ([]byte, error)
	SetKEKCheck(ctx context.Context, b []byte) error
}

// Keyring holds the SSA signing keys: it makes them, keeps them encrypted
// in the store and signs with the current one of each algorithm.
type Keyring struct {
	store   keyStore
	kek     *KEK
	enabled []string
	rsaBits int

	mu    sync.Mutex
	cache map[string]cachedKey // by kid, decrypted
}

type cachedKey struct {
	key *ssa.PrivateKey
	jwk ssa.JWK
}

// OpenKeyring checks the KEK against the database and makes a key for
// every enabled algorithm that has none. A wrong KEK is an error that
// changes nothing.
func OpenKeyring(ctx context.Context, st keyStore, kek *KEK, enabled []string, rsaBits int) (*Keyring, error) {
	kr := &Keyring{store: st, kek: kek, enabled: enabled, rsaBits: rsaBits, cache: map[string]cachedKey{}}
	check, err := st.KEKCheck(ctx)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if !kek.Matches(check) {
			return nil, fmt.Errorf("%w (KEK file %s): start with the KEK this database was created with", ErrWrongKEK, kek.path)
		}
	} else {
		keys, err := st.ListSigningKeys(ctx)
		if err != nil {
			return nil, err
		}
		if len(keys) > 0 {
			return nil, fmt.Errorf("%w: the database has signing keys but no KEK check", ErrWrongKEK)
		}
		if err := st.SetKEKCheck(ctx, kek.Seal([]byte(kekCheckValue), []byte("kek-check"))); err != nil {
			return nil, err
		}
	}
	for _, alg := range enabled {
		if _, err := st.CurrentSigningKey(ctx, alg); errors.Is(err, directory.ErrNotFound) {
			if _, err := kr.Rotate(ctx, directory.Actor{Actor: "system"}, alg); err != nil {
				return nil, err
			}
		} else if err != nil {
			return nil, err
		}
	}
	return kr, nil
}

// Enabled is the algorithms this deployment signs with.
func (kr *Keyring) Enabled() []string { return append([]string(nil), kr.enabled...) }

// IsEnabled reports whether alg may sign.
func (kr *Keyring) IsEnabled(alg string) bool {
	for _, a := range kr.enabled {
		if a == alg {
			return true
		}
	}
	return false
}

// Rotate makes a new key for alg; it signs from now on and the older keys
// stay published until retired.
func (kr *Keyring) Rotate(ctx context.Context, a directory.Actor, alg string) (ssa.JWK, error) {
	k, err := ssa.GenerateKey(alg, kr.rsaBits)
	if err != nil {
		return ssa.JWK{}, err
	}
	priv, err := k.Marshal()
	if err != nil {
		return ssa.JWK{}, err
	}
	jwk := k.PublicJWK()
	pub, _ := json.Marshal(jwk)
	if err := kr.store.AddSigningKey(ctx, a, directory.SigningKey{Kid: jwk.Kid, Alg: alg, PublicJWK: string(pub),
		PrivateEnc: kr.kek.Seal(priv, []byte(jwk.Kid))}); err != nil {
		return ssa.JWK{}, err
	}
	kr.mu.Lock()
	kr.cache[jwk.Kid] = cachedKey{key: k, jwk: jwk}
	kr.mu.Unlock()
	return jwk, nil
}

// Retire stops publishing a key; the last key of an enabled algorithm stays.
func (kr *Keyring) Retire(ctx context.Context, a directory.Actor, kid string) error {
	return kr.store.RetireSigningKey(ctx, a, kid, kr.IsEnabled)
}

// Signer returns the current key of alg, decrypted. The current kid is
// read from the store every time (a rotation by another process is seen at
// once); keys are decrypted once and kept in memory.
func (kr *Keyring) Signer(ctx context.Context, alg string) (*ssa.PrivateKey, ssa.JWK, error) {
	kid, err := kr.store.CurrentSigningKid(ctx, alg)
	if err != nil {
		return nil, ssa.JWK{}, err
	}
	kr.mu.Lock()
	c, ok := kr.cache[kid]
	kr.mu.Unlock()
	if ok {
		return c.key, c.jwk, nil
	}
	sk, err := kr.store.GetSigningKey(ctx, kid)
	if err != nil {
		return nil, ssa.JWK{}, err
	}
	var jwk ssa.JWK
	if err := json.Unmarshal([]byte(sk.PublicJWK), &jwk); err != nil {
		return nil, ssa.JWK{}, err
	}
	plain, err := kr.kek.Open(sk.PrivateEnc, []byte(sk.Kid))
	if err != nil {
		return nil, ssa.JWK{}, fmt.Errorf("%w: key %s", ErrWrongKEK, sk.Kid)
	}
	k, err := ssa.ParsePrivateKey(alg, plain)
	if err != nil {
		return nil, ssa.JWK{}, err
	}
	kr.mu.Lock()
	kr.cache[sk.Kid] = cachedKey{key: k, jwk: jwk}
	kr.mu.Unlock()
	return k, jwk, nil
}

// PublishedKeys is the keyset: every Active key, public members only.
func (kr *Keyring) PublishedKeys(ctx context.Context) ([]ssa.JWK, error) {
	keys, err := kr.store.ListSigningKeys(ctx)
	if err != nil {
		return nil, err
	}
	out := []ssa.JWK{}
	for _, k := range keys {
		if k.Status != "Active" {
			continue
		}
		var j ssa.JWK
		if err := json.Unmarshal([]byte(k.PublicJWK), &j); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// Keys lists every stored key (for the Reference Data page).
func (kr *Keyring) Keys(ctx context.Context) ([]directory.SigningKey, error) {
	return kr.store.ListSigningKeys(ctx)
}
