// Package web is trustframe's HTTP surface: the router, middleware,
// authentication (OIDC web sign-in, API access tokens) and the development
// identity provider's mounting. Handlers live in package handlers.
package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/clientlimit"
	"github.com/trustframe/trustframe/clienttoken"
	"github.com/trustframe/trustframe/devidp"
	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/dpop"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/federation/anchor"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/handlers"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Config is what the server needs to know; cmd/trustframe fills it from
// flags and environment.
type Config struct {
	BaseURL           string // public URL, no trailing slash
	APIAudience       string // aud of API access tokens; default BaseURL+"/api"
	OIDCIssuer        string // empty: the development identity provider
	OIDCClientID      string
	OIDCClientSecret  string
	EmailClaim        string // default "email"
	TokenTypes        []string
	DevIdPAllowRemote bool
	DataDir           string
	SMTPURL           string
	RateLimit         int // sign-in and token requests per minute per client address; 0: off
	APIRateLimit      int // API requests per minute per administrator; 0: off
	// MaxLongPolls and MaxLongPollsPerAdmin bound the change feed's long
	// polls held at once (0: handlers.DefaultMaxPolls and
	// handlers.DefaultMaxPollsPerPrincipal).
	MaxLongPolls, MaxLongPollsPerAdmin int
	DPoPNonce                          bool          // require server nonces in DPoP proofs (RFC 9449 §8, §9)
	DPoPWindow                         time.Duration // how old a DPoP proof may be; default 60 s
	DPoPSkew                           time.Duration // how far in the future a proof's iat may be; default 5 s
	StatusVocabulary                   string        // withdrawn (default) or inactive
	// AllowPrivateIssuerURLs lets issuer validation reach loopback and
	// private addresses; nil means on only with the development identity provider.
	AllowPrivateIssuerURLs *bool
	KEKFile                string   // default <data-dir>/kek.key
	SSASigningAlgs         []string // default all four
	SSARSABits             int      // default 2048
	SSAIssuer              string   // iss of SSAs; default the base URL
	// The directory's own federation (docs/design.md §13).
	FederationEntityID          string        // default the base URL
	FederationOrganizationName  string        // organization_name of the entity configuration
	FederationStatementLifetime time.Duration // default 24h
	// FederationKeyPrepublish is how long a federation key this server
	// prepares must have been published before it may sign; the instant is
	// stored with the key (docs/design.md §13); nil is one statement
	// lifetime, 0 at once.
	FederationKeyPrepublish *time.Duration
	FederationSigningAlg    string // default ES256
	// The directory's certificate authority (docs/design.md §18; pki.go):
	// on with PKI, made at the first start with PKIKeyAlg (default ES384)
	// and PKIName (RFC 4514; default CN=<FederationOrganizationName, else
	// the base URL's host> Issuing CA); PKILeafLifetime is how long the
	// certificates it issues are valid (default 9528h, 397 days).
	PKI             bool
	PKIKeyAlg       string
	PKIName         string
	PKILeafLifetime time.Duration
	// JWKSRefreshInterval is the least time between two fetches of an
	// issuer's keys for tokens naming an unknown key (default 10 s).
	JWKSRefreshInterval time.Duration
	// ExpiryNoticeDays: SendExpiryNotices announces what expires within
	// this many days; 0 turns notices off.
	ExpiryNoticeDays int
	// ExpiryNoticeContacts are the contact types of an organisation that
	// are told about its own expiring items too (none by default).
	ExpiryNoticeContacts []string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client (sign-in rate limit, development identity provider's
	// loopback check, access log); empty trusts nobody (clientaddr.go).
	TrustedProxies []netip.Prefix
	// Webhooks (docs/design.md §15). AllowPrivateWebhookURLs accepts http
	// and loopback/private receivers (--allow-private-webhook-urls: tests
	// and development); WebhookTimeout bounds one attempt (default 10 s);
	// WebhookRetryFor is how long a delivery is retried and how long a
	// webhook may fail before it is Paused (default 24 h); WebhookBackoff
	// replaces the retry schedule (tests).
	AllowPrivateWebhookURLs bool
	WebhookTimeout          time.Duration
	WebhookRetryFor         time.Duration
	WebhookBackoff          func(retry int) time.Duration
	// ResolvesInFlight and ResolvesInFlightPerClient bound the federation
	// resolves under way, in all and per client (resolvebudget.go); 0 is
	// the default (32 and 4).
	ResolvesInFlight          int
	ResolvesInFlightPerClient int
	Version                   string // for the metrics' build info
	Now                       func() time.Time
	Logger                    *slog.Logger

	// SMTPRootCAs verify the certificate of an smtps:// server; nil: the
	// system's roots (tests trust their own server with it).
	SMTPRootCAs *x509.CertPool
}

// Server is the assembled HTTP handler and what it holds.
type Server struct {
	cfg      Config
	db       *store.DB
	sessions *scs.SessionManager
	idp      *devidp.Provider
	auth     *authenticator
	log      *slog.Logger
	handler  http.Handler
	limiter  *rateLimiter
	dpop     *dpop.Checker // resource server proofs
	tokDPoP  *dpop.Checker // token endpoint proofs
	nonces   *dpop.Nonces  // nil unless --dpop-nonce
	origin   string        // scheme://host of the base URL, for htu
	vocab    lifecycle.Vocabulary
	keys     *keyring.Keyring
	fedKeys  *federation.Keyring
	pki      *directory.PKI  // nil unless --pki (pki.go)
	mailer   handlers.Mailer // nil: messages stay in the outbox
	kek      *keyring.KEK    // seals secrets at rest (SSA keys, identity provider client secrets)
	ca       *pki.CA         // the directory's certificate authority; nil: --pki is off (docs/design.md §18)
	// clients: applications' own access tokens (docs/design.md §20).
	clients    *directory.ClientTokens
	metrics    *metrics
	started    time.Time
	apiLimiter *rateLimiter
	resolves   *clientlimit.InFlight // federation resolves under way (resolvebudget.go)
	keptForms  *keptFormBudget       // anonymous kept forms alive (keptform.go)
	stopping   chan struct{}         // closed by Stopping
	stopOnce   sync.Once
}

// Stopping tells the server that it is shutting down: long polls of the
// change feed end at once, so that http.Server.Shutdown need not wait for
// them (serve registers it with RegisterOnShutdown).
func (s *Server) Stopping() { s.stopOnce.Do(func() { close(s.stopping) }) }

// NewServer builds the handler of the whole service.
func NewServer(ctx context.Context, cfg Config, db *store.DB) (*Server, error) {
	cfg.withDefaults()
	vocab, err := lifecycle.ParseVocabulary(cfg.StatusVocabulary)
	if err != nil {
		return nil, fmt.Errorf("web: --status-vocabulary: %w", err)
	}
	bu, err := url.Parse(cfg.BaseURL)
	if err != nil || (bu.Scheme != "http" && bu.Scheme != "https") || bu.Host == "" {
		return nil, fmt.Errorf("web: --base-url %q is not an http(s) URL", cfg.BaseURL)
	}
	s := &Server{cfg: cfg, db: db, log: cfg.Logger, limiter: newRateLimiter(cfg.RateLimit, cfg.Now), vocab: vocab, started: time.Now(),
		apiLimiter: newRateLimiter(cfg.APIRateLimit, cfg.Now), keptForms: newKeptFormBudget(), stopping: make(chan struct{}),
		resolves: anchor.NewResolveBudget(cfg.ResolvesInFlight, cfg.ResolvesInFlightPerClient)}
	s.metrics = s.newMetrics()
	s.origin = bu.Scheme + "://" + bu.Host + strings.TrimRight(bu.Path, "/")
	if cfg.DPoPNonce {
		s.nonces = dpop.NewNonces(5*time.Minute, cfg.Now)
	}
	s.dpop = &dpop.Checker{Window: cfg.DPoPWindow, Skew: cfg.DPoPSkew, Now: cfg.Now, Nonces: s.nonces}
	s.tokDPoP = &dpop.Checker{Window: cfg.DPoPWindow, Skew: cfg.DPoPSkew, Now: cfg.Now, Nonces: s.nonces}
	if db.Engine() == store.Postgres {
		// Several instances may share this database: a proof used on one is
		// refused on all (docs/design.md §2.1).
		s.dpop.Replay, s.tokDPoP.Replay = proofLog{db}, proofLog{db}
	}

	s.sessions = newSessions(cfg, db, bu)

	// The KEK first: it seals the development identity provider's key too.
	if err := s.openKeyring(ctx); err != nil {
		return nil, err
	}
	if cfg.PKI {
		if err := s.openPKI(ctx); err != nil {
			return nil, err
		}
	}
	webSecret := randomString(32)
	if cfg.OIDCIssuer == "" {
		if err := s.openDevIdP(ctx, webSecret); err != nil {
			return nil, err
		}
	}
	if cfg.SMTPURL != "" {
		// A URL that cannot be used stops the start: running without the
		// mail the operator asked for is no quiet fallback.
		s.mailer, err = newSMTPMailer(cfg.SMTPURL, cfg.SMTPRootCAs)
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
	}
	minter, err := clienttoken.NewMinter(s.kek.Derive(clientTokenKeyPurpose), cfg.Now)
	if err != nil {
		return nil, err
	}
	s.clients = &directory.ClientTokens{Store: db, Minter: minter, Issuer: cfg.BaseURL, Audience: cfg.APIAudience, Now: cfg.Now}
	if db.Engine() == store.Postgres {
		// Several instances may share this database: an assertion used on
		// one is refused on all (docs/design.md §20).
		s.clients.Used = assertionLog{db}
	} else {
		kept := newKeptAssertions(db, cfg.Logger, cfg.Now)
		if err := kept.load(ctx); err != nil {
			return nil, fmt.Errorf("web: client assertions: %w", err)
		}
		s.clients.Used = kept
	}
	s.auth, err = newAuthenticator(ctx, s, webSecret)
	if err != nil {
		return nil, err
	}
	s.handler = s.routes()
	return s, nil
}

// withDefaults fills what the configuration left empty.
func (cfg *Config) withDefaults() {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.APIAudience == "" {
		cfg.APIAudience = cfg.BaseURL + "/api"
	}
	if cfg.EmailClaim == "" {
		cfg.EmailClaim = "email"
	}
	if cfg.JWKSRefreshInterval == 0 {
		cfg.JWKSRefreshInterval = 10 * time.Second
	}
	if len(cfg.TokenTypes) == 0 {
		cfg.TokenTypes = []string{"at+jwt", "application/at+jwt"}
	}
}

// newSessions is the session manager: sessions in the database, a
// Secure cookie unless the base URL bu is plain http on loopback.
func newSessions(cfg Config, db *store.DB, bu *url.URL) *scs.SessionManager {
	sm := scs.New()
	sm.Store = headSafeSessions{db.Sessions()} // a HEAD saves no session (head.go)
	sm.Lifetime = 12 * time.Hour
	// No sm.IdleTimeout: it saves the session on every request; sessionIdle
	// keeps the idle expiry instead.
	sm.Cookie.Name = "trustframe_session"
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = bu.Scheme != "http" || !IsLoopbackHost(bu.Hostname())
	if sm.Cookie.Secure {
		// __Host-: browsers take the cookie only from this host over
		// https, with Path=/ and no Domain, so a sibling subdomain cannot
		// plant its own session on a user (docs/design.md §3).
		sm.Cookie.Name = "__Host-trustframe_session"
	}
	if bu.Scheme == "http" && sm.Cookie.Secure {
		cfg.Logger.Warn("the base URL is plain http on a non-loopback host: session cookies are Secure and browsers will not send them; serve over https (a proxy) and set --base-url to its https URL",
			"base_url", cfg.BaseURL)
	}
	sm.Cookie.Path = "/"
	sm.ErrorFunc = sessionFailed
	return sm
}

// openDevIdP starts the development identity provider (no --oidc-issuer),
// on this machine only unless --dev-idp-allow-remote.
func (s *Server) openDevIdP(ctx context.Context, webSecret string) error {
	cfg := s.cfg
	if err := CheckDevIdPBaseURL(cfg.BaseURL, cfg.DevIdPAllowRemote); err != nil {
		return fmt.Errorf("web: %w", err)
	}
	if cfg.DevIdPAllowRemote {
		cfg.Logger.Warn("THE DEVELOPMENT IDENTITY PROVIDER IS OPEN TO REMOTE CLIENTS (--dev-idp-allow-remote): anyone who reaches it can sign in as anyone, Super Users included, without a password; set --oidc-issuer before real data goes in",
			"base_url", cfg.BaseURL)
	}
	var err error
	s.idp, err = devidp.New(devidp.Config{
		Issuer:          cfg.BaseURL + "/dev/idp",
		APIAudience:     cfg.APIAudience,
		WebRedirectURL:  cfg.BaseURL + "/auth/callback",
		WebClientSecret: webSecret,
		KeyFile:         keyFile(cfg.DataDir),
		SharedKey:       s.sharedDevIdPKey(ctx),
		RefreshTokens:   s.db.DevIdPRefreshTokens(),
		Codes:           s.sharedDevIdPCodes(),
		Logger:          cfg.Logger,
		ProofBinder:     s.bindTokenProof,
		Nonce:           s.newNonce,
		RenderSignIn: func(w http.ResponseWriter, r *http.Request, p devidp.SignInPage) {
			var buf bytes.Buffer
			_ = views.DevSignIn(p.Action, p.Hidden, p.Email, p.Error, p.ClientID).Render(r.Context(), &buf)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(buf.Bytes())
		},
	})
	return err
}

func keyFile(dataDir string) string {
	if dataDir == "" {
		return ""
	}
	return dataDir + "/dev-idp-key.pem"
}

// clientTokenKeyPurpose derives, from the KEK, the key that signs
// applications' access tokens: every instance with the KEK signs and
// verifies them, and nothing is stored (docs/decisions.md).
const clientTokenKeyPurpose = "application access tokens (Ed25519 seed)"

// devIdPKeyAAD binds the sealed development identity provider key to its use.
var devIdPKeyAAD = []byte("trustframe development identity provider signing key")

// sharedDevIdPKey keeps the development identity provider's key in the
// database, sealed with the KEK, on PostgreSQL: every instance on the
// database signs with the key the first one stored, so a token from one
// is accepted by all (docs/design.md §14). On SQLite (nil) the key file
// beside the database is the one key.
func (s *Server) sharedDevIdPKey(ctx context.Context) func([]byte) ([]byte, error) {
	if s.db.Engine() != store.Postgres {
		return nil
	}
	return func(made []byte) ([]byte, error) {
		sealed, err := s.db.DevIdPKey(ctx, s.kek.Seal(made, devIdPKeyAAD))
		if err != nil {
			return nil, err
		}
		key, err := s.kek.Open(sealed, devIdPKeyAAD)
		if err != nil {
			return nil, fmt.Errorf("web: the development identity provider's key in the database does not open with this KEK: %w", err)
		}
		return key, nil
	}
}

// sharedDevIdPCodes keeps the development identity provider's
// authorization codes in the database on PostgreSQL, so that a code made
// by one instance is exchanged at another (docs/design.md §14). On SQLite
// (nil) one process serves the database and keeps them in memory.
func (s *Server) sharedDevIdPCodes() devidp.CodeStore {
	if s.db.Engine() != store.Postgres {
		return nil
	}
	return s.db.DevIdPCodes()
}

func (s *Server) openKeyring(ctx context.Context) error {
	cfg := &s.cfg
	if len(cfg.SSASigningAlgs) == 0 {
		cfg.SSASigningAlgs = ssa.AllAlgs
	}
	for _, a := range cfg.SSASigningAlgs {
		if !slices.Contains(ssa.AllAlgs, a) {
			return fmt.Errorf("web: --ssa-signing-algs: unknown algorithm %q (known: %s)", a, strings.Join(ssa.AllAlgs, ", "))
		}
	}
	if cfg.SSARSABits == 0 {
		cfg.SSARSABits = 2048
	}
	if cfg.SSAIssuer == "" {
		cfg.SSAIssuer = cfg.BaseURL
	}
	if cfg.KEKFile == "" {
		if cfg.DataDir == "" {
			return fmt.Errorf("web: --kek-file or a data directory is needed for the SSA signing keys")
		}
		cfg.KEKFile = cfg.DataDir + "/kek.key"
	}
	kek, err := keyring.OpenKEK(ctx, s.db, cfg.KEKFile)
	if err != nil {
		return err
	}
	s.kek = kek
	if s.nonces != nil {
		// Every instance with this KEK makes and accepts the same nonces.
		s.nonces.SetKey(kek.Derive("dpop nonce"))
	}
	s.keys, err = keyring.OpenKeyring(ctx, s.db, kek, cfg.SSASigningAlgs, cfg.SSARSABits)
	if err != nil {
		return err
	}
	if cfg.FederationStatementLifetime <= 0 {
		cfg.FederationStatementLifetime = 24 * time.Hour
	}
	if cfg.FederationEntityID == "" {
		cfg.FederationEntityID = cfg.BaseURL
	}
	s.fedKeys, err = federation.OpenKeyring(ctx, s.db, kek, cfg.FederationSigningAlg, cfg.FederationStatementLifetime)
	if err != nil {
		return fmt.Errorf("web: --federation-signing-alg: %w", err)
	}
	if cfg.FederationKeyPrepublish != nil {
		if *cfg.FederationKeyPrepublish < 0 {
			return fmt.Errorf("web: --federation-key-prepublish must not be negative")
		}
		s.fedKeys.SetPrepublish(*cfg.FederationKeyPrepublish)
	}
	return nil
}

// idpSecretAAD binds a sealed identity provider client secret to its provider.
func idpSecretAAD(name string) []byte {
	return []byte("trustframe identity provider client secret\x00" + name)
}

// requestURI is the URI a client addressed, computed from --base-url so that
// it holds behind a proxy: the DPoP htu to compare with.
func (s *Server) requestURI(r *http.Request) string {
	return s.origin + r.URL.EscapedPath()
}

// bindTokenProof checks the DPoP proof of a token request at the development
// identity provider; it returns the key thumbprint to bind ("" without a proof).
func (s *Server) bindTokenProof(r *http.Request) (string, error) {
	proofs := r.Header.Values("DPoP")
	if len(proofs) == 0 {
		return "", nil
	}
	p, err := s.tokDPoP.Check(proofs, dpop.Request{Method: r.Method, URL: s.requestURI(r)})
	if err != nil {
		return "", err
	}
	return p.Thumbprint, nil
}

func (s *Server) newNonce() string {
	if s.nonces == nil {
		return ""
	}
	return s.nonces.New()
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Router exposes the routes (for tests that walk them).
func (s *Server) Router() chi.Routes { return s.handler.(chi.Routes) }

// DevIdP reports whether the development identity provider is on.
func (s *Server) DevIdP() bool { return s.idp != nil }

// inProcessClient reaches the development identity provider without the
// network, so the web app's token exchange works whatever --base-url says.
func (s *Server) inProcessClient() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		// A fresh route context: the caller's request context may carry the
		// chi routing state of the request that made this call.
		r2 := r.Clone(context.WithValue(r.Context(), chi.RouteCtxKey, (*chi.Context)(nil)))
		r2.RemoteAddr = "127.0.0.1:0"
		r2.RequestURI = r.URL.RequestURI()
		if r.Body != nil {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return nil, err
			}
			r2.Body = io.NopCloser(bytes.NewReader(b))
		}
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, r2)
		return rec.Result(), nil
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// CheckDevIdPBaseURL refuses the development identity provider behind a
// base URL that is not loopback unless allowRemote (--dev-idp-allow-remote):
// behind a reverse proxy on the same host every client looks like loopback,
// so the provider's loopback-only guard would let anyone sign in as anyone.
func CheckDevIdPBaseURL(baseURL string, allowRemote bool) error {
	if allowRemote {
		return nil
	}
	u, err := url.Parse(baseURL)
	if err != nil || !IsLoopbackHost(u.Hostname()) {
		return fmt.Errorf("the development identity provider (no --oidc-issuer) signs in anyone as any e-mail without a password, and the base URL %s is not loopback (--base-url, else http://<--addr>): set --oidc-issuer to a real OpenID Provider, a loopback --base-url for this machine only, or --dev-idp-allow-remote to run it there anyway", RedactURLs(baseURL))
	}
	return nil
}

