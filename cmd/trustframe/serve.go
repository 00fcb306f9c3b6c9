package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/handlers"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
)

type serveFlags struct {
	addr, dataDir, baseURL, apiAudience  string
	database                             string
	oidcIssuer, oidcClientID, oidcSecret string
	emailClaim, bootstrap, smtpURL       string
	devIdPAllowRemote                    bool
	rateLimit                            int
	logFormat                            string
	dpopNonce                            bool
	dpopWindow, dpopSkew                 time.Duration
	tokenTypes                           string
	statusVocabulary                     string
	allowPrivateIssuers                  string
	kekFile, ssaAlgs, ssaIssuer          string
	ssaRSABits                           int
	expiryNoticeDays                     int
	expiryNoticeContacts                 string
	metricsAddr                          string
	apiRateLimit                         int
	maxLongPolls                         int
	fedEntityID, fedOrgName, fedAlg      string
	fedLifetime                          time.Duration
	fedPrepublish                        prepublishFlag
	pki                                  bool
	pkiKeyAlg, pkiName                   string
	pkiLeafLifetime                      time.Duration
	allowPrivateWebhooks                 bool
	webhookTimeout                       time.Duration
	trustedProxies                       string
	proxies                              []netip.Prefix // trustedProxies, parsed by check
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&f.dataDir, "data-dir", "./trustframe-data", "directory of the database and key files (created when missing)")
	fs.StringVar(&f.database, "database", "", databaseUsage)
	fs.StringVar(&f.baseURL, "base-url", "", "public URL of the service (default http://<addr>)")
	fs.StringVar(&f.apiAudience, "api-audience", "", "audience of API access tokens (default <base-url>/api)")
	fs.StringVar(&f.oidcIssuer, "oidc-issuer", "", "OpenID Provider for sign-in and API tokens; empty: the development identity provider at /dev/idp")
	fs.StringVar(&f.oidcClientID, "oidc-client-id", "", "client ID of the web app at --oidc-issuer")
	fs.StringVar(&f.oidcSecret, "oidc-client-secret", "", "client secret of the web app at --oidc-issuer")
	fs.StringVar(&f.emailClaim, "email-claim", "email", "claim of ID and access tokens that carries the administrator's e-mail (read from UserInfo when a token lacks it)")
	fs.StringVar(&f.bootstrap, "bootstrap-super-user", "admin@example.com", "e-mail created as an Active Super User at start when missing")
	fs.StringVar(&f.smtpURL, "smtp-url", "", "SMTP server for invitations, smtp://user:pass@host:port?from=addr; empty: log and development outbox")
	fs.BoolVar(&f.devIdPAllowRemote, "dev-idp-allow-remote", false, "let non-loopback clients use the development identity provider")
	fs.IntVar(&f.rateLimit, "rate-limit", 120, "sign-in and token requests per minute per client address (0: no limit)")
	fs.IntVar(&f.apiRateLimit, "api-rate-limit", 0, "API requests per minute per administrator, a minute's worth as burst, e.g. 6000 (0: no limit)")
	fs.IntVar(&f.maxLongPolls, "max-long-polls", handlers.DefaultMaxPolls, "long polls of the change feed held at once, in all (each administrator holds at most 4)")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	fs.BoolVar(&f.dpopNonce, "dpop-nonce", false, "require server-provided nonces in DPoP proofs (RFC 9449 §8, §9)")
	fs.DurationVar(&f.dpopWindow, "dpop-window", 60*time.Second, "how old a DPoP proof may be")
	fs.DurationVar(&f.dpopSkew, "dpop-skew", 5*time.Second, "how far in the future a DPoP proof's iat may be")
	fs.StringVar(&f.statusVocabulary, "status-vocabulary", "withdrawn", "word for the end state in output: withdrawn (the 2.6.0 contract) or inactive (the announced rename); input accepts both")
	fs.StringVar(&f.allowPrivateIssuers, "allow-private-issuer-urls", "", "let issuer validation reach loopback and private addresses: true or false (default: true only with the development identity provider)")
	fs.StringVar(&f.kekFile, "kek-file", "", "key-encryption key: seals the SSA and federation signing keys and identity providers' client secrets (default <data-dir>/kek.key, made with mode 0600 on a first start only)")
	fs.StringVar(&f.ssaAlgs, "ssa-signing-algs", "PS256,ML-DSA-44,ML-DSA-65,ML-DSA-87", "SSA signing algorithms this deployment enables, comma-separated")
	fs.IntVar(&f.ssaRSABits, "ssa-rsa-bits", 2048, "size of new PS256 signing keys")
	fs.StringVar(&f.ssaIssuer, "ssa-issuer", "", "iss of the SSAs (default the base URL)")
	fs.IntVar(&f.expiryNoticeDays, "expiry-notice-days", 30, "e-mail Active administrators (SMTP or outbox) about certificates, documents and certifications expiring within this many days, each once; 0: off; at most 365")
	fs.StringVar(&f.expiryNoticeContacts, "expiry-notice-contacts", "", "contact types (comma-separated, e.g. Technical) of an organisation that are e-mailed about its own expiring items too; empty: administrators only")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "address of a private listener serving Prometheus metrics at /metrics (e.g. 127.0.0.1:9090); empty: off")
	fs.StringVar(&f.fedEntityID, "federation-entity-id", "", "entity ID of the directory as its participants' federation trust anchor (default the base URL)")
	fs.StringVar(&f.fedOrgName, "federation-organization-name", "", "organization_name of the directory's federation entity configuration")
	fs.DurationVar(&f.fedLifetime, "federation-statement-lifetime", 24*time.Hour, "lifetime of the federation's entity configuration and subordinate statements")
	fs.Var(&f.fedPrepublish, "federation-key-prepublish", prepublishUsage)
	fs.StringVar(&f.fedAlg, "federation-signing-alg", "ES256", "algorithm of new federation signing keys: ES256, ES384, PS256 or EdDSA")
	fs.BoolVar(&f.pki, "pki", false, "run the directory's certificate authority: issue certificates from CSRs, publish /pki/ca.pem, the CRL and OCSP (made at the first start, its key sealed with the KEK)")
	fs.StringVar(&f.pkiKeyAlg, "pki-key-alg", pki.AlgES384, "key of the CA made at the first start with --pki: ES384 (ECDSA P-384) or RS3072")
	fs.StringVar(&f.pkiName, "pki-name", "", "subject of the CA made at the first start with --pki, RFC 4514 (e.g. CN=Example Issuing CA,O=Example,C=GB); default CN=<--federation-organization-name, else the base URL's host> Issuing CA")
	fs.DurationVar(&f.pkiLeafLifetime, "pki-leaf-lifetime", web.DefaultLeafLifetime, "validity of the certificates the CA issues (default 397 days)")
	fs.BoolVar(&f.allowPrivateWebhooks, "allow-private-webhook-urls", false, "accept http and loopback/private webhook receivers (tests and development only)")
	fs.DurationVar(&f.webhookTimeout, "webhook-timeout", 10*time.Second, "how long one webhook delivery attempt may take, connection to answer (1s to 60s)")
	fs.StringVar(&f.trustedProxies, "trusted-proxies", "", "reverse proxies (comma-separated IP addresses and CIDR prefixes) whose X-Forwarded-For names the client for the sign-in rate limit and the access log; empty: trust nobody")
	fs.StringVar(&f.tokenTypes, "api-token-types", "at+jwt,application/at+jwt", "JWT typ values accepted for API access tokens, comma-separated (add JWT for issuers such as Keycloak)")
}

