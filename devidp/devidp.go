// Package devidp is the development identity provider: a small, strict
// OpenID Provider (authorization code with PKCE S256, RFC 9068 JWT access
// tokens, rotated refresh tokens, RFC 7009 revocation, DPoP binding) on
// go-jose and the standard library, signing in any e-mail without a
// password. It serves the embedded default and the tests; it is never meant
// for production and says so on its sign-in page.
package devidp

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Client IDs the provider knows.
const (
	WebClientID = "trustframe-web"
	CLIClientID = "trustframe-cli"
)

// Config configures the provider.
type Config struct {
	Issuer          string // e.g. http://127.0.0.1:8080/dev/idp
	APIAudience     string // aud of access tokens
	WebRedirectURL  string // the web app's callback
	WebClientSecret string // the web app's secret
	KeyFile         string // PEM RSA key, created (0600) when missing; empty: in memory
	// SharedKey, when set, is where the key is kept for every instance on
	// one database: it gets the PKCS #1 key this provider would use
	// (KeyFile's or a new one), keeps it if none is kept yet, and returns
	// the kept one, which signs (and is written to a missing KeyFile).
	SharedKey func(made []byte) ([]byte, error)
	// RefreshTokens, when set, keeps refresh tokens across restarts (with
	// a KeyFile or SharedKey, whose key also derives the token secret).
	RefreshTokens RefreshTokenStore
	// Codes is set when several instances share the database (with
	// SharedKey, whose key also derives the codes' secret): it keeps
	// authorization codes so that any instance exchanges a code another
	// made, and refresh tokens are then read from RefreshTokens, where
	// another instance may have rotated them. Nil: codes are kept in memory.
	Codes          CodeStore
	AccessTokenTTL time.Duration // default 15 minutes
	Logger         *slog.Logger
	// ProofBinder, when set, checks a DPoP proof on token requests and returns
	// the JWK thumbprint the token is bound to ("" for none).
	ProofBinder func(r *http.Request) (jkt string, err error)
	// Nonce, when set and returning non-empty, is sent as DPoP-Nonce.
	Nonce func() string
	// RenderSignIn writes the sign-in page; nil uses a minimal built-in page.
	RenderSignIn func(w http.ResponseWriter, r *http.Request, p SignInPage)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Lifetimes of what the provider issues.
const (
	codeTTL    = 5 * time.Minute
	refreshTTL = 24 * time.Hour
	idTokenTTL = time.Hour
)

// SignInPage is the view model of the development sign-in form.
type SignInPage struct {
	Action   string            // form action (the authorize URL)
	Hidden   map[string]string // authorization request parameters carried over
	Email    string
	Error    string
	ClientID string
}

// Provider is the development OpenID Provider.
type Provider struct {
	cfg      Config
	key      *rsa.PrivateKey
	kid      string
	signers  map[string]jose.Signer // by typ: "JWT" (ID tokens), "at+jwt"
	secret   []byte                 // HMAC key of the opaque tokens' signatures
	sessions *sessions
	log      *slog.Logger
	now      func() time.Time
}

// New builds the provider.
func New(cfg Config) (*Provider, error) {
	if cfg.AccessTokenTTL == 0 {
		cfg.AccessTokenTTL = 15 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	key, err := openKey(cfg)
	if err != nil {
		return nil, err
	}
	random := make([]byte, 32)
	if _, err := rand.Read(random); err != nil {
		return nil, err
	}
	p := &Provider{cfg: cfg, key: key, kid: thumbprintRSA(&key.PublicKey), log: cfg.Logger, now: cfg.Now,
		secret:  hmacSecret(cfg.KeyFile != "" || cfg.SharedKey != nil, x509.MarshalPKCS1PrivateKey(key), random),
		signers: map[string]jose.Signer{}}
	for _, typ := range []string{"JWT", "at+jwt"} {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: p.kid}},
			(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
		if err != nil {
			return nil, err
		}
		p.signers[typ] = s
	}
	p.sessions = newSessions(func() time.Time { return p.now() }, codeTTL, refreshTTL)
	p.sessions.persist, p.sessions.codeStore = cfg.RefreshTokens, cfg.Codes
	return p, nil
}

// IsLoopbackRedirect reports whether u is an RFC 8252 §7.3 loopback
// redirect URI: http, host 127.0.0.1, [::1] or localhost, any port, no fragment.
func IsLoopbackRedirect(u string) bool {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "http" || pu.Fragment != "" || pu.User != nil || pu.Opaque != "" {
		return false
	}
	switch pu.Hostname() {
	case "127.0.0.1", "::1", "localhost":
		return true
	}
	return false
}

// openKey is the signing key. With cfg.SharedKey it is the shared one:
// KeyFile's key (or a new one) is offered first, so a deployment keeps the
// key it had, and a missing KeyFile is written with the shared key; a
// KeyFile holding another key is left alone and not used. Without it,
// KeyFile's key, made when missing.
func openKey(cfg Config) (*rsa.PrivateKey, error) {
	own, err := readKey(cfg.KeyFile)
	if err != nil {
		return nil, err
	}
	key := own
	if key == nil {
		if key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			return nil, err
		}
	}
	if cfg.SharedKey != nil {
		der, err := cfg.SharedKey(x509.MarshalPKCS1PrivateKey(key))
		if err != nil {
			return nil, err
		}
		if key, err = x509.ParsePKCS1PrivateKey(der); err != nil {
			return nil, fmt.Errorf("devidp: the shared key: %w", err)
		}
		if own != nil && !own.Equal(key) {
			cfg.Logger.Warn("devidp: the key file holds another key than the one shared in the database; the shared one signs", "file", cfg.KeyFile)
		}
	}
	if own == nil && cfg.KeyFile != "" {
		b := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
		if err := os.WriteFile(cfg.KeyFile, b, 0o600); err != nil {
			return nil, fmt.Errorf("devidp: write key: %w", err)
		}
	}
	return key, nil
}

