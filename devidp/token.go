package devidp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/trustframe/trustframe/dpop"
)

// oauthError is an error response of the token and revocation endpoints
// (RFC 6749 §5.2).
type oauthError struct {
	status      int
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
	basic       bool   // the client authenticated with HTTP Basic: 401 carries its challenge
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

func badRequest(code, description string) *oauthError {
	return &oauthError{status: http.StatusBadRequest, Code: code, Description: description}
}

func invalidGrant(description string) *oauthError { return badRequest("invalid_grant", description) }

func (p *Provider) writeError(w http.ResponseWriter, e *oauthError) {
	if e.status == http.StatusUnauthorized && e.basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="trustframe development identity provider"`)
	}
	writeJSON(w, e.status, e)
}

// maxForm bounds a token or revocation request's body.
const maxForm = 64 << 10

// readForm parses a token or revocation request: its parameters in an
// application/x-www-form-urlencoded body, each at most once (RFC 6749 §3.2).
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, *oauthError) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return nil, badRequest("invalid_request", "the body must be application/x-www-form-urlencoded: "+err.Error())
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			return nil, badRequest("invalid_request", k+" is given more than once")
		}
	}
	return r.PostForm, nil
}

// authenticate is the client of a token or revocation request (RFC 6749
// §2.3): the web app with its secret (client_secret_basic or
// client_secret_post), the CLI as a public client with its client_id
// (and no secret, or an empty one).
func (p *Provider) authenticate(r *http.Request, form url.Values) (*client, *oauthError) {
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, &oauthError{status: http.StatusUnauthorized, Code: "invalid_client", Description: "the Basic credentials are not form-encoded (RFC 6749 §2.3.1)", basic: true}
		}
		if form.Has("client_secret") {
			return nil, badRequest("invalid_request", "the client authenticates in one way only: Basic or client_secret, not both")
		}
		if form.Has("client_id") && form.Get("client_id") != id {
			return nil, badRequest("invalid_request", "client_id differs from the Basic credentials")
		}
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	if form.Has("client_assertion") || form.Has("client_assertion_type") {
		return nil, &oauthError{status: http.StatusUnauthorized, Code: "invalid_client", Description: "client assertions are not accepted: the clients are " + WebClientID + " (client secret) and " + CLIClientID + " (public)", basic: basic}
	}
	if id == "" {
		return nil, &oauthError{status: http.StatusUnauthorized, Code: "invalid_client", Description: "client_id is missing", basic: basic}
	}
	c := p.client(id)
	if c == nil {
		return nil, &oauthError{status: http.StatusUnauthorized, Code: "invalid_client", Description: "unknown client", basic: basic}
	}
	if c.secret == "" {
		if secret != "" {
			return nil, &oauthError{status: http.StatusUnauthorized, Code: "invalid_client", Description: c.id + " is a public client: it has no secret", basic: basic}
		}
		return c, nil
	}
	if secret == "" || subtle.ConstantTimeCompare([]byte(secret), []byte(c.secret)) != 1 {
		return nil, &oauthError{status: http.StatusUnauthorized, Code: "invalid_client", Description: "client authentication failed", basic: basic}
	}
	return c, nil
}

// token is the token endpoint (RFC 6749 §3.2): authorization_code with
// PKCE, refresh_token with rotation; tokens DPoP-bound with a proof.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	form, oe := readForm(w, r)
	if oe != nil {
		p.writeError(w, oe)
		return
	}
	grantType := form.Get("grant_type")
	switch grantType {
	case "authorization_code", "refresh_token":
	case "":
		p.writeError(w, badRequest("invalid_request", "grant_type is missing"))
		return
	default:
		// unsupported_grant_type (RFC 6749 §5.2), saying what it gives.
		p.writeError(w, badRequest("unsupported_grant_type",
			"the development identity provider gives tokens by authorization_code (with PKCE) and refresh_token only; automation signs in with trustframe login, or uses the identity provider the directory is configured with (docs/openid-provider.md)"))
		return
	}
	c, oe := p.authenticate(r, form)
	if oe != nil {
		p.log.Info("devidp: token refused", "error", oe.Code, "description", oe.Description)
		p.writeError(w, oe)
		return
	}
	// The proof is checked before the grant: a refused proof must not use
	// up the authorization code or the refresh token.
	jkt := ""
	if p.cfg.ProofBinder != nil {
		var err error
		jkt, err = p.cfg.ProofBinder(r)
		if errors.Is(err, dpop.ErrReplayUnavailable) {
			w.Header().Set("Retry-After", "1")
			p.writeError(w, &oauthError{status: http.StatusServiceUnavailable, Code: "temporarily_unavailable", Description: err.Error()})
			return
		}
		if err != nil {
			code := "invalid_dpop_proof"
			var de *dpop.Error
			if errors.As(err, &de) && de.UseNonce {
				code = "use_dpop_nonce"
			}
			p.setNonce(w)
			p.writeError(w, badRequest(code, err.Error()))
			return
		}
	}
	var g *grant
	scope := []string(nil)
	if grantType == "authorization_code" {
		g, oe = p.exchangeCode(r.Context(), c, form, jkt)
	} else {
		g, scope, oe = p.refresh(r.Context(), c, form, jkt)
	}
	if oe != nil {
		p.log.Info("devidp: token refused", "client_id", c.id, "grant_type", grantType, "error", oe.Code, "description", oe.Description)
		p.writeError(w, oe)
		return
	}
	if scope == nil {
		scope = g.Scope
	}
	resp, err := p.issue(r.Context(), g, scope, grantType == "authorization_code")
	if err != nil {
		p.log.Error("devidp: issue tokens", "err", err)
		p.writeError(w, &oauthError{status: http.StatusInternalServerError, Code: "server_error", Description: "the tokens could not be issued"})
		return
	}
	p.setNonce(w)
	writeJSON(w, http.StatusOK, resp)
}

// exchangeCode checks an authorization code and its request (RFC 6749
// §4.1.3, RFC 7636 §4.6) and uses it up. A code used before revokes the
// refresh tokens it led to (§4.1.2, §10.5).
func (p *Provider) exchangeCode(ctx context.Context, c *client, form url.Values, jkt string) (*grant, *oauthError) {
	code := form.Get("code")
	if code == "" {
		return nil, badRequest("invalid_request", "code is missing")
	}
	sig := p.sign(code)
	g, active, err := p.sessions.findCode(ctx, sig)
	if errors.Is(err, errNotFound) {
		return nil, invalidGrant("the authorization code is unknown or expired")
	}
	if err != nil {
		return nil, &oauthError{status: http.StatusInternalServerError, Code: "server_error", Description: "the authorization code could not be read"}
	}
	if !active {
		p.revokeReused(ctx, g, "authorization code")
		return nil, invalidGrant("the authorization code has already been used; the tokens it gave are revoked")
	}
	switch {
	case g.ClientID != c.id:
		return nil, invalidGrant("the authorization code was issued to another client")
	case p.now().Unix() >= g.Expires:
		return nil, invalidGrant("the authorization code has expired")
	case g.RedirectGiven && form.Get("redirect_uri") != g.RedirectURI, !g.RedirectGiven && form.Has("redirect_uri") && form.Get("redirect_uri") != g.RedirectURI:
		return nil, invalidGrant("redirect_uri is not the one of the authorization request")
	}
	verifier := form.Get("code_verifier")
	if verifier == "" {
		return nil, badRequest("invalid_request", "code_verifier is missing (PKCE)")
	}
	if !validVerifier(verifier) {
		return nil, badRequest("invalid_request", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)")
	}
	sum := sha256.Sum256([]byte(verifier))
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(g.Challenge)) != 1 {
		return nil, invalidGrant("code_verifier does not match the code_challenge")
	}
	if g.DPoPJKT != "" && g.DPoPJKT != jkt {
		return nil, badRequest("invalid_dpop_proof", "the proof's key is not the dpop_jkt of the authorization request")
	}
	used, err := p.sessions.claimCode(ctx, sig)
	if err != nil {
		return nil, &oauthError{status: http.StatusInternalServerError, Code: "server_error", Description: "the authorization code could not be used"}
	}
	if !used {
		p.revokeReused(ctx, g, "authorization code")
		return nil, invalidGrant("the authorization code has already been used; the tokens it gave are revoked")
	}
	out := *g
	out.JKT = jkt
	return &out, nil
}

// refresh checks a refresh token (RFC 6749 §6) and rotates it: the token
// and its grant's other refresh tokens become inactive, a new one is
// issued. A refresh token used before revokes its grant (RFC 9700 §4.14).
// scope may narrow the grant's scope for this access token.
func (p *Provider) refresh(ctx context.Context, c *client, form url.Values, jkt string) (*grant, []string, *oauthError) {
	rt := form.Get("refresh_token")
	if rt == "" {
		return nil, nil, badRequest("invalid_request", "refresh_token is missing")
	}
	sig := p.sign(rt)
	g, active, err := p.sessions.findRefresh(ctx, sig)
	if errors.Is(err, errNotFound) {
		return nil, nil, invalidGrant("the refresh token is unknown or expired")
	}
	if err != nil {
		return nil, nil, &oauthError{status: http.StatusInternalServerError, Code: "server_error", Description: "the refresh token could not be read"}
	}
	if g.ClientID != c.id {
		return nil, nil, invalidGrant("the refresh token was issued to another client")
	}
	if !active {
		p.revokeReused(ctx, g, "refresh token")
		return nil, nil, invalidGrant("the refresh token is no longer active (used, or revoked); its grant is revoked")
	}
	if p.now().Unix() >= g.Expires {
		return nil, nil, invalidGrant("the refresh token has expired")
	}
	scope := g.Scope
	if form.Has("scope") {
		asked, ok := parseScope(form.Get("scope"))
		if !ok || slices.ContainsFunc(asked, func(s string) bool { return !g.has(s) }) {
			return nil, nil, badRequest("invalid_scope", "a refresh may narrow the granted scope ("+strings.Join(g.Scope, " ")+"), not widen it")
		}
		scope = asked
	}
	// A refresh token stays bound to the key the first token was bound to.
	if g.JKT != "" && g.JKT != jkt {
		msg := "the refresh token is bound to another key"
		if jkt == "" {
			msg = "the refresh token is DPoP-bound: send a DPoP proof made with its key"
		}
		return nil, nil, badRequest("invalid_dpop_proof", msg)
	}
	used, err := p.sessions.claimRefresh(ctx, sig)
	if err != nil {
		return nil, nil, &oauthError{status: http.StatusInternalServerError, Code: "server_error", Description: "the refresh token could not be used"}
	}
	if !used {
		p.revokeReused(ctx, g, "refresh token")
		return nil, nil, invalidGrant("the refresh token is no longer active (used, or revoked); its grant is revoked")
	}
	out := *g
	if out.JKT == "" {
		out.JKT = jkt
	}
	out.Nonce = "" // the nonce belongs to the first ID token only
	return &out, scope, nil
}

// revokeReused revokes a grant whose code or refresh token came back.
func (p *Provider) revokeReused(ctx context.Context, g *grant, what string) {
	p.log.Warn("devidp: a used "+what+" came back: its grant is revoked", "client_id", g.ClientID, "email", g.Email)
	if err := p.sessions.revokeGrant(ctx, g.ID); err != nil {
		p.log.Error("devidp: revoke a grant", "err", err)
	}
}

// validVerifier: RFC 7636 §4.1.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for _, c := range v {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~", c)) {
			return false
		}
	}
	return true
}

// tokenResponse is the token endpoint's answer (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	IDToken      string `json:"id_token,omitempty"`
}

// issue mints the access token (RFC 9068, bound with cnf.jkt when g.JKT),
// an ID token with openid, and a refresh token with offline_access
// (kept under the grant's ID).
func (p *Provider) issue(ctx context.Context, g *grant, scope []string, first bool) (*tokenResponse, error) {
	now := p.now()
	at := map[string]any{
		"iss": p.cfg.Issuer, "sub": g.Email, "aud": []string{p.cfg.APIAudience},
		"exp": now.Add(p.cfg.AccessTokenTTL).Unix(), "iat": now.Unix(), "auth_time": g.AuthTime,
		"jti": randomToken(), "client_id": g.ClientID, "email": g.Email, "scope": strings.Join(scope, " "),
	}
	resp := &tokenResponse{TokenType: "Bearer", ExpiresIn: int64(p.cfg.AccessTokenTTL / time.Second), Scope: strings.Join(scope, " ")}
	if g.JKT != "" {
		at["cnf"] = map[string]any{"jkt": g.JKT}
		resp.TokenType = "DPoP"
	}
	var err error
	if resp.AccessToken, err = p.signJWT("at+jwt", at); err != nil {
		return nil, err
	}
	if slices.Contains(scope, "openid") {
		sum := sha256.Sum256([]byte(resp.AccessToken))
		id := map[string]any{
			"iss": p.cfg.Issuer, "sub": g.Email, "aud": g.ClientID, "exp": now.Add(idTokenTTL).Unix(), "iat": now.Unix(),
			"auth_time": g.AuthTime, "at_hash": base64.RawURLEncoding.EncodeToString(sum[:16]), "jti": randomToken(),
			"email": g.Email, "email_verified": true,
		}
		if first && g.Nonce != "" {
			id["nonce"] = g.Nonce
		}
		if resp.IDToken, err = p.signJWT("JWT", id); err != nil {
			return nil, err
		}
	}
	if g.has("offline_access") {
		rt := randomToken()
		kept := *g
		kept.Expires = now.Add(refreshTTL).Unix()
		kept.RedirectURI, kept.RedirectGiven, kept.Nonce, kept.Challenge, kept.DPoPJKT = "", false, "", "", ""
		if err := p.sessions.saveRefresh(ctx, p.sign(rt), &kept); err != nil {
			return nil, err
		}
		resp.RefreshToken = rt
	}
	return resp, nil
}

func (p *Provider) signJWT(typ string, claims map[string]any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := p.signers[typ].Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

func (p *Provider) setNonce(w http.ResponseWriter) {
	if p.cfg.Nonce != nil {
		if n := p.cfg.Nonce(); n != "" {
			w.Header().Set("DPoP-Nonce", n)
		}
	}
}

// revoke is the revocation endpoint (RFC 7009): a refresh token of the
// client revokes its grant (every refresh token of it). Access tokens are
// self-contained JWTs that expire within minutes; revoking one is answered
// 200 like an unknown token (§2.2), and does nothing.
func (p *Provider) revoke(w http.ResponseWriter, r *http.Request) {
	form, oe := readForm(w, r)
	if oe != nil {
		p.writeError(w, oe)
		return
	}
	c, oe := p.authenticate(r, form)
	if oe != nil {
		p.writeError(w, oe)
		return
	}
	tok := form.Get("token")
	if tok == "" {
		p.writeError(w, badRequest("invalid_request", "token is missing"))
		return
	}
	if hint := form.Get("token_type_hint"); hint != "" && hint != "refresh_token" && hint != "access_token" {
		p.writeError(w, badRequest("unsupported_token_type", "token_type_hint is refresh_token or access_token"))
		return
	}
	g, _, err := p.sessions.findRefresh(r.Context(), p.sign(tok))
	switch {
	case errors.Is(err, errNotFound):
	case err != nil:
		p.writeError(w, &oauthError{status: http.StatusInternalServerError, Code: "server_error", Description: "the token could not be read"})
		return
	case g.ClientID != c.id:
		p.writeError(w, badRequest("unauthorized_client", "the token was issued to another client"))
		return
	default:
		if err := p.sessions.revokeGrant(r.Context(), g.ID); err != nil {
			p.writeError(w, &oauthError{status: http.StatusInternalServerError, Code: "server_error", Description: "the token could not be revoked"})
			return
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}
