package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/trustframe/trustframe/handlers"
	"github.com/trustframe/trustframe/issuer"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
	"golang.org/x/oauth2"
)

// Identity providers bound in Reference Data: their access tokens are
// verified with their keys, audience and e-mail claim, and those with a
// client ID are offered for web sign-in.

// boundIssuers is the verifiers of the identity providers bound in
// Reference Data, reloaded when they change here (store version) and at
// least every boundIssuersTTL (changes made by another process).
type boundIssuers struct {
	version  int64
	loaded   time.Time
	byIssuer map[string]*boundIssuer
}

// boundIssuer verifies the access tokens of one identity provider. An entry
// is kept across reloads while its settings stay the same, so tokens
// verified with it stay remembered; a changed or removed entry drops them.
type boundIssuer struct {
	name, issuer, jwksURI, audience, emailClaim string
	verifier                                    *oidc.IDTokenVerifier
	domains                                     []string // e-mail domains it may vouch for ("*": any)
	// Administrator groups (docs/design.md §16).
	groupsClaim string
	groupRoles  []store.GroupRole
	// Web sign-in, when the provider has a client ID.
	clientID, clientSecret string
	ks                     oidc.KeySet
	wmu                    sync.Mutex
	web                    *oidcProvider // discovered at the first sign-in
	// UserInfo, for access tokens without the e-mail: discovered at the
	// first such token; a failed discovery is tried again after a minute.
	umu      sync.Mutex
	ui       *userInfoEndpoint
	uiErr    error
	uiTried  time.Time
	uiLoaded bool
}

// userInfoRetry: how long a failed discovery of a provider's UserInfo
// endpoint stands before the next token tries again.
const userInfoRetry = time.Minute

// userInfoFrom reads the UserInfo endpoint from discovery metadata.
// The access token goes there, so it must be https unless private
// addresses are allowed (development).
func (b *boundIssuer) userInfoFrom(p *oidc.Provider, a *authenticator) (*userInfoEndpoint, error) {
	u := p.UserInfoEndpoint()
	if u == "" {
		return nil, nil
	}
	if !strings.HasPrefix(u, "https://") && !a.s.allowPrivateIssuers() {
		return nil, errors.New("its UserInfo endpoint is not an https URL")
	}
	return &userInfoEndpoint{provider: b.name + " (" + b.issuer + ")", url: u, client: a.boundClient(), keys: b.ks}, nil
}

// userInfo is the provider's UserInfo endpoint (nil when its discovery
// document names none), discovered with the guarded client.
func (b *boundIssuer) userInfo(ctx context.Context, a *authenticator) (*userInfoEndpoint, error) {
	b.umu.Lock()
	defer b.umu.Unlock()
	if b.uiLoaded || (b.uiErr != nil && time.Since(b.uiTried) < userInfoRetry) {
		return b.ui, b.uiErr
	}
	dctx, cancel := context.WithTimeout(oidc.ClientContext(context.WithoutCancel(ctx), a.boundClient()), 10*time.Second)
	defer cancel()
	b.uiTried = time.Now()
	p, err := oidc.NewProvider(dctx, b.issuer)
	if err != nil {
		b.uiErr = fmt.Errorf("its discovery document cannot be read: %s", RedactURLs(err.Error()))
		return nil, b.uiErr
	}
	b.ui, b.uiErr = b.userInfoFrom(p, a)
	b.uiLoaded = b.uiErr == nil
	return b.ui, b.uiErr
}

// webProvider is the provider's code flow (discovery on first use).
func (b *boundIssuer) webProvider(ctx context.Context, a *authenticator) (*oidcProvider, error) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if b.web != nil {
		return b.web, nil
	}
	dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, a.boundClient()), 10*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(dctx, b.issuer)
	if err != nil {
		return nil, fmt.Errorf("web: OIDC discovery of %s: %w", b.issuer, err)
	}
	b.web = &oidcProvider{
		client: a.boundClient(),
		oauth: oauth2.Config{
			ClientID: b.clientID, ClientSecret: b.clientSecret,
			Endpoint:    p.Endpoint(),
			RedirectURL: a.s.cfg.BaseURL + "/auth/callback",
			Scopes:      []string{oidc.ScopeOpenID, "email", "profile"},
		},
		idTokens: oidc.NewVerifier(b.issuer, b.ks, &oidc.Config{ClientID: b.clientID, SupportedSigningAlgs: signingAlgs, Now: a.s.cfg.Now}),
	}
	// Without a usable UserInfo endpoint, sign-in needs the e-mail in the ID token.
	b.web.userInfo, _ = b.userInfoFrom(p, a)
	return b.web, nil
}

// webSignInNamed finds the Active identity provider offered for web
// sign-in under this name.
func (a *authenticator) webSignInNamed(ctx context.Context, name string) (*boundIssuer, bool) {
	choices, err := a.webSignIn(ctx)
	if err != nil {
		return nil, false
	}
	for _, b := range choices {
		if b.name == name {
			return b, true
		}
	}
	return nil, false
}