// logger writes the log to w; no line carries a URL's credentials, and a
// warning or an error goes out at once with the lines before it.
func (f *serveFlags) logger(w *web.LogBuffer) *slog.Logger {
	var h slog.Handler = slog.NewTextHandler(w, nil)
	if f.logFormat == "json" {
		h = slog.NewJSONHandler(w, nil)
	}
	return slog.New(web.FlushingHandler(web.RedactingHandler(h), w, slog.LevelWarn))
}

// logFlushAfter is how long a log line may wait to be written with others
// (a variable for TestServeWritesItsLogWhenItStops).
var logFlushAfter = 50 * time.Millisecond

// databaseUsage documents --database on every command that opens the store.
const databaseUsage = "database: empty for SQLite (trustframe.db in the data directory), or a postgres:// URL of a PostgreSQL 15+ database"

// checkDatabase refuses a --database that is neither empty nor a
// PostgreSQL URL.
func checkDatabase(database string) error {
	if database != "" && !store.IsPostgresURL(database) {
		return fmt.Errorf("%w: --database must be empty (SQLite in the data directory) or a postgres:// URL", errUsage)
	}
	return nil
}

// openStore opens the database: database when it is a PostgreSQL URL,
// else the SQLite file in dataDir.
func openStore(ctx context.Context, dataDir, database string) (*store.DB, error) {
	if err := checkDatabase(database); err != nil {
		return nil, err
	}
	// The key files live in the data directory on either engine.
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	if database != "" {
		return store.Open(ctx, database, time.Now)
	}
	path := filepath.Join(dataDir, "trustframe.db")
	// The database holds sessions and sealed keys: readable by its owner only.
	// SQLite gives its -wal and -shm files the same mode.
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o600); err == nil {
		f.Close()
	}
	return store.Open(ctx, path, time.Now)
}

func cmdMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./trustframe-data", "directory of the database")
	database := fs.String("database", "", databaseUsage)
	if err := parseFlags(fs, args, getenv, stderr); err != nil {
		return err
	}
	db, err := openStore(ctx, *dataDir, *database)
	if err != nil {
		return err
	}
	defer db.Close()
	names, err := db.Migrations(ctx)
	if err != nil {
		return err
	}
	where := *dataDir
	if *database != "" {
		where = store.Where(*database)
	}
	fmt.Fprintf(stdout, "database at %s is at migration %s (%d applied)\n", where, names[len(names)-1], len(names))
	return nil
}

func cmdServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var f serveFlags
	f.register(fs)
	if err := parseFlags(fs, args, getenv, stderr); err != nil {
		return err
	}
	logw := web.NewLogBuffer(stderr, logFlushAfter)
	defer logw.Flush()
	log := f.logger(logw)
	allowPrivate, err := f.check()
	if err != nil {
		return err
	}
	if f.database == "" {
		lock, err := f.lockSQLite()
		if err != nil {
			return err
		}
		defer lock.release()
	}
	db, err := openStore(ctx, f.dataDir, f.database)
	if err != nil {
		return err
	}
	defer db.Close()
	kekPath, err := f.checkBeforeStart(ctx, db, log)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	baseURL := f.baseURL
	if baseURL == "" {
		baseURL = "http://" + ln.Addr().String()
	}
	srv, err := web.NewServer(ctx, f.webConfig(baseURL, kekPath, allowPrivate, log), db)
	if err != nil {
		return err
	}
	// On every way out, before the database closes: the client assertions
	// used in the last moments are written down, so that the next start
	// refuses them again.
	defer func() {
		if err := srv.Close(context.Background()); err != nil {
			log.Warn("client assertions used just before the stop were not written down", "error", err)
		}
	}()
	if err := f.ensureBootstrap(ctx, db, log); err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(srv.Stopping) // long polls end at once
	go purgeSessions(ctx, db, log)
	go sendExpiryNotices(ctx, srv, log)
	go resendOutbox(ctx, srv, log)
	hooksDone := make(chan struct{})
	go func() { srv.DeliverWebhooks(ctx); close(hooksDone) }()
	ms, err := startMetrics(f.metricsAddr, srv, stdout)
	if err != nil {
		return err
	}

	log.Info("listening", "listen", ln.Addr().String(), "base_url", baseURL)
	_ = logw.Flush()
	f.announce(stdout, baseURL, srv.DevIdP())

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	case <-ctx.Done():
	}
	log.Info("shutting down")
	_ = logw.Flush() // before anything the shutdown prints or logs
	if err := shutdown(hs, ms); err != nil {
		return err
	}
	<-hooksDone // an attempt in flight is abandoned; its lease runs out
	fmt.Fprintln(stdout, "trustframe stopped")
	return nil
}

