package web

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/trustframe/trustframe/clienttoken"
	"github.com/trustframe/trustframe/devidp"
	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/dpop"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/handlers"
	"github.com/trustframe/trustframe/issuer"
	"github.com/trustframe/trustframe/store"
	"golang.org/x/oauth2"
)

// authenticator signs people in to the web console (OIDC code flow with
// PKCE, state and nonce) and verifies API access tokens.
type authenticator struct {
	s          *Server
	webSecret  string
	httpClient *http.Client

	mu       sync.Mutex
	provider *oidcProvider // discovered lazily for external issuers

	// verified remembers tokens whose signature and claims checked out, by
	// SHA-256, until they expire: a client presents the same token many
	// times, and the signature check is the costly part. Roles are still
	// read on every request.
	vmu      sync.Mutex
	verified map[[32]byte]AccessToken
	// refused remembers tokens whose UserInfo answer refused them for good,
	// so that a token costs at most one UserInfo call; inflight makes
	// concurrent first uses of one token share one verification.
	refused  map[[32]byte]refusedToken
	inflight map[[32]byte]*verification

	// learned: e-mails by issuer and subject, for DPoP-bound tokens without one.
	learned learnedEmails

	// bound are the Active identity providers of Reference Data, by issuer.
	bmu   sync.Mutex
	bound boundIssuers
}

const boundIssuersTTL = 10 * time.Second

const maxVerifiedTokens = 10_000

type oidcProvider struct {
	client   *http.Client // reaches the provider (in process for the development one)
	oauth    oauth2.Config
	idTokens *oidc.IDTokenVerifier
	access   *oidc.IDTokenVerifier // same checks for access tokens, audience = API audience
	userInfo *userInfoEndpoint     // nil when the provider names none
}

type refusedToken struct {
	err   error
	until time.Time
}

type verification struct {
	done chan struct{}
	at   AccessToken
	err  error
}

var signingAlgs = []string{oidc.RS256, oidc.RS384, oidc.RS512, oidc.PS256, oidc.PS384, oidc.PS512, oidc.ES256, oidc.ES384, oidc.ES512, oidc.EdDSA}

func newAuthenticator(ctx context.Context, s *Server, webSecret string) (*authenticator, error) {
	a := &authenticator{s: s, webSecret: webSecret, httpClient: &http.Client{Timeout: 10 * time.Second, Transport: issuer.Capped(http.DefaultTransport)}}
	if s.idp != nil {
		keys := make([]crypto.PublicKey, 0)
		for _, k := range s.idp.PublicKeys() {
			keys = append(keys, k)
		}
		ks := &oidc.StaticKeySet{PublicKeys: keys}
		issuer := s.idp.Issuer()
		a.httpClient = s.inProcessClient()
		a.provider = &oidcProvider{
			client: a.httpClient,
			oauth: oauth2.Config{
				ClientID: devidp.WebClientID, ClientSecret: webSecret,
				Endpoint:    oauth2.Endpoint{AuthURL: issuer + "/authorize", TokenURL: issuer + "/token", AuthStyle: oauth2.AuthStyleInHeader},
				RedirectURL: s.cfg.BaseURL + "/auth/callback",
				Scopes:      []string{oidc.ScopeOpenID, "email"},
			},
			idTokens: oidc.NewVerifier(issuer, ks, &oidc.Config{ClientID: devidp.WebClientID, SupportedSigningAlgs: signingAlgs, Now: s.cfg.Now}),
			access:   oidc.NewVerifier(issuer, ks, &oidc.Config{ClientID: s.cfg.APIAudience, SupportedSigningAlgs: signingAlgs, Now: s.cfg.Now}),
		}
		return a, nil
	}
	if _, err := a.get(ctx); err != nil {
		// The issuer may come up after us; sign-in retries discovery.
		s.log.Warn("OIDC discovery failed; will retry at first sign-in", "issuer", s.cfg.OIDCIssuer, "err", err)
	}
	return a, nil
}

// get returns the provider, discovering it on first use.
func (a *authenticator) get(ctx context.Context) (*oidcProvider, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.provider != nil {
		return a.provider, nil
	}
	cfg := a.s.cfg
	dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, a.httpClient), 10*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(dctx, cfg.OIDCIssuer)
	if err != nil {
		return nil, fmt.Errorf("web: OIDC discovery of %s: %w", cfg.OIDCIssuer, err)
	}
	var claims struct {
		JWKSURI string `json:"jwks_uri"`
	}
	_ = p.Claims(&claims)
	ks := newRemoteKeys(claims.JWKSURI, a.httpClient, cfg.JWKSRefreshInterval)
	a.provider = &oidcProvider{
		client: a.httpClient,
		oauth: oauth2.Config{
			ClientID: cfg.OIDCClientID, ClientSecret: cfg.OIDCClientSecret,
			Endpoint:    p.Endpoint(),
			RedirectURL: cfg.BaseURL + "/auth/callback",
			Scopes:      []string{oidc.ScopeOpenID, "email", "profile"},
		},
		idTokens: oidc.NewVerifier(cfg.OIDCIssuer, ks, &oidc.Config{ClientID: cfg.OIDCClientID, SupportedSigningAlgs: signingAlgs, Now: cfg.Now}),
		access:   oidc.NewVerifier(cfg.OIDCIssuer, ks, &oidc.Config{ClientID: cfg.APIAudience, SupportedSigningAlgs: signingAlgs, Now: cfg.Now}),
	}
	if u := p.UserInfoEndpoint(); u != "" {
		// The configured issuer is reached as for its discovery and keys.
		a.provider.userInfo = &userInfoEndpoint{provider: cfg.OIDCIssuer, url: u, client: a.httpClient, keys: ks}
	}
	return a.provider, nil
}