// chooser is the sign-in page when identity providers offer web sign-in.
func (a *authenticator) chooser(w http.ResponseWriter, r *http.Request, choices []*boundIssuer) {
	keep := url.Values{}
	for _, k := range []string{"return_to", "login_hint"} {
		if v := r.URL.Query().Get(k); v != "" {
			keep.Set(k, v)
		}
	}
	link := func(via string) string {
		q := url.Values{"via": {via}}
		for k, v := range keep {
			q[k] = v
		}
		return "/login?" + q.Encode()
	}
	opts := []views.Option{{Value: link("default"), Label: "the service's identity provider"}}
	for _, b := range choices {
		opts = append(opts, views.Option{Value: link(b.name), Label: b.name})
	}
	handlers.Render(w, r, http.StatusOK, views.SignInChooser(views.Shell{Title: "Sign in"}, opts))
}

// boundIssuerFor returns the verifier of the Active identity provider with
// this issuer, or nil.
func (a *authenticator) boundIssuerFor(ctx context.Context, iss string) (*boundIssuer, error) {
	m, err := a.boundIssuers(ctx)
	return m[iss], err
}

// webSignIn returns the Active identity providers offered for web sign-in,
// by name.
func (a *authenticator) webSignIn(ctx context.Context) ([]*boundIssuer, error) {
	m, err := a.boundIssuers(ctx)
	if err != nil {
		return nil, err
	}
	var out []*boundIssuer
	for _, b := range m {
		if b.clientID != "" {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(x, y *boundIssuer) int { return strings.Compare(x.name, y.name) })
	return out, nil
}

// boundIssuers are the Active identity providers by issuer, reloaded when
// they changed.
func (a *authenticator) boundIssuers(ctx context.Context) (map[string]*boundIssuer, error) {
	a.s.db.Sync(ctx) // another instance's change to the providers is seen now
	a.bmu.Lock()
	defer a.bmu.Unlock()
	now := time.Now()
	v := a.s.db.IdentityProvidersVersion()
	b := &a.bound
	if b.byIssuer == nil || b.version != v || now.Sub(b.loaded) > boundIssuersTTL {
		ps, err := a.s.db.ListIdentityProviders(ctx)
		if err != nil {
			return nil, err
		}
		next := map[string]*boundIssuer{}
		for _, p := range ps {
			if p.Status != "Active" {
				continue
			}
			aud := orDefault(p.Audience, a.s.cfg.APIAudience)
			var secret string
			if len(p.SealedSecret) > 0 {
				plain, err := a.s.kek.Open(p.SealedSecret, idpSecretAAD(p.Name))
				if err != nil {
					a.s.log.Error("identity provider client secret does not open with this KEK; web sign-in through it is off", "name", p.Name, "err", err)
					p.ClientID = ""
				}
				secret = string(plain)
			}
			if old := b.byIssuer[p.Issuer]; old != nil && old.name == p.Name && old.jwksURI == p.JwksURI && old.audience == aud &&
				old.emailClaim == p.EmailClaim && old.clientID == p.ClientID && old.clientSecret == secret && slices.Equal(old.domains, p.EmailDomains) &&
				old.groupsClaim == p.GroupsClaim && slices.Equal(old.groupRoles, p.GroupRoles) {
				next[p.Issuer] = old
				continue
			}
			ks := newRemoteKeys(p.JwksURI, a.boundClient(), a.s.cfg.JWKSRefreshInterval)
			next[p.Issuer] = &boundIssuer{name: p.Name, issuer: p.Issuer, jwksURI: p.JwksURI, audience: aud, emailClaim: p.EmailClaim, domains: p.EmailDomains,
				groupsClaim: p.GroupsClaim, groupRoles: p.GroupRoles,
				clientID: p.ClientID, clientSecret: secret, ks: ks,
				verifier: oidc.NewVerifier(p.Issuer, ks, &oidc.Config{ClientID: aud, SupportedSigningAlgs: signingAlgs, Now: a.s.cfg.Now})}
		}
		*b = boundIssuers{version: v, loaded: now, byIssuer: next}
	}
	return b.byIssuer, nil
}

// boundClient fetches identity providers' keys with the limits of issuer
// validation (time, redirects, no private addresses unless allowed).
func (a *authenticator) boundClient() *http.Client {
	return (&issuer.Validator{AllowPrivate: a.s.allowPrivateIssuers(), Timeout: 10 * time.Second}).HTTPClient()
}

// unverifiedIssuer reads iss from a JWT's payload, to choose the keys that
// will verify it; nothing else is trusted before the signature is checked.
func unverifiedIssuer(raw string) string {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		Iss string `json:"iss"`
	}
	_ = json.Unmarshal(b, &c)
	return c.Iss
}
