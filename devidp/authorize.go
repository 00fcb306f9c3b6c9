package devidp

import (
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// client is a client the provider knows.
type client struct {
	id       string
	secret   string // "" for a public client
	redirect string // the one registered redirect URI; "" for the CLI (loopback)
}

func (p *Provider) client(id string) *client {
	switch id {
	case WebClientID:
		return &client{id: WebClientID, secret: p.cfg.WebClientSecret, redirect: p.cfg.WebRedirectURL}
	case CLIClientID:
		return &client{id: CLIClientID}
	}
	return nil
}

// redirectAllowed: the web app's registered URI exactly; for the CLI any
// RFC 8252 loopback URI (any port and path).
func (c *client) redirectAllowed(u string) bool {
	if c.redirect != "" {
		return u == c.redirect
	}
	return IsLoopbackRedirect(u)
}

// b64 matches a base64url value of 43 characters: an S256 code challenge
// or a SHA-256 JWK thumbprint.
var b64 = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// carried are the authorization request parameters the sign-in form
// carries over to its POST.
var carried = []string{"response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method", "dpop_jkt", "response_mode"}

// authorize is the authorization endpoint (RFC 6749 §4.1.1, OpenID Connect
// Core §3.1.2): GET shows the sign-in form, POST (the form) signs in and
// redirects with a code. A request that cannot be returned to its client
// is refused on a page; any other refusal is redirected (§4.1.2.1).
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		refusePage(w, "invalid_request", "the request cannot be read")
		return
	}
	// The request is the query, or the form of a POST (the sign-in form,
	// which carries the request over; it may be posted to the URL of the
	// GET, whose query then adds nothing).
	q := r.URL.Query()
	if r.Method == http.MethodPost {
		for k, v := range q {
			if !r.PostForm.Has(k) {
				r.PostForm[k] = v
			}
		}
		q = r.PostForm
	}
	for _, k := range []string{"client_id", "redirect_uri"} {
		if len(q[k]) > 1 {
			refusePage(w, "invalid_request", k+" is given more than once")
			return
		}
	}
	c := p.client(q.Get("client_id"))
	if c == nil {
		refusePage(w, "invalid_client", "the client_id is not a client of this provider ("+WebClientID+", "+CLIClientID+")")
		return
	}
	redirect, given := q.Get("redirect_uri"), q.Has("redirect_uri")
	if !given {
		redirect = c.redirect
	}
	if redirect == "" || !c.redirectAllowed(redirect) {
		refusePage(w, "invalid_request", "the redirect_uri is not registered for "+c.id+" (the CLI may use a loopback http://127.0.0.1:<port>/… address)")
		return
	}
	state := q.Get("state")
	fail := func(code, description string) {
		p.log.Info("devidp: authorize refused", "client_id", c.id, "error", code, "description", description)
		p.redirect(w, redirect, url.Values{"error": {code}, "error_description": {description}}, state)
	}
	for k, v := range q {
		if len(v) > 1 {
			fail("invalid_request", k+" is given more than once")
			return
		}
	}
	switch {
	case !q.Has("response_type"):
		fail("invalid_request", "response_type is missing")
		return
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "only response_type=code is supported")
		return
	case q.Has("response_mode") && q.Get("response_mode") != "query":
		fail("invalid_request", "only response_mode=query is supported")
		return
	case q.Has("request"):
		fail("request_not_supported", "request objects are not supported")
		return
	case q.Has("request_uri"):
		fail("request_uri_not_supported", "request_uri is not supported")
		return
	case q.Get("code_challenge") == "":
		fail("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256")
		return
	case q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "code_challenge_method must be S256 (plain is not accepted)")
		return
	case !b64.MatchString(q.Get("code_challenge")):
		fail("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters)")
		return
	case q.Has("dpop_jkt") && !b64.MatchString(q.Get("dpop_jkt")):
		fail("invalid_request", "dpop_jkt must be a base64url SHA-256 JWK thumbprint (RFC 9449 §10)")
		return
	}
	scope, ok := parseScope(q.Get("scope"))
	if !ok {
		fail("invalid_scope", "the scopes are "+strings.Join(scopes, ", "))
		return
	}
	if slices.Contains(strings.Fields(q.Get("prompt")), "none") {
		fail("login_required", "the development identity provider keeps no sign-in: it always shows its form")
		return
	}
	page := SignInPage{Action: p.cfg.Issuer + "/authorize", Hidden: map[string]string{}, ClientID: c.id}
	for _, k := range carried {
		if v := q.Get(k); v != "" {
			page.Hidden[k] = v
		}
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead { // HEAD: GET's answer, no body
		page.Email = q.Get("login_hint")
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
	now := p.now()
	g := &grant{ID: randomToken(), ClientID: c.id, Email: strings.ToLower(email), Scope: scope, AuthTime: now.Unix(),
		Expires: now.Add(codeTTL).Unix(), RedirectURI: redirect, RedirectGiven: given, Nonce: q.Get("nonce"),
		Challenge: q.Get("code_challenge"), DPoPJKT: q.Get("dpop_jkt")}
	code := randomToken()
	if err := p.sessions.saveCode(r.Context(), p.sign(code), g); err != nil {
		p.log.Error("devidp: keep an authorization code", "err", err)
		fail("server_error", "the authorization code could not be kept")
		return
	}
	p.redirect(w, redirect, url.Values{"code": {code}}, state)
}

// redirect sends the authorization response (or error) to the client with
// state and the issuer (RFC 9207).
func (p *Provider) redirect(w http.ResponseWriter, to string, v url.Values, state string) {
	u, _ := url.Parse(to) // checked by redirectAllowed
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", p.cfg.Issuer)
	u.RawQuery = q.Encode()
	w.Header().Set("Location", u.String())
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusSeeOther)
}

// parseScope splits a scope parameter; false when it names a scope the
// provider does not grant.
func parseScope(s string) ([]string, bool) {
	var out []string
	for _, sc := range strings.Fields(s) {
		if !slices.Contains(scopes, sc) {
			return nil, false
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, true
}
