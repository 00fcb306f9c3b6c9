// Package devidp is the development identity provider: a real OpenID
// Provider (authorization code + PKCE, RFC 9068 JWT access tokens, refresh
// tokens) built on github.com/ory/fosite, signing in any e-mail without a
// password. It serves the embedded default and the tests; it is never meant
// for production and says so on its sign-in page.
package devidp

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/mail"
	"net/url"
	"os"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v3"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/handler/openid"
	"github.com/ory/fosite/storage"
	fjwt "github.com/ory/fosite/token/jwt"
	"github.com/trustframe/trustframe/dpop"
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
	// RefreshTokens, when set, keeps refresh token sessions across
	// restarts (with a KeyFile, whose key also derives the token secret).
	RefreshTokens RefreshTokenStore
	// Codes is set when several instances share the database (with
	// SharedKey, whose key also derives the codes' secret): it keeps
	// authorization codes with their PKCE and OpenID Connect requests, so
	// that any instance exchanges a code another made, and refresh tokens
	// are then read from RefreshTokens, where another instance may have
	// rotated them. Nil: codes are kept in memory.
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
}

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
	oauth    fosite.OAuth2Provider
	store    *storage.MemoryStore
	sessions *sessions
	log      *slog.Logger
}

// New builds the provider.
func New(cfg Config) (*Provider, error) {
	if cfg.AccessTokenTTL == 0 {
		cfg.AccessTokenTTL = 15 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	key, err := openKey(cfg)
	if err != nil {
		return nil, err
	}
	kid := thumbprintRSA(&key.PublicKey)
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	fcfg := &fosite.Config{
		AccessTokenLifespan:            cfg.AccessTokenTTL,
		RefreshTokenLifespan:           24 * time.Hour,
		AuthorizeCodeLifespan:          5 * time.Minute,
		IDTokenLifespan:                time.Hour,
		AccessTokenIssuer:              cfg.Issuer,
		IDTokenIssuer:                  cfg.Issuer,
		TokenURL:                       cfg.Issuer + "/token",
		GlobalSecret:                   hmacSecret(cfg.KeyFile != "" || cfg.SharedKey != nil, x509.MarshalPKCS1PrivateKey(key), secret),
		EnforcePKCE:                    true,
		EnablePKCEPlainChallengeMethod: false,
		RefreshTokenScopes:             []string{"offline_access", "offline"},
		JWTScopeClaimKey:               fjwt.JWTScopeFieldString,
		ScopeStrategy:                  fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:       fosite.DefaultAudienceMatchingStrategy,
		MinParameterEntropy:            8,
	}
	store := storage.NewMemoryStore()
	store.Clients[WebClientID] = &fosite.DefaultClient{
		ID:            WebClientID,
		Secret:        hashSecret(cfg.WebClientSecret),
		RedirectURIs:  []string{cfg.WebRedirectURL},
		ResponseTypes: []string{"code"},
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		Scopes:        []string{"openid", "email", "profile", "offline_access"},
		Audience:      []string{cfg.APIAudience},
	}
	jwk := &jose.JSONWebKey{Key: key, KeyID: kid, Algorithm: "RS256", Use: "sig"}
	getKey := func(context.Context) (interface{}, error) { return jwk, nil }
	hmacStrategy := compose.NewOAuth2HMACStrategy(fcfg)
	strategy := &compose.CommonStrategy{
		CoreStrategy:               compose.NewOAuth2JWTStrategy(getKey, hmacStrategy, fcfg),
		OpenIDConnectTokenStrategy: compose.NewOpenIDConnectStrategy(getKey, fcfg),
		Signer:                     &fjwt.DefaultSigner{GetPrivateKey: getKey},
	}
	p := &Provider{cfg: cfg, key: key, kid: kid, store: store, log: cfg.Logger}
	st := &clientStore{clients: store, audience: cfg.APIAudience,
		sessions: newSessions(time.Now, fcfg.AuthorizeCodeLifespan, fcfg.AccessTokenLifespan, fcfg.RefreshTokenLifespan)}
	st.sessions.persist, st.sessions.decode = cfg.RefreshTokens, st.decodeRequest
	st.sessions.codeStore = cfg.Codes
	st.sessions.codeSig = func(code string) string { return hmacStrategy.AuthorizeCodeSignature(context.Background(), code) }
	p.sessions = st.sessions
	p.oauth = compose.Compose(fcfg, st, strategy,
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OpenIDConnectExplicitFactory,
		compose.OpenIDConnectRefreshFactory,
		compose.OAuth2PKCEFactory,
		compose.OAuth2TokenRevocationFactory,
	)
	return p, nil
}

func hashSecret(s string) []byte {
	h, err := (&fosite.BCrypt{Config: &fosite.Config{HashCost: 4}}).Hash(context.Background(), []byte(s))
	if err != nil {
		panic(err) // bcrypt fails only for secrets over 72 bytes, which we never make
	}
	return h
}

// clientStore answers the CLI client with the loopback redirect URI of the
// request in hand: RFC 8252 lets a native app pick any port and path on
// 127.0.0.1, [::1] or localhost, which fosite's matcher does not cover.
type clientStore struct {
	clients *storage.MemoryStore // the clients (and client assertion JTIs)
	*sessions
	audience string
}

func (s *clientStore) ClientAssertionJWTValid(ctx context.Context, jti string) error {
	return s.clients.ClientAssertionJWTValid(ctx, jti)
}

func (s *clientStore) SetClientAssertionJWT(ctx context.Context, jti string, exp time.Time) error {
	return s.clients.SetClientAssertionJWT(ctx, jti, exp)
}

type redirectKey struct{}

func (s *clientStore) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	if id != CLIClientID {
		return s.clients.GetClient(ctx, id)
	}
	var uris []string
	if u, ok := ctx.Value(redirectKey{}).(string); ok && IsLoopbackRedirect(u) {
		uris = []string{u}
	}
	return &fosite.DefaultClient{
		ID:            CLIClientID,
		Public:        true,
		RedirectURIs:  uris,
		ResponseTypes: []string{"code"},
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		Scopes:        []string{"openid", "email", "profile", "offline_access"},
		Audience:      []string{s.audience},
	}, nil
}