// lockSQLite takes the serving lock of the SQLite file before the database
// is opened (and migrated); the caller lets go of it after the database is
// closed, so that trustframe copy-database never sees serve touch the file.
func (f *serveFlags) lockSQLite() (*servingLock, error) {
	if err := os.MkdirAll(f.dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	lock, err := takeServingLock(filepath.Join(f.dataDir, "trustframe.db"), false)
	if errors.Is(err, errLockHeld) {
		return nil, errors.New("trustframe copy-database is copying this database: start serve once it has finished (then with --database set to where it copied)")
	}
	return lock, nil
}

// ensureBootstrap makes --bootstrap-super-user an Active Super User when
// it is missing, so that a new directory has someone who can sign in.
func (f *serveFlags) ensureBootstrap(ctx context.Context, db *store.DB, log *slog.Logger) error {
	if f.bootstrap == "" {
		return nil
	}
	created, err := db.EnsureSuperUser(ctx, f.bootstrap)
	if err != nil {
		return err
	}
	if created {
		log.Info("bootstrap Super User created", "email", f.bootstrap)
	}
	return nil
}

// startMetrics serves the metrics and profiles on their own private
// listener at addr (nil: none asked for).
func startMetrics(addr string, srv *web.Server, stdout io.Writer) (*http.Server, error) {
	if addr == "" {
		return nil, nil
	}
	mln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	// WriteTimeout leaves room for a 30 s CPU profile or trace.
	ms := &http.Server{Handler: srv.PrivateHandler(), ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 2 * time.Minute}
	go ms.Serve(mln)
	fmt.Fprintf(stdout, "metrics on http://%s/metrics, profiles on http://%s/debug/pprof/\n", mln.Addr(), mln.Addr())
	return ms, nil
}

// announce tells the operator where the directory listens and how to sign
// in to it.
func (f *serveFlags) announce(stdout io.Writer, baseURL string, devIdP bool) {
	fmt.Fprintf(stdout, "trustframe %s is listening on %s\n", version, baseURL)
	home := strings.TrimRight(baseURL, "/") + "/"
	if devIdP {
		fmt.Fprintf(stdout, "Open %s and sign in as %s with the development identity provider.\n", home, f.bootstrap)
	} else {
		fmt.Fprintf(stdout, "Open %s and sign in with %s.\n", home, f.oidcIssuer)
	}
}

// shutdown stops the public listener first: it stops taking requests at
// once and finishes those in flight. The private one (ms, may be nil) is
// closed after it, without waiting for a profile or trace being taken (of
// a process that stops).
func shutdown(hs, ms *http.Server) error {
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if ms != nil {
		_ = ms.Close()
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// check refuses flag values serve cannot start with (a usage error) and
// returns --allow-private-issuer-urls (nil: not set).
func (f *serveFlags) check() (*bool, error) {
	if f.bootstrap != "" && !formats.ValidAdminEmail(f.bootstrap) {
		return nil, fmt.Errorf("%w: --bootstrap-super-user %q is not an ordinary e-mail address of plain ASCII (name@example.com)", errUsage, f.bootstrap)
	}
	if f.oidcIssuer != "" && f.oidcClientID == "" {
		return nil, fmt.Errorf("%w: --oidc-issuer needs --oidc-client-id", errUsage)
	}
	if f.smtpURL != "" {
		if err := web.CheckSMTPURL(f.smtpURL); err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	if err := checkListenAddr("--addr", f.addr); err != nil {
		return nil, err
	}
	if f.metricsAddr != "" {
		if err := checkListenAddr("--metrics-addr", f.metricsAddr); err != nil {
			return nil, err
		}
	}
	if f.baseURL != "" {
		if u, err := url.Parse(f.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: --base-url %q is not an http(s) URL (e.g. https://directory.example.org)", errUsage, f.baseURL)
		}
	}
	if f.kekFile != "" {
		if st, err := os.Stat(filepath.Dir(f.kekFile)); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%w: --kek-file %s: the directory %s does not exist", errUsage, f.kekFile, filepath.Dir(f.kekFile))
		}
	}
	if f.fedEntityID != "" {
		if u, err := url.Parse(f.fedEntityID); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("%w: --federation-entity-id %q must be an https URL without query or fragment (default: the base URL)", errUsage, f.fedEntityID)
		}
	}
	if f.oidcIssuer == "" {
		base := f.baseURL
		if base == "" {
			base = "http://" + f.addr
		}
		if err := web.CheckDevIdPBaseURL(base, f.devIdPAllowRemote); err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	proxies, err := web.ParseTrustedProxies(f.trustedProxies)
	if err != nil {
		return nil, fmt.Errorf("%w: --trusted-proxies: %v", errUsage, err)
	}
	f.proxies = proxies
	if f.webhookTimeout < time.Second || f.webhookTimeout > time.Minute {
		return nil, fmt.Errorf("%w: --webhook-timeout must be from 1s to 60s", errUsage)
	}
	if err := checkSigningFlags(splitList(f.ssaAlgs), f.ssaRSABits, f.fedAlg, f.fedLifetime, f.fedPrepublish); err != nil {
		return nil, err
	}
	if err := checkPKIFlags(f.pkiKeyAlg, f.pkiName, f.pkiLeafLifetime); err != nil {
		return nil, err
	}
	if f.dpopWindow <= 0 {
		return nil, fmt.Errorf("%w: --dpop-window must be more than 0", errUsage)
	}
	if f.dpopSkew < 0 {
		return nil, fmt.Errorf("%w: --dpop-skew must be 0 or more", errUsage)
	}
	if f.rateLimit < 0 {
		return nil, fmt.Errorf("%w: --rate-limit must be 0 (off) or more", errUsage)
	}
	if f.apiRateLimit < 0 {
		return nil, fmt.Errorf("%w: --api-rate-limit must be 0 (off) or more", errUsage)
	}
	if f.maxLongPolls < 1 {
		return nil, fmt.Errorf("%w: --max-long-polls must be 1 or more", errUsage)
	}
	if len(splitList(f.tokenTypes)) == 0 {
		return nil, fmt.Errorf("%w: --api-token-types must name at least one JWT typ (the default is at+jwt,application/at+jwt)", errUsage)
	}
	if f.logFormat != "text" && f.logFormat != "json" {
		return nil, fmt.Errorf("%w: --log-format must be text or json, not %q", errUsage, f.logFormat)
	}
	if f.expiryNoticeDays < 0 || f.expiryNoticeDays > 365 {
		return nil, fmt.Errorf("%w: --expiry-notice-days must be 0 (off) to 365", errUsage)
	}

	var allowPrivate *bool
	switch f.allowPrivateIssuers {
	case "":
	case "true", "false":
		v := f.allowPrivateIssuers == "true"
		allowPrivate = &v
	default:
		return nil, fmt.Errorf("%w: --allow-private-issuer-urls must be true or false", errUsage)
	}
	if _, err := lifecycle.ParseVocabulary(f.statusVocabulary); err != nil {
		return nil, fmt.Errorf("%w: --status-vocabulary: %v", errUsage, err)
	}
	return allowPrivate, nil
}

// checkSigningFlags refuses signing flags serve and keys share: keys
// checks them as serve does, so that it never makes a key serve would not
// start with.
func checkSigningFlags(ssaAlgs []string, rsaBits int, fedAlg string, fedLifetime time.Duration, fedPrepublish prepublishFlag) error {
	for _, a := range ssaAlgs {
		if !slices.Contains(ssa.AllAlgs, a) {
			return fmt.Errorf("%w: --ssa-signing-algs: unknown algorithm %q (known: %s)", errUsage, a, strings.Join(ssa.AllAlgs, ", "))
		}
	}
	if rsaBits < 2048 {
		return fmt.Errorf("%w: --ssa-rsa-bits must be 2048 or more", errUsage)
	}
	if !slices.Contains(federation.SigningAlgs, fedAlg) {
		return fmt.Errorf("%w: --federation-signing-alg must be one of %s", errUsage, strings.Join(federation.SigningAlgs, ", "))
	}
	if fedLifetime <= 0 {
		return fmt.Errorf("%w: --federation-statement-lifetime must be more than 0", errUsage)
	}
	if fedPrepublish.d < 0 {
		return fmt.Errorf("%w: --federation-key-prepublish must be 0 or more", errUsage)
	}
	return nil
}

// checkPKIFlags refuses the CA's flags serve could not start with.
func checkPKIFlags(alg, name string, leafLifetime time.Duration) error {
	if alg != pki.AlgES384 && alg != pki.AlgRS3072 {
		return fmt.Errorf("%w: --pki-key-alg must be %s or %s, not %q", errUsage, pki.AlgES384, pki.AlgRS3072, alg)
	}
	if name != "" {
		if _, err := pki.ParseName(name); err != nil {
			return fmt.Errorf("%w: --pki-name: %v", errUsage, err)
		}
	}
	if leafLifetime <= 0 {
		return fmt.Errorf("%w: --pki-leaf-lifetime must be more than 0 (e.g. 9528h, 397 days)", errUsage)
	}
	return nil
}

// checkListenAddr refuses an address net.Listen could never take: it must
// be host:port (the host may be empty: every interface) with a port number
// or service name.
func checkListenAddr(name, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil || port == "" {
		return fmt.Errorf("%w: %s %q is not host:port (e.g. 127.0.0.1:8080, :8080)", errUsage, name, addr)
	}
	return nil
}

// checkBeforeStart checks everything before changing anything: the KEK
// must open this database's keys (a missing one is created only on a first
// start); it returns the KEK's path. The bootstrap Super User is made only
// once the server is built.
func (f *serveFlags) checkBeforeStart(ctx context.Context, db *store.DB, log *slog.Logger) (string, error) {
	if err := db.CheckWritable(ctx); err != nil {
		return "", err
	}
	kekPath := f.kekFile
	if kekPath == "" {
		kekPath = filepath.Join(f.dataDir, "kek.key")
	}
	if err := keyring.CheckKEK(ctx, db, kekPath); err != nil {
		return "", err
	}
	// Said, not refused: a start that worked yesterday still works, and
	// doctor fails it (docs/decisions.md, "Secret files open to others").
	dbPath := ""
	if f.database == "" {
		dbPath = filepath.Join(f.dataDir, "trustframe.db")
	}
	for _, o := range filesOpenToOthers(dbPath, kekPath) {
		log.Warn("a secret file is open to its group or other users: chmod 600 "+o.path, "file", o.path, "holds", o.holds, "mode", fmt.Sprintf("%o", o.mode))
	}
	if types := splitList(f.expiryNoticeContacts); len(types) > 0 {
		known, err := db.ListRefs(ctx, store.ContactTypes)
		if err != nil {
			return "", err
		}
		for _, t := range types {
			if !slices.ContainsFunc(known, func(k store.ReferenceItem) bool { return k.Name == t }) {
				log.Warn("--expiry-notice-contacts names a contact type that does not exist; nobody of it will be told", "type", t)
			}
		}
	}

	return kekPath, nil
}

// webConfig is the server's configuration from the flags.
func (f *serveFlags) webConfig(baseURL, kekPath string, allowPrivate *bool, log *slog.Logger) web.Config {
	return web.Config{
		BaseURL: baseURL, APIAudience: f.apiAudience,
		OIDCIssuer: f.oidcIssuer, OIDCClientID: f.oidcClientID, OIDCClientSecret: f.oidcSecret,
		EmailClaim: f.emailClaim, DevIdPAllowRemote: f.devIdPAllowRemote,
		DataDir: f.dataDir, SMTPURL: f.smtpURL, RateLimit: f.rateLimit, APIRateLimit: f.apiRateLimit, MaxLongPolls: f.maxLongPolls, Logger: log,
		DPoPNonce: f.dpopNonce, DPoPWindow: f.dpopWindow, DPoPSkew: f.dpopSkew,
		TokenTypes: splitList(f.tokenTypes), StatusVocabulary: f.statusVocabulary, AllowPrivateIssuerURLs: allowPrivate,
		KEKFile: kekPath, SSASigningAlgs: splitList(f.ssaAlgs), SSARSABits: f.ssaRSABits, SSAIssuer: f.ssaIssuer,
		FederationEntityID: f.fedEntityID, FederationOrganizationName: f.fedOrgName, FederationStatementLifetime: f.fedLifetime, FederationSigningAlg: f.fedAlg,
		FederationKeyPrepublish: f.fedPrepublish.value(),
		ExpiryNoticeDays:        f.expiryNoticeDays, ExpiryNoticeContacts: splitList(f.expiryNoticeContacts), Version: version,
		AllowPrivateWebhookURLs: f.allowPrivateWebhooks, WebhookTimeout: f.webhookTimeout,
		TrustedProxies: f.proxies,
		PKI:            f.pki, PKIKeyAlg: f.pkiKeyAlg, PKIName: f.pkiName, PKILeafLifetime: f.pkiLeafLifetime,
	}
}

func purgeSessions(ctx context.Context, db *store.DB, log *slog.Logger) {
	every(ctx, 10*time.Minute, func() {
		if err := db.Sessions().PurgeExpiredSessions(ctx); err != nil && ctx.Err() == nil {
			log.Warn("session purge", "err", err)
		}
	})
}

// every runs job every d until ctx ends.
func every(ctx context.Context, d time.Duration, job func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			job()
		}
	}
}

// sendExpiryNotices runs the expiry notices shortly after start and then
// every hour; each item is announced once, so runs are cheap and a restart
// repeats nothing.
func sendExpiryNotices(ctx context.Context, srv *web.Server, log *slog.Logger) {
	wait := 30 * time.Second
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if _, err := srv.SendExpiryNotices(ctx); err != nil && ctx.Err() == nil {
			log.Warn("expiry notices", "err", err)
		}
		wait = time.Hour
	}
}

// resendOutbox tries again, every minute, the messages SMTP refused
// (web.Server.ResendOutbox; nothing without --smtp-url).
func resendOutbox(ctx context.Context, srv *web.Server, log *slog.Logger) {
	every(ctx, time.Minute, func() {
		if _, err := srv.ResendOutbox(ctx); err != nil && ctx.Err() == nil {
			log.Warn("outbox", "err", err)
		}
	})
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// prepublishFlag is --federation-key-prepublish: how long a federation
// key prepared from now on is published before it may sign; the instant
// is stored with the key (docs/design.md §13).
// Not given, it is one statement lifetime (value() is nil).
type prepublishFlag struct {
	d   time.Duration
	set bool
}

const prepublishUsage = "how long a federation key prepared from the API or console must have been published before it may sign; the instant is stored with the key, and activation anywhere follows it; 0: at once (default one --federation-statement-lifetime)"

func (p *prepublishFlag) String() string {
	if p == nil || !p.set {
		return ""
	}
	return p.d.String()
}

func (p *prepublishFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return err
	}
	p.d, p.set = d, true
	return nil
}

// Get makes the flag read as a duration in refusals (wants).
func (p *prepublishFlag) Get() any { return p.d }

func (p *prepublishFlag) value() *time.Duration {
	if !p.set {
		return nil
	}
	d := p.d
	return &d
}