// login starts the code flow: with the sign-in issuer, or with the identity
// provider named by via=. When identity providers offer web sign-in and
// via= is absent, it shows the choice.
func (a *authenticator) login(w http.ResponseWriter, r *http.Request) {
	via := r.URL.Query().Get("via")
	var p *oidcProvider
	var err error
	if via != "" && via != "default" {
		b, ok := a.webSignInNamed(r.Context(), via)
		if !ok {
			handlers.WriteError(w, r, handlers.CodeNotFound.New("No Active identity provider named "+via+" offers web sign-in."))
			return
		}
		p, err = b.webProvider(r.Context(), a)
	} else {
		if via == "" {
			if choices, err := a.webSignIn(r.Context()); err == nil && len(choices) > 0 {
				a.chooser(w, r, choices)
				return
			}
		}
		p, err = a.get(r.Context())
	}
	if err != nil {
		handlers.WriteError(w, r, handlers.CodeIDPUnavailable.New("The identity provider cannot be reached. Try again in a moment.").WithCause(err))
		return
	}
	state, nonce, verifier := randomString(24), randomString(24), oauth2.GenerateVerifier()
	sm := a.s.sessions
	sm.Put(r.Context(), "oidc_state", state)
	sm.Put(r.Context(), "oidc_nonce", nonce)
	sm.Put(r.Context(), "oidc_verifier", verifier)
	sm.Put(r.Context(), "return_to", localPath(r.URL.Query().Get("return_to")))
	if via == "default" {
		via = ""
	}
	sm.Put(r.Context(), "oidc_via", via) // "" is the sign-in issuer
	opts := []oauth2.AuthCodeOption{oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)}
	if hint := r.URL.Query().Get("login_hint"); hint != "" {
		opts = append(opts, oauth2.SetAuthURLParam("login_hint", hint))
	}
	http.Redirect(w, r, p.oauth.AuthCodeURL(state, opts...), http.StatusFound)
}

// localPath keeps a return address on this site. A backslash anywhere in
// the path is refused: browsers read it as a slash, and http.Redirect
// removes dot segments, so "/a/../\evil.example" would leave as
// "/\evil.example", another site.
func localPath(p string) string {
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return "/"
	}
	if path, _, _ := strings.Cut(p, "?"); strings.Contains(path, "\\") {
		return "/"
	}
	u, err := url.Parse(p)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return p
}

// callback finishes the code flow and signs the administrator in: it
// checks the sign-in was started here, learns from the provider who signed
// in, checks the provider may vouch for them, then starts their session.
func (a *authenticator) callback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sm := a.s.sessions
	q := r.URL.Query()
	state := sm.PopString(ctx, "oidc_state")
	nonce := sm.PopString(ctx, "oidc_nonce")
	verifier := sm.PopString(ctx, "oidc_verifier")
	returnTo := sm.PopString(ctx, "return_to")
	via := sm.PopString(ctx, "oidc_via")
	// The state is checked first: the provider's words (error and
	// error_description) are shown only for a sign-in started here, never
	// for a link someone else composed.
	if state == "" || q.Get("state") != state {
		handlers.WriteError(w, r, signInFailed("This sign-in link is stale or was not started here. Sign in again."))
		return
	}
	if e := q.Get("error"); e != "" {
		handlers.WriteError(w, r, signInFailed(strings.TrimSpace("The identity provider refused the sign-in: "+e+" "+q.Get("error_description"))))
		return
	}
	sp, err := a.providerFor(ctx, via)
	if err != nil {
		handlers.WriteError(w, r, err)
		return
	}
	who, err := a.signedIn(ctx, sp, q.Get("code"), verifier, nonce)
	if err != nil {
		handlers.WriteError(w, r, err)
		return
	}
	if err := a.vouchedFor(ctx, sp, via, who); err != nil {
		handlers.WriteError(w, r, err)
		return
	}
	boundName := "" // the sign-in issuer
	if sp.bound != nil {
		boundName = sp.bound.name
	}
	role, err := a.s.db.SignIn(ctx, who.email, "web", boundName)
	if err != nil {
		handlers.WriteError(w, r, err)
		return
	}
	if err := sm.RenewToken(ctx); err != nil {
		handlers.WriteError(w, r, err)
		return
	}
	if role == store.RoleNone {
		// The refusal is its own page, so that the address bar does not
		// keep the callback's code and state.
		sm.Put(ctx, refusedEmailKey, who.email)
		http.Redirect(w, r, "/login/refused", http.StatusSeeOther)
		return
	}
	sm.Put(ctx, "email", store.NormalizeEmail(who.email))
	// What a provider's groups made holds only at requests that provider
	// authenticated (docs/design.md §16).
	sm.Put(ctx, sessionProviderKey, boundName)
	a.learned.learn(who.idToken.Issuer, who.idToken.Subject, who.email, a.s.cfg.Now())
	if sm.Exists(ctx, keptFormKey) {
		flasher{sm}.Warn(ctx, "Your session had expired, so you were asked to sign in again and nothing was saved. What you typed is back in the form (files must be chosen again): check it and save again.")
	}
	http.Redirect(w, r, localPath(returnTo), http.StatusSeeOther)
}