// allowPrivateIssuers: may issuer validation and identity providers' keys
// reach loopback and private addresses? By default only with the
// development identity provider on this machine (not with
// --dev-idp-allow-remote).
func (s *Server) allowPrivateIssuers() bool {
	if s.cfg.AllowPrivateIssuerURLs != nil {
		return *s.cfg.AllowPrivateIssuerURLs
	}
	return s.idp != nil && !s.cfg.DevIdPAllowRemote
}

// IsLoopbackHost reports whether h names this machine (localhost or a
// loopback address): formats.LoopbackHost, the one rule.
func IsLoopbackHost(h string) bool { return formats.LoopbackHost(h) }

// signInIssuer is the issuer of web sign-in and of the API's own tokens:
// the development identity provider or --oidc-issuer.
func (s *Server) signInIssuer() string {
	if s.idp != nil {
		return s.idp.Issuer()
	}
	return s.cfg.OIDCIssuer
}

// assertionLog keeps the client assertions used in the database
// (store.UseClientAssertion).
type assertionLog struct{ db *store.DB }

func (l assertionLog) Add(key string, exp time.Time) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return l.db.UseClientAssertion(ctx, key, exp)
}

// proofLog keeps the DPoP proofs seen in the database (store.UseProof).
type proofLog struct{ db *store.DB }

func (p proofLog) Add(key string, exp time.Time) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return p.db.UseProof(ctx, key, exp)
}