// readKey reads a key file; nil when path is empty or there is no file.
func readKey(path string) (*rsa.PrivateKey, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("devidp: %s: not PEM", path)
	}
	k, err := x509.ParsePKCS1PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("devidp: %s: %w", path, err)
	}
	return k, nil
}

func thumbprintRSA(pub *rsa.PublicKey) string {
	b, _ := (&jose.JSONWebKey{Key: pub}).Thumbprint(crypto.SHA256)
	return base64.RawURLEncoding.EncodeToString(b)
}

// PublicKeys returns the keys that verify the provider's tokens.
func (p *Provider) PublicKeys() []*rsa.PublicKey { return []*rsa.PublicKey{&p.key.PublicKey} }

// Issuer is the provider's issuer identifier.
func (p *Provider) Issuer() string { return p.cfg.Issuer }

// Routes are the provider's endpoints by "METHOD path", to mount under the issuer's path.
func (p *Provider) Routes() map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"GET /.well-known/openid-configuration": p.discovery,
		"GET /jwks":                             p.jwks,
		"GET /authorize":                        p.authorize,
		"POST /authorize":                       p.authorize,
		"POST /token":                           p.token,
		"POST /revoke":                          p.revoke,
	}
}

// scopes are the scopes the provider grants; offline_access brings a
// refresh token, openid an ID token.
var scopes = []string{"openid", "email", "profile", "offline_access"}

func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	doc := map[string]any{
		"issuer":                                         p.cfg.Issuer,
		"authorization_endpoint":                         p.cfg.Issuer + "/authorize",
		"token_endpoint":                                 p.cfg.Issuer + "/token",
		"jwks_uri":                                       p.cfg.Issuer + "/jwks",
		"revocation_endpoint":                            p.cfg.Issuer + "/revoke",
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"subject_types_supported":                        []string{"public"},
		"id_token_signing_alg_values_supported":          []string{"RS256"},
		"scopes_supported":                               scopes,
		"claims_supported":                               []string{"iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "email", "email_verified"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic", "client_secret_post", "none"},
		"revocation_endpoint_auth_methods_supported":     []string{"client_secret_basic", "client_secret_post", "none"},
		"authorization_response_iss_parameter_supported": true,
		"request_parameter_supported":                    false,
		"request_uri_parameter_supported":                false,
		"claims_parameter_supported":                     false,
	}
	if p.cfg.ProofBinder != nil {
		doc["dpop_signing_alg_values_supported"] = DPoPAlgs
	}
	writeJSON(w, http.StatusOK, doc)
}

// DPoPAlgs are the proof algorithms the provider advertises when DPoP is on.
var DPoPAlgs = []string{"ES256", "ES384", "ES512", "EdDSA", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512"}

func (p *Provider) jwks(w http.ResponseWriter, r *http.Request) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: p.kid, Algorithm: "RS256", Use: "sig"}}}
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Content-Type", "application/jwk-set+json")
	_ = json.NewEncoder(w).Encode(set)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (p *Provider) render(w http.ResponseWriter, r *http.Request, status int, page SignInPage) {
	if p.cfg.RenderSignIn != nil {
		w.WriteHeader(status)
		p.cfg.RenderSignIn(w, r, page)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<!doctype html><html lang="en"><meta charset="utf-8"><title>Development sign-in</title><main><h1>Development sign-in</h1><p>For development only: this identity provider signs in any e-mail without a password.</p><form method="post" action="%s">`, html.EscapeString(page.Action))
	for k, v := range page.Hidden {
		fmt.Fprintf(w, `<input type="hidden" name="%s" value="%s">`, html.EscapeString(k), html.EscapeString(v))
	}
	if page.Error != "" {
		fmt.Fprintf(w, `<p role="alert">%s</p>`, html.EscapeString(page.Error))
	}
	fmt.Fprintf(w, `<label>E-mail <input name="email" type="email" value="%s"></label><button>Sign in</button></form></main>`, html.EscapeString(page.Email))
}

// refusePage answers an authorization request that cannot be sent back to
// its client (unknown client, redirect URI not registered): RFC 6749
// §4.1.2.1 forbids redirecting it, so the user is told here.
func refusePage(w http.ResponseWriter, code, description string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprintf(w, `<!doctype html><html lang="en"><meta charset="utf-8"><title>Sign-in request refused</title><main><h1>Sign-in request refused</h1><p>The development identity provider refused this sign-in request (<code>%s</code>): %s</p><p>It is not sent back to the application, whose address could not be confirmed.</p></main>`,
		html.EscapeString(code), html.EscapeString(description))
}