// IsLoopbackRedirect reports whether u is an RFC 8252 §7.3 loopback
// redirect URI: http, host 127.0.0.1, [::1] or localhost, any port, no fragment.
func IsLoopbackRedirect(u string) bool {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "http" || pu.Fragment != "" || pu.User != nil {
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

func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	doc := map[string]any{
		"issuer":                                p.cfg.Issuer,
		"authorization_endpoint":                p.cfg.Issuer + "/authorize",
		"token_endpoint":                        p.cfg.Issuer + "/token",
		"jwks_uri":                              p.cfg.Issuer + "/jwks",
		"revocation_endpoint":                   p.cfg.Issuer + "/revoke",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "email", "profile", "offline_access"},
		"claims_supported":                      []string{"sub", "email", "email_verified"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
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
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// session carries both ID token and JWT access token claims.
type session struct {
	*openid.DefaultSession
	AccessClaims *fjwt.JWTClaims
	AccessHeader *fjwt.Headers
	Email        string
	DPoPJKT      string // dpop_jkt of the authorization request (RFC 9449 §10)
}

func newSession(email, audience string) *session {
	return &session{
		DefaultSession: &openid.DefaultSession{
			Claims:   &fjwt.IDTokenClaims{Subject: email, Extra: map[string]any{"email": email, "email_verified": true}},
			Headers:  &fjwt.Headers{Extra: map[string]any{}},
			Subject:  email,
			Username: email,
		},
		AccessClaims: &fjwt.JWTClaims{Subject: email, Extra: map[string]any{"email": email}},
		AccessHeader: &fjwt.Headers{Extra: map[string]any{"typ": "at+jwt"}},
		Email:        email,
	}
}

func (s *session) GetJWTClaims() fjwt.JWTClaimsContainer { return s.AccessClaims }
func (s *session) GetJWTHeader() *fjwt.Headers           { return s.AccessHeader }
func (s *session) Clone() fosite.Session {
	c := *s
	c.DefaultSession = s.DefaultSession.Clone().(*openid.DefaultSession)
	ac := *s.AccessClaims
	ac.Extra = map[string]any{}
	for k, v := range s.AccessClaims.Extra {
		ac.Extra[k] = v
	}
	c.AccessClaims = &ac
	ah := *s.AccessHeader
	ah.Extra = map[string]any{}
	for k, v := range s.AccessHeader.Extra {
		ah.Extra[k] = v
	}
	c.AccessHeader = &ah
	return &c
}

func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	ctx := context.WithValue(r.Context(), redirectKey{}, r.FormValue("redirect_uri"))
	ar, err := p.oauth.NewAuthorizeRequest(ctx, r)
	if err != nil {
		p.log.Info("devidp: authorize refused", "err", err)
		p.oauth.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	page := SignInPage{Action: p.cfg.Issuer + "/authorize", Hidden: map[string]string{}, ClientID: ar.GetClient().GetID()}
	for _, k := range []string{"response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method", "audience", "dpop_jkt"} {
		if v := r.Form.Get(k); v != "" {
			page.Hidden[k] = v
		}
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead { // HEAD: GET's answer, no body
		page.Email = r.Form.Get("login_hint")
		p.render(w, r, http.StatusOK, page)
		return
	}
	email := strings.TrimSpace(r.PostForm.Get("email"))
	addr, perr := mail.ParseAddress(email)
	if perr != nil || addr.Address != email || !strings.Contains(email, "@") {
		page.Email, page.Error = email, "Enter an e-mail address, like name@example.com."
		p.render(w, r, http.StatusUnprocessableEntity, page)
		return
	}
	email = strings.ToLower(email)
	for _, s := range ar.GetRequestedScopes() {
		ar.GrantScope(s)
	}
	ar.GrantAudience(p.cfg.APIAudience)
	sess := newSession(email, p.cfg.APIAudience)
	sess.AccessClaims.Extra["client_id"] = ar.GetClient().GetID()
	sess.DPoPJKT = r.Form.Get("dpop_jkt")
	resp, err := p.oauth.NewAuthorizeResponse(ctx, ar, sess)
	if err != nil {
		p.oauth.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	p.oauth.WriteAuthorizeResponse(ctx, w, ar, resp)
}

func (p *Provider) render(w http.ResponseWriter, r *http.Request, status int, page SignInPage) {
	if p.cfg.RenderSignIn != nil {
		w.WriteHeader(status)
		p.cfg.RenderSignIn(w, r, page)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><title>Development sign-in</title><h1>Development sign-in</h1><form method=post action=%q>", page.Action)
	for k, v := range page.Hidden {
		fmt.Fprintf(w, "<input type=hidden name=%q value=%q>", k, v)
	}
	fmt.Fprintf(w, "<label>E-mail <input name=email value=%q></label><button>Sign in</button></form>", page.Email)
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	ctx := context.WithValue(r.Context(), redirectKey{}, r.PostFormValue("redirect_uri"))
	// A grant this provider has no handler for is unsupported_grant_type
	// (RFC 6749 §5.2), said before fosite answers it as invalid_request.
	if g := r.PostFormValue("grant_type"); g != "" && g != "authorization_code" && g != "refresh_token" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type",
			"error_description": "the development identity provider gives tokens by authorization_code (with PKCE) and refresh_token only; automation signs in with trustframe login, or uses the identity provider the directory is configured with (docs/openid-provider.md)"})
		return
	}
	// The proof is checked before fosite looks at the grant: a refused proof
	// must not use up the authorization code or its PKCE state.
	tokenType, jkt := "Bearer", ""
	if p.cfg.ProofBinder != nil {
		var err error
		jkt, err = p.cfg.ProofBinder(r)
		if errors.Is(err, dpop.ErrReplayUnavailable) {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable", "error_description": err.Error()})
			return
		}
		if err != nil {
			code := "invalid_dpop_proof"
			var de *dpop.Error
			if errors.As(err, &de) && de.UseNonce {
				code = "use_dpop_nonce"
			}
			p.setNonce(w)
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": err.Error()})
			return
		}
	}
	sess := newSession("", p.cfg.APIAudience)
	ar, err := p.oauth.NewAccessRequest(ctx, r, sess)
	if errors.Is(err, errCodeTaken) {
		err = fosite.ErrInvalidGrant.WithHint("The authorization code has already been used.")
	}
	if err != nil {
		p.log.Info("devidp: token refused", "err", err)
		p.oauth.WriteAccessError(ctx, w, ar, err)
		return
	}
	// A refresh token stays bound to the key the first token was bound to.
	s := ar.GetSession().(*session)
	// Tokens name the provider as it is now, also when refreshing a grant
	// kept from before a restart.
	s.AccessClaims.Issuer = p.cfg.Issuer
	if s.Claims != nil {
		s.Claims.Issuer = p.cfg.Issuer
	}
	bound, _ := s.AccessClaims.Extra["cnf"].(map[string]any)
	if bound != nil && bound["jkt"] != jkt {
		msg := "the refresh token is bound to another key"
		if jkt == "" {
			msg = "the refresh token is DPoP-bound: send a DPoP proof made with its key"
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_dpop_proof", "error_description": msg})
		return
	}
	if s.DPoPJKT != "" && s.DPoPJKT != jkt {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_dpop_proof", "error_description": "the proof's key is not the dpop_jkt of the authorization request"})
		return
	}
	if jkt != "" {
		s.AccessClaims.Extra["cnf"] = map[string]any{"jkt": jkt}
		tokenType = "DPoP"
	}
	for _, sc := range ar.GetRequestedScopes() {
		if ar.GetClient().GetScopes().Has(sc) {
			ar.GrantScope(sc)
		}
	}
	resp, err := p.oauth.NewAccessResponse(ctx, ar)
	if errors.Is(err, errCodeTaken) {
		err = fosite.ErrInvalidGrant.WithHint("The authorization code has already been used.")
	}
	if err != nil {
		p.oauth.WriteAccessError(ctx, w, ar, err)
		return
	}
	resp.SetTokenType(tokenType)
	p.setNonce(w)
	p.oauth.WriteAccessResponse(ctx, w, ar, resp)
}

func (p *Provider) setNonce(w http.ResponseWriter) {
	if p.cfg.Nonce != nil {
		if n := p.cfg.Nonce(); n != "" {
			w.Header().Set("DPoP-Nonce", n)
		}
	}
}

func (p *Provider) revoke(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	err := p.oauth.NewRevocationRequest(ctx, r)
	p.oauth.WriteRevocationResponse(ctx, w, err)
}
