package web

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

func signRS256(t *testing.T, k *rsa.PrivateKey, kid, payload string) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k, KeyID: kid}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := sig.Sign([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := jws.CompactSerialize()
	return s
}

// The issuer's key set may hold keys of types this service does not know
// and keys for encryption: they are skipped, the signing key is used.
func TestRemoteKeysSkipsWhatItCannotUse(t *testing.T) {
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey, KeyID: "sig-1", Algorithm: "RS256", Use: "sig"})
	enc, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey, KeyID: "enc-1", Use: "enc"})
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Write([]byte(`{"keys":[{"kty":"AKP","alg":"ML-DSA-44","pub":"AAAA","kid":"pq"},` + string(enc) + `,` + string(pub) + `]}`))
	}))
	defer srv.Close()
	ks := newRemoteKeys(srv.URL, srv.Client(), time.Hour)
	payload, err := ks.VerifySignature(context.Background(), signRS256(t, k, "sig-1", `{"a":1}`))
	if err != nil || string(payload) != `{"a":1}` {
		t.Fatalf("%q %v", payload, err)
	}
	// Signed under the encryption key's ID: not a signing key, refused.
	if _, err := ks.VerifySignature(context.Background(), signRS256(t, k, "enc-1", `{}`)); err == nil {
		t.Fatal("a token under an encryption key's ID verified")
	}
	if _, err := ks.VerifySignature(context.Background(), "not.a.jwt"); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("malformed: %v", err)
	}
	if n := fetches.Load(); n != 1 {
		t.Fatalf("%d fetches", n)
	}
}

// A failing issuer is not asked again before the interval either.
func TestRemoteKeysFailingIssuer(t *testing.T) {
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	ks := newRemoteKeys(srv.URL, srv.Client(), time.Hour)
	for i := 0; i < 5; i++ {
		if _, err := ks.VerifySignature(context.Background(), signRS256(t, k, "x", `{}`)); err == nil {
			t.Fatal("verified without keys")
		}
	}
	if n := fetches.Load(); n != 1 {
		t.Fatalf("%d fetches of a failing issuer", n)
	}
}

// Issue 14 point 14: a JWT is the compact serialization only; the same
// signature in the JWS JSON serialization is not a token.
func TestRemoteKeysRefuseJSONSerialization(t *testing.T) {
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: "k", Algorithm: "RS256", Use: "sig"}}})
	}))
	defer srv.Close()
	ks := newRemoteKeys(srv.URL, srv.Client(), time.Hour)
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k, KeyID: "k"}}, nil)
	jws, _ := sig.Sign([]byte(`{"a":1}`))
	compact, _ := jws.CompactSerialize()
	if _, err := ks.VerifySignature(context.Background(), compact); err != nil {
		t.Fatalf("compact: %v", err)
	}
	full := jws.FullSerialize()
	if _, err := ks.VerifySignature(context.Background(), full); err == nil {
		t.Fatalf("the JSON serialization verified: %s", full)
	}
}
