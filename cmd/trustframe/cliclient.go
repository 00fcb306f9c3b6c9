package main

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/trustframe/trustframe/clienttoken"
	"github.com/trustframe/trustframe/dpop"
)

// appClient is `trustframe api --client-id … --key-file …`: an
// application calling the API for itself (docs/design.md §20). It gets a
// token at the directory's token endpoint with a client assertion it
// signs, DPoP-bound unless --no-dpop, and keeps nothing on disk but the
// DPoP key.
type appClient struct {
	e        *cliEnv
	server   string
	clientID string
	kid      string
	signer   jose.Signer
	noDPoP   bool
}

// newAppClient reads the application's private key (PEM: PKCS #8, EC or
// RSA) and finds the server's token endpoint.
func newAppClient(e *cliEnv, server, clientID, keyFile, kid string, noDPoP bool) (*appClient, error) {
	if server == "" {
		return nil, fmt.Errorf("%w: --client-id needs --server (the directory's URL)", errUsage)
	}
	if keyFile == "" {
		return nil, fmt.Errorf("%w: --client-id needs --key-file (the application's private key, PEM)", errUsage)
	}
	key, err := readPrivateKey(keyFile)
	if err != nil {
		return nil, err
	}
	alg, err := assertionAlg(key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyFile, err)
	}
	sk := jose.SigningKey{Algorithm: alg, Key: key}
	if kid != "" {
		sk.Key = jose.JSONWebKey{Key: key, KeyID: kid}
	}
	signer, err := jose.NewSigner(sk, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, err
	}
	return &appClient{e: e, server: strings.TrimRight(server, "/"), clientID: clientID, kid: kid, signer: signer, noDPoP: noDPoP}, nil
}

func readPrivateKey(path string) (crypto.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("%s is not PEM", path)
	}
	var key any
	switch blk.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(blk.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(blk.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a private key: %w", path, err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: %T cannot sign", path, key)
	}
	return s, nil
}

// assertionAlg is the algorithm a key signs client assertions with.
func assertionAlg(key crypto.Signer) (jose.SignatureAlgorithm, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve.Params().BitSize {
		case 256:
			return jose.ES256, nil
		case 384:
			return jose.ES384, nil
		case 521:
			return jose.ES512, nil
		}
	case *rsa.PrivateKey:
		return jose.PS256, nil
	case ed25519.PrivateKey:
		return jose.EdDSA, nil
	}
	return "", errors.New("the key is neither EC (P-256, P-384, P-521), RSA nor Ed25519")
}

// assertion is a new client assertion for the token endpoint.
func (a *appClient) assertion(tokenEndpoint string) (string, error) {
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	now := time.Now()
	return jwt.Signed(a.signer).Claims(map[string]any{"iss": a.clientID, "sub": a.clientID, "aud": tokenEndpoint,
		"iat": now.Unix(), "exp": now.Add(time.Minute).Unix(), "jti": base64.RawURLEncoding.EncodeToString(jti)}).Serialize()
}

// token gets a new access token into c.
func (a *appClient) token(ctx context.Context, c *credentials, key *dpop.Signer) error {
	assertion, err := a.assertion(c.TokenEndpoint)
	if err != nil {
		return err
	}
	tr, err := a.e.tokenRequest(ctx, c, key, url.Values{"grant_type": {clienttoken.GrantType}, "client_assertion_type": {clienttoken.AssertionType},
		"client_assertion": {assertion}, "scope": {clienttoken.Scope}})
	if err != nil {
		return fmt.Errorf("application %s: %w", a.clientID, err)
	}
	c.take(tr, time.Now())
	return nil
}

// signIn finds the token endpoint and gets the first token: the
// credentials of this one command.
func (a *appClient) signIn(ctx context.Context) (*credentials, *dpop.Signer, error) {
	var meta struct {
		TokenEndpoint string `json:"token_endpoint"`
	}
	if err := a.e.getJSON(ctx, a.server+"/.well-known/oauth-authorization-server", &meta); err != nil {
		return nil, nil, fmt.Errorf("the directory's token endpoint: %w", err)
	}
	if meta.TokenEndpoint == "" {
		return nil, nil, errors.New("the directory names no token endpoint")
	}
	c := &credentials{Server: a.server, TokenEndpoint: meta.TokenEndpoint, ClientID: a.clientID, NoDPoP: a.noDPoP}
	key, err := a.e.dpopKey()
	if err != nil {
		return nil, nil, err
	}
	if err := a.token(ctx, c, key); err != nil {
		return nil, nil, err
	}
	return c, key, nil
}