// refusedEmailKey keeps, in a session, the e-mail a sign-in was refused
// for, for the page that says so.
const refusedEmailKey = "refused_email"

// refusedPage says that the last sign-in of this browser was refused: 403
// naming the e-mail, or, without one, the way to sign in.
func (a *authenticator) refusedPage(w http.ResponseWriter, r *http.Request) {
	email := a.s.sessions.GetString(r.Context(), refusedEmailKey)
	if email == "" {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	handlers.WriteError(w, r, forbiddenNotAdmin(email))
}

// signInFailed is the refusal of a sign-in, in words the person signing in
// can act on.
func signInFailed(msg string) *handlers.Error {
	return handlers.CodeSignInFailed.New(msg)
}

// signInProvider is the identity provider a web sign-in goes through: the
// sign-in issuer, or a bound identity provider chosen on the sign-in page.
type signInProvider struct {
	provider   *oidcProvider
	emailClaim string
	name       string       // in messages
	domains    []string     // the e-mail domains it vouches for; nil: any
	bound      *boundIssuer // nil: the sign-in issuer
}

// providerFor is the provider of a sign-in started through via (empty:
// the sign-in issuer).
func (a *authenticator) providerFor(ctx context.Context, via string) (signInProvider, error) {
	sp := signInProvider{emailClaim: a.s.cfg.EmailClaim, name: a.s.signInIssuer()}
	var err error
	if via != "" {
		b, ok := a.webSignInNamed(ctx, via)
		if !ok {
			return sp, signInFailed("The identity provider " + via + " no longer offers web sign-in.")
		}
		sp.emailClaim, sp.domains, sp.name, sp.bound = b.emailClaim, b.domains, b.name, b
		sp.provider, err = b.webProvider(ctx, a)
	} else {
		sp.provider, err = a.get(ctx)
	}
	if err != nil {
		return sp, handlers.CodeIDPUnavailable.New("The identity provider cannot be reached.").WithCause(err)
	}
	return sp, nil
}

// signedInPerson is who the provider says signed in.
type signedInPerson struct {
	email   string
	claims  map[string]any // of the ID token
	idToken *oidc.IDToken
}

// signedIn exchanges the code for the provider's tokens and learns from
// them who signed in: the e-mail from the ID token or, when it has none,
// from UserInfo.
func (a *authenticator) signedIn(ctx context.Context, sp signInProvider, code, verifier, nonce string) (signedInPerson, error) {
	var who signedInPerson
	p := sp.provider
	tok, err := p.oauth.Exchange(oidc.ClientContext(ctx, p.client), code, oauth2.VerifierOption(verifier))
	if err != nil {
		a.s.log.Info("code exchange failed", "err", err)
		return who, signInFailed("The sign-in code could not be exchanged. Sign in again.")
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := p.idTokens.Verify(ctx, raw)
	if err != nil {
		a.s.log.Info("ID token refused", "err", err)
		return who, signInFailed("The identity provider's ID token did not verify.")
	}
	if idt.Nonce != nonce {
		return who, signInFailed("The ID token's nonce does not match this sign-in.")
	}
	who.idToken = idt
	_ = idt.Claims(&who.claims)
	who.email, err = emailOf(who.claims, sp.emailClaim)
	if err != nil {
		return who, signInFailed("The identity provider " + sp.name + " " + err.Error() + ".")
	}
	if who.email == "" && p.userInfo != nil {
		// OpenID Connect Core §5.4: the email scope's claims may come from
		// UserInfo only, called with the access token of this sign-in.
		who.email, err = p.userInfo.email(ctx, tok.AccessToken, idt.Subject, sp.emailClaim)
		if err != nil {
			a.s.log.Info("sign-in refused: UserInfo", "provider", sp.name, "err", err)
			return who, signInFailed("Signing in through " + sp.name + " failed: " + err.Error() + ".")
		}
	}
	if who.email == "" {
		return who, signInFailed("The identity provider " + sp.name + " gave no e-mail (claim " + sp.emailClaim + ") in the ID token and names no UserInfo endpoint.")
	}
	return who, nil
}

// vouchedFor refuses a person a bound identity provider (named via) may
// not sign in: one outside its domains, or one its groups refuse; the
// groups it names are applied to them.
func (a *authenticator) vouchedFor(ctx context.Context, sp signInProvider, via string, who signedInPerson) error {
	if sp.domains != nil && !store.DomainAllowed(sp.domains, who.email) {
		return signInFailed("The identity provider " + via + " may not sign in " + who.email + ": its domain is not one it vouches for.")
	}
	if sp.bound == nil {
		return nil
	}
	groups, err := sp.bound.tokenGroups(who.claims)
	if err != nil {
		return signInFailed("Signing in through " + sp.name + " failed: its ID token is refused: " + err.Error() + ".")
	}
	return a.applyGroups(ctx, sp.bound, who.email, groups)
}

func forbiddenNotAdmin(email string) *handlers.Error {
	return handlers.CodeNotAnAdministrator.New(email + " is not an active administrator of this trust framework.")
}

// logout ends the session.
func (a *authenticator) logout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if len(a.s.sessions.Keys(ctx)) == 0 {
		// No session: nothing to end, and nothing is written (anyone can
		// post here; a new session each time would be a row each time).
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	email := a.s.sessions.GetString(ctx, "email")
	if err := a.s.sessions.Destroy(ctx); err != nil {
		handlers.WriteError(w, r, err)
		return
	}
	if err := a.s.sessions.RenewToken(ctx); err != nil {
		handlers.WriteError(w, r, err)
		return
	}
	if email != "" {
		_ = a.s.db.RecordEvent(ctx, store.AuditRecord{Actor: email, Action: "logout", SubjectType: "Session", SubjectID: email, Summary: "signed out"})
		flasher{a.s.sessions}.Put(ctx, "You signed out ("+email+"). Sign in again to use the console.")
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// sessionProviderKey keeps, in a session, the identity provider the person
// signed in through ("" for the sign-in issuer).
const sessionProviderKey = "identity_provider"

// sessionAuth loads the signed-in administrator; pages need one, the home
// page does not. The role is read on every request, so an Inactive Super
// User loses access at once.
func (a *authenticator) sessionAuth(required bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			email := a.s.sessions.GetString(ctx, "email")
			if email == "" {
				if !required {
					next.ServeHTTP(w, r)
					return
				}
				login := "/login?return_to=" + url.QueryEscape(r.URL.RequestURI())
				handlers.Vary(w) // a redirect, an HX-Redirect or a problem, by Accept and HX-Request
				if r.Method == http.MethodPost && !handlers.WantsJSON(r) {
					// A form sent after the session expired: keep what was
					// typed, sign in, and come back to the form with it.
					back := a.keepForm(w, r)
					login = "/login?return_to=" + url.QueryEscape(back)
					if r.Header.Get("HX-Request") == "true" {
						w.Header().Set("HX-Redirect", login)
						w.WriteHeader(http.StatusUnauthorized)
						return
					}
					http.Redirect(w, r, login, http.StatusSeeOther)
					return
				}
				if r.Header.Get("HX-Request") == "true" {
					// A boosted request must not follow the sign-in to another
					// origin (CSP connect-src 'self'): the page navigates instead.
					if r.Method != http.MethodGet && r.Method != http.MethodHead {
						login = "/login"
					}
					w.Header().Set("HX-Redirect", login)
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !handlers.WantsJSON(r) {
					http.Redirect(w, r, login, http.StatusFound)
					return
				}
				handlers.WriteError(w, r, handlers.CodeUnauthenticated.New("Sign in first."))
				return
			}
			acc, err := a.s.db.AccessVia(ctx, email, a.s.sessions.GetString(ctx, sessionProviderKey))
			if err != nil {
				handlers.WriteError(w, r, err)
				return
			}
			if acc.Role == store.RoleNone {
				handlers.WriteError(w, r, forbiddenNotAdmin(email))
				return
			}
			p := handlers.Principal{Email: email, Role: string(acc.Role), Via: "session", Orgs: acc.Orgs}
			if p.IsOrgAdmin() && required {
				if err := a.s.orgAdminCheck(r, p); err != nil {
					handlers.WriteError(w, r.WithContext(handlers.WithPrincipal(ctx, p)), err)
					return
				}
			}
			ctx = handlers.WithPrincipal(ctx, p)
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// requireSuperUser refuses anyone but a Super User with 403.
func requireSuperUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !handlers.PrincipalFrom(r.Context()).IsSuperUser() {
			handlers.WriteError(w, r, handlers.CodeForbidden.New("Only Super Users may do this."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// AccessToken is a verified API access token.
type AccessToken struct {
	Raw     string
	Email   string
	Subject string
	JKT     string // cnf.jkt when the token is DPoP-bound
	Expiry  time.Time
	// Bound is the identity provider that issued it, nil for the sign-in
	// issuer.
	Bound *boundIssuer
	// Groups are the groups it lists, for Bound's group mappings.
	Groups []string
	// Client is set for an application's token of the directory's own
	// token endpoint (docs/design.md §20).
	Client *clienttoken.Claims
}

// provider names the identity provider that issued the token, "" for the
// sign-in issuer (store.DB.RoleVia).
func (t AccessToken) provider() string {
	if t.Bound == nil {
		return ""
	}
	return t.Bound.name
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// verifyAccessToken checks a JWT access token: signature against the
// issuer's keys, iss, aud = API audience, exp, and typ (RFC 9068).
func (a *authenticator) verifyAccessToken(ctx context.Context, raw string) (AccessToken, error) {
	key := sha256.Sum256([]byte(raw))
	a.vmu.Lock()
	at, ok := a.verified[key]
	a.vmu.Unlock()
	if ok && at.Bound != nil {
		// A token of an identity provider holds while the provider stays
		// Active with the same settings.
		cur, err := a.boundIssuerFor(ctx, unverifiedIssuer(raw))
		if err != nil {
			return AccessToken{}, err
		}
		if cur != at.Bound {
			a.vmu.Lock()
			delete(a.verified, key)
			a.vmu.Unlock()
			ok = false
		}
	}
	if ok {
		if a.s.cfg.Now().Before(at.Expiry) {
			return at, nil
		}
		a.vmu.Lock()
		delete(a.verified, key)
		a.vmu.Unlock()
		// In the words of a first verification after the expiry.
		return AccessToken{}, verifyProblem(&oidc.TokenExpiredError{Expiry: at.Expiry})
	}
	a.vmu.Lock()
	if r, ok := a.refused[key]; ok {
		if a.s.cfg.Now().Before(r.until) {
			a.vmu.Unlock()
			return AccessToken{}, r.err
		}
		delete(a.refused, key)
	}
	if v, ok := a.inflight[key]; ok {
		// The same token is being verified: wait for that answer.
		a.vmu.Unlock()
		select {
		case <-v.done:
			return v.at, v.err
		case <-ctx.Done():
			return AccessToken{}, ctx.Err()
		}
	}
	if a.inflight == nil {
		a.inflight = map[[32]byte]*verification{}
	}
	v := &verification{done: make(chan struct{})}
	a.inflight[key] = v
	a.vmu.Unlock()

	at, err := a.verifyAccessTokenUncached(ctx, raw)
	a.vmu.Lock()
	delete(a.inflight, key)
	var ue *userInfoError
	switch {
	case err == nil:
		if a.verified == nil || len(a.verified) >= maxVerifiedTokens {
			a.verified = map[[32]byte]AccessToken{}
		}
		a.verified[key] = at
	case errors.As(err, &ue) && ue.lasting && !at.Expiry.IsZero():
		if a.refused == nil || len(a.refused) >= maxVerifiedTokens {
			a.refused = map[[32]byte]refusedToken{}
		}
		a.refused[key] = refusedToken{err: err, until: at.Expiry}
	}
	a.vmu.Unlock()
	v.at, v.err = at, err
	close(v.done)
	if err != nil {
		return AccessToken{}, err
	}
	return at, nil
}

func (a *authenticator) verifyAccessTokenUncached(ctx context.Context, raw string) (AccessToken, error) {
	if unverifiedIssuer(raw) == a.s.cfg.BaseURL {
		// The issuer decides the kind: the directory's own tokens are
		// applications' (docs/design.md §20).
		c, err := a.s.clients.Minter.Verify(raw, a.s.cfg.BaseURL, a.s.cfg.APIAudience)
		if err != nil {
			return AccessToken{}, err
		}
		at := AccessToken{Raw: raw, Subject: c.Subject, Expiry: time.Unix(c.Expiry, 0), Client: &c}
		if c.Cnf != nil {
			if c.Cnf.JKT == "" {
				return AccessToken{}, errors.New("the token's cnf claim has no jkt")
			}
			at.JKT = c.Cnf.JKT
		}
		return at, nil
	}
	typ, err := jwtHeaderTyp(raw)
	if err != nil {
		return AccessToken{}, err
	}
	okTyp := false
	for _, t := range a.s.cfg.TokenTypes {
		if strings.EqualFold(typ, t) {
			okTyp = true
		}
	}
	if !okTyp {
		return AccessToken{}, fmt.Errorf("token typ %q is not an access token type (%s)", typ, strings.Join(a.s.cfg.TokenTypes, ", "))
	}
	var verifier *oidc.IDTokenVerifier
	emailClaim := a.s.cfg.EmailClaim
	var bound *boundIssuer
	var signIn *oidcProvider
	if iss := unverifiedIssuer(raw); iss == "" || iss == a.s.signInIssuer() {
		p, err := a.get(ctx)
		if err != nil {
			return AccessToken{}, handlers.CodeIDPUnavailable.New("the token issuer cannot be reached").WithCause(err)
		}
		verifier, signIn = p.access, p
	} else {
		bound, err = a.boundIssuerFor(ctx, iss)
		if err != nil {
			return AccessToken{}, err
		}
		if bound == nil {
			return AccessToken{}, fmt.Errorf("tokens of issuer %q are not accepted: it is neither the sign-in issuer nor an Active identity provider", iss)
		}
		verifier, emailClaim = bound.verifier, bound.emailClaim
	}
	t, err := verifier.Verify(ctx, raw)
	if err != nil {
		return AccessToken{}, verifyProblem(err)
	}
	var claims map[string]any
	if err := t.Claims(&claims); err != nil {
		return AccessToken{}, err
	}
	email, err := emailOf(claims, emailClaim)
	if err != nil {
		return AccessToken{}, fmt.Errorf("the token's issuer %s", err)
	}
	jkt, err := boundKey(claims)
	if err != nil {
		return AccessToken{}, err
	}
	if email == "" {
		// RFC 9068 tokens carry sub, often not the e-mail: ask the issuer.
		provider, ui, uiErr := t.Issuer, (*userInfoEndpoint)(nil), error(nil)
		if signIn != nil {
			ui = signIn.userInfo
		} else {
			provider = bound.name + " (" + bound.issuer + ")"
			ui, uiErr = bound.userInfo(ctx, a)
		}
		email, err = a.emailFromProvider(ctx, provider, t.Issuer, ui, uiErr, raw, t.Subject, jkt, emailClaim)
		if err != nil {
			return AccessToken{Expiry: t.Expiry}, err
		}
	}
	if bound != nil && !store.DomainAllowed(bound.domains, email) {
		return AccessToken{}, fmt.Errorf("identity provider %s may not vouch for %s: its domain is not one of %s", bound.name, email, strings.Join(bound.domains, ", "))
	}
	at := AccessToken{Raw: raw, Email: email, Subject: t.Subject, Expiry: t.Expiry, Bound: bound}
	if bound != nil {
		if at.Groups, err = bound.tokenGroups(claims); err != nil {
			return AccessToken{}, fmt.Errorf("identity provider %s: %w", bound.name, err)
		}
	}
	at.JKT = jkt
	return at, nil
}

// boundKey is the thumbprint of the key a token is bound to (cnf.jkt), ""
// for a token without cnf. A cnf that is not an object, or one without a
// jkt (bound some other way, such as to a certificate), is an error: such a
// token is bound in a way this server cannot check, and must not pass as
// an unbound one.
func boundKey(claims map[string]any) (string, error) {
	raw, ok := claims["cnf"]
	if !ok {
		return "", nil
	}
	cnf, ok := raw.(map[string]any)
	if !ok {
		return "", errors.New("the token's cnf claim is not a JSON object")
	}
	jkt, _ := cnf["jkt"].(string)
	if jkt == "" {
		return "", errors.New("the token's cnf claim has no jkt")
	}
	return jkt, nil
}

// errUnverified: the provider does not say the e-mail is verified.
var errUnverified = errors.New("says the e-mail is not verified (email_verified is not true)")

// emailOf reads the administrator's e-mail from claims (a token's or a
// UserInfo answer's) under claim; "" when absent. The e-mail is taken only
// when the provider says it is verified or says nothing: email_verified
// true (or the string "true", as some providers write it) or absent. Any
// other value (false, 0, "no", null, …) refuses the email claim it
// describes, on every path (web sign-in, API tokens, UserInfo). An absent
// email_verified is accepted: RFC 9068 access tokens rarely carry it, and
// the issuer vouches for the claims it signs (docs/decisions.md).
func emailOf(claims map[string]any, claim string) (string, error) {
	email, _ := claims[claim].(string)
	if email == "" {
		return "", nil
	}
	if !formats.ValidEmail(email) {
		// The person is known by this address: one that only a lax parser
		// takes (admin@example.com@partner.example) names nobody.
		return "", fmt.Errorf("gives %q as the e-mail (claim %s), which is not an ordinary e-mail address", email, claim)
	}
	if claim != "email" {
		return email, nil
	}
	if v, present := claims["email_verified"]; present && v != true && v != "true" {
		return "", errUnverified
	}
	return email, nil
}

func jwtHeaderTyp(raw string) (string, error) {
	h, _, ok := strings.Cut(raw, ".")
	if !ok {
		return "", errors.New("the token is not a JWT")
	}
	b, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		return "", errors.New("the token header is not base64url")
	}
	var hdr struct {
		Typ string `json:"typ"`
	}
	if err := json.Unmarshal(b, &hdr); err != nil {
		return "", errors.New("the token header is not JSON")
	}
	return hdr.Typ, nil
}

// apiAuth authenticates /api requests by access token only. Schemes are
// pluggable: Bearer here, DPoP added by the DPoP checker when enabled.
func (a *authenticator) apiAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, err := a.authenticateRequest(r)
		if err != nil {
			handlers.WriteError(w, r, err)
			return
		}
		if tok.Client != nil {
			a.applicationAuth(w, r, tok, next)
			return
		}
		if tok.Bound != nil {
			// What its groups grant holds at this request only (docs/design.md §16).
			if err := a.applyGroups(r.Context(), tok.Bound, tok.Email, tok.Groups); err != nil {
				handlers.WriteError(w, r, err)
				return
			}
		}
		acc, err := a.s.db.AccessVia(r.Context(), tok.Email, tok.provider())
		if err != nil {
			handlers.WriteError(w, r, err)
			return
		}
		if acc.Role == store.RoleNone {
			handlers.WriteError(w, r, forbiddenNotAdmin(tok.Email))
			return
		}
		p := handlers.Principal{Email: store.NormalizeEmail(tok.Email), Role: string(acc.Role), Via: "token", Orgs: acc.Orgs}
		if p.IsOrgAdmin() {
			if err := a.s.orgAdminCheck(r, p); err != nil {
				handlers.WriteError(w, r, err)
				return
			}
		}
		ctx := handlers.WithPrincipal(r.Context(), p)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// applicationAuth serves a request made with an application's own token
// (docs/design.md §20): it works while the application and its
// organisation are Active, on the routes appAccess gives it.
func (a *authenticator) applicationAuth(w http.ResponseWriter, r *http.Request, tok AccessToken, next http.Handler) {
	c, err := a.s.clients.Access(r.Context(), *tok.Client)
	if err != nil {
		scheme := "Bearer"
		if tok.JKT != "" {
			scheme = "DPoP"
		}
		var refused *directory.ClientRefused
		if errors.As(err, &refused) {
			err = a.challenge(scheme, handlers.CodeInvalidToken, "the access token no longer works: "+refused.Reason)
		}
		handlers.WriteError(w, r, err)
		return
	}
	p := handlers.Principal{Email: c.Actor(), Role: handlers.RoleApplication, Via: "token", Orgs: []string{c.OrganisationID}, App: c.SoftwareStatementID}
	ctx := handlers.WithPrincipal(r.Context(), p)
	if err := a.s.appCheck(r, p); err != nil {
		handlers.WriteError(w, r.WithContext(ctx), err)
		return
	}
	next.ServeHTTP(w, r.WithContext(ctx))
}

func (a *authenticator) authenticateRequest(r *http.Request) (AccessToken, error) {
	authz := r.Header.Values("Authorization")
	if len(authz) == 0 {
		return AccessToken{}, a.challenge("", handlers.Code{}, "an access token is required (Authorization: Bearer <token> or DPoP <token> with a DPoP proof)")
	}
	if len(authz) > 1 {
		return AccessToken{}, a.challenge("", handlers.CodeInvalidRequest, "send exactly one Authorization header with one scheme")
	}
	scheme, raw, _ := strings.Cut(authz[0], " ")
	raw = strings.TrimSpace(raw)
	if !strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "DPoP") {
		// RFC 6750 §3.1: an unsupported method gets the bare challenges,
		// as no credentials do.
		return AccessToken{}, a.challenge("", handlers.Code{}, "unsupported authorization scheme "+scheme+"; send Authorization: Bearer <token> or DPoP <token> with a DPoP proof")
	}
	if strings.Contains(raw, ",") {
		return AccessToken{}, a.challenge("", handlers.CodeInvalidRequest, "send exactly one Authorization header with one scheme")
	}
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		if raw == "" {
			return AccessToken{}, a.challenge("Bearer", handlers.CodeInvalidRequest, "the Bearer token is empty")
		}
		tok, err := a.verifyAccessToken(r.Context(), raw)
		if err != nil {
			return AccessToken{}, a.asTokenError("Bearer", err)
		}
		if tok.JKT != "" {
			return AccessToken{}, a.challenge("Bearer", handlers.CodeInvalidToken, "this token is DPoP-bound; present it with Authorization: DPoP and a DPoP proof")
		}
		return tok, nil
	case strings.EqualFold(scheme, "DPoP"):
		if raw == "" {
			return AccessToken{}, a.challenge("DPoP", handlers.CodeInvalidRequest, "the DPoP token is empty")
		}
		tok, err := a.verifyAccessToken(r.Context(), raw)
		if err != nil {
			return AccessToken{}, a.asTokenError("DPoP", err)
		}
		if tok.JKT == "" {
			return AccessToken{}, a.challenge("DPoP", handlers.CodeInvalidToken, "this token is not DPoP-bound (no cnf.jkt); present it as Bearer")
		}
		_, err = a.s.dpop.Check(r.Header.Values("DPoP"), dpop.Request{
			Method: r.Method, URL: a.s.requestURI(r), AccessToken: raw, JKT: tok.JKT,
		})
		if err != nil {
			return AccessToken{}, a.proofError(err)
		}
		return tok, nil
	}
	return AccessToken{}, a.challenge("", handlers.Code{}, "unsupported authorization scheme "+scheme)
}

// challenge is a 401 (400 for invalid_request) with the WWW-Authenticate
// challenges of RFC 6750 and RFC 9449 §7.1: the scheme in error gets the
// error; with no scheme both are offered.
func (a *authenticator) challenge(scheme string, code handlers.Code, msg string) *handlers.Error {
	desc := errorDescription(msg)
	bearer := `Bearer realm="trustframe"`
	dp := `DPoP realm="trustframe", algs="` + a.s.dpop.AlgList() + `"`
	if code.Name != "" {
		params := `, error="` + code.Name + `", error_description="` + desc + `"`
		switch scheme {
		case "Bearer":
			bearer += params
		case "DPoP":
			dp += params
		default:
			bearer += params
		}
	}
	h := http.Header{}
	h.Add("WWW-Authenticate", bearer)
	h.Add("WWW-Authenticate", dp)
	if code.Name == "" {
		code = handlers.CodeUnauthenticated
	}
	return code.New(msg).WithHeader(h)
}

// errorDescription fits msg to RFC 6750 §3's error_description: only
// %x20-21 / %x23-5B / %x5D-7E. A double quote becomes ', and a backslash,
// a control character or a non-ASCII one (which may come from what the
// client sent) becomes ?.
func errorDescription(msg string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '\\' || r < 0x20 || r > 0x7e:
			return '?'
		}
		return r
	}, msg)
}

// proofError reports a refused DPoP proof and the rule it broke.
func (a *authenticator) proofError(err error) error {
	if errors.Is(err, dpop.ErrReplayUnavailable) {
		// Not the client's fault, nor a replay: it may try again.
		return handlers.CodeBusy.New("The DPoP proof cannot be checked against the proofs already seen just now; nothing was done. Try again with a new proof in a moment.").
			WithHeader(http.Header{"Retry-After": {"1"}})
	}
	var de *dpop.Error
	if !errors.As(err, &de) {
		return err
	}
	code := handlers.CodeInvalidDPoPProof
	if de.UseNonce {
		code = handlers.CodeUseDPoPNonce
	}
	e := a.challenge("DPoP", code, "DPoP proof refused ("+de.Rule+"): "+de.Message)
	e.Extra = map[string]any{"dpopRule": de.Rule}
	e.Fields = []handlers.FieldError{{Code: code.Name, Message: de.Message, Field: "DPoP." + de.Rule}}
	if de.UseNonce && a.s.nonces != nil {
		e.Header.Set("DPoP-Nonce", a.s.nonces.New())
	}
	return e
}

func (a *authenticator) asTokenError(scheme string, err error) error {
	var he *handlers.Error
	if errors.As(err, &he) {
		return he
	}
	return a.challenge(scheme, handlers.CodeInvalidToken, "the access token is not valid: "+RedactURLs(err.Error()))
}

// verifyProblem says why go-oidc refused a token in the API's words: its
// own read "oidc: token is expired (Token Expiry: …)" or "failed to verify
// signature: no public keys able to verify jwt", and spoke of ID tokens.
// An issuer whose keys cannot be fetched is the issuer's fault, not the
// token's: 503 idp_unavailable, as when its discovery cannot be read.
func verifyProblem(err error) error {
	var expired *oidc.TokenExpiredError
	msg := err.Error()
	switch {
	case errors.As(err, &expired):
		return fmt.Errorf("it expired at %s; get a new one", expired.Expiry.UTC().Format("2006-01-02 15:04:05 UTC"))
	case strings.HasPrefix(msg, "fetching keys") || strings.HasPrefix(msg, "oidc: get keys failed"):
		return handlers.CodeIDPUnavailable.New("the token issuer's keys cannot be fetched; try again later").WithCause(err)
	case strings.HasPrefix(msg, "failed to verify signature") || strings.HasPrefix(msg, "failed to verify id token signature"):
		return errors.New("its signature does not verify with any key its issuer publishes (signed by another key, or changed after signing)")
	case strings.HasPrefix(msg, "oidc: malformed jwt: unexpected signature algorithm "):
		// go-oidc: `unexpected signature algorithm "HS256"; expected ["RS256"]`
		got, want, _ := strings.Cut(strings.TrimPrefix(msg, "oidc: malformed jwt: unexpected signature algorithm "), "; expected ")
		return fmt.Errorf("its alg %s is not one its issuer signs with (%s)", got, want)
	case strings.HasPrefix(msg, "oidc: malformed jwt"):
		return errors.New("it is not a signed JWT (header.payload.signature, each base64url)")
	case strings.HasPrefix(msg, "oidc: expected audience "):
		want, got, _ := strings.Cut(strings.TrimPrefix(msg, "oidc: expected audience "), " got ")
		return fmt.Errorf("it is not for this API: its aud %s does not name %s", got, want)
	}
	msg = strings.TrimPrefix(msg, "oidc: ")
	return errors.New(strings.ReplaceAll(msg, "id token", "token"))
}
