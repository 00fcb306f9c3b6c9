package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// The e-mail from the OpenID Provider's UserInfo endpoint, when the ID
// token or the access token does not carry it (OpenID Connect Core §5.4:
// with the code flow, the claims of the email scope may be returned from
// UserInfo only). docs/openid-provider.md tells operators what goes where.

// userInfoEndpoint is one provider's UserInfo endpoint.
type userInfoEndpoint struct {
	provider string // the name in messages: the bound provider's name or the issuer
	url      string
	client   *http.Client // the provider's client: guarded for bound providers
	keys     oidc.KeySet  // verifies signed answers (application/jwt)
}

const (
	maxUserInfo     = 1 << 20
	userInfoTimeout = 10 * time.Second
	// learnedEmailTTL: how long an e-mail learned for a subject (at web
	// sign-in or from a UserInfo answer) stands in for DPoP-bound tokens
	// without one: a web session's lifetime.
	learnedEmailTTL = 12 * time.Hour
	maxLearned      = 10_000
)

// userInfoError is a UserInfo call that gave no usable e-mail. lasting: the
// answer will not change for this token (a refusal, a differing sub, an
// unverified e-mail), so it is remembered like a verified token; otherwise
// (unreachable, 5xx) the next request asks again.
type userInfoError struct {
	msg     string
	lasting bool
}

func (e *userInfoError) Error() string { return e.msg }

// fetch calls UserInfo with an access token (Bearer; RFC 6750 §2.1) and
// returns its claims.
func (u *userInfoEndpoint) fetch(ctx context.Context, accessToken string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), userInfoTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.url, nil)
	if err != nil {
		return nil, &userInfoError{msg: fmt.Sprintf("the UserInfo endpoint of %s is not a URL", u.provider), lasting: true}
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	req.Header.Set("Accept", "application/json, application/jwt")
	resp, err := u.client.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			err = ue.Unwrap()
		}
		return nil, &userInfoError{msg: fmt.Sprintf("the UserInfo endpoint of %s cannot be reached: %s", u.provider, RedactURLs(err.Error()))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxUserInfo+1))
	if err != nil {
		return nil, &userInfoError{msg: fmt.Sprintf("the UserInfo answer of %s broke off: %v", u.provider, err)}
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		why := resp.Header.Get("WWW-Authenticate")
		if why == "" {
			why = "no reason given"
		}
		return nil, &userInfoError{msg: fmt.Sprintf("the UserInfo endpoint of %s refused the token (HTTP %d: %s)", u.provider, resp.StatusCode, why), lasting: true}
	case resp.StatusCode != http.StatusOK:
		return nil, &userInfoError{msg: fmt.Sprintf("the UserInfo endpoint of %s answered HTTP %d", u.provider, resp.StatusCode)}
	case len(body) > maxUserInfo:
		return nil, &userInfoError{msg: fmt.Sprintf("the UserInfo answer of %s is larger than 1 MiB", u.provider), lasting: true}
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "application/jwt" {
		// A signed answer (OpenID Connect Core §5.3.2): the issuer's keys.
		payload, err := u.keys.VerifySignature(ctx, strings.TrimSpace(string(body)))
		if err != nil {
			return nil, &userInfoError{msg: fmt.Sprintf("the signed UserInfo answer of %s does not verify: %v", u.provider, err), lasting: true}
		}
		body = payload
	}
	var claims map[string]any
	if err := json.Unmarshal(body, &claims); err != nil {
		return nil, &userInfoError{msg: fmt.Sprintf("the UserInfo answer of %s is not a JSON object", u.provider), lasting: true}
	}
	return claims, nil
}

// userInfoEmail calls UserInfo for the subject sub and returns the e-mail
// under claim, with the rules of every path: UserInfo's sub must be sub
// (OpenID Connect Core §5.3.4), and an email_verified other than true refuses it.
func (u *userInfoEndpoint) email(ctx context.Context, accessToken, sub, claim string) (string, error) {
	if sub == "" {
		return "", &userInfoError{msg: "the token has no sub, so a UserInfo answer cannot be matched to it", lasting: true}
	}
	claims, err := u.fetch(ctx, accessToken)
	if err != nil {
		return "", err
	}
	if got, _ := claims["sub"].(string); got != sub {
		return "", &userInfoError{msg: fmt.Sprintf("the UserInfo answer of %s is about another subject (sub %q, not the token's %q)", u.provider, got, sub), lasting: true}
	}
	email, err := emailOf(claims, claim)
	if err != nil {
		return "", &userInfoError{msg: fmt.Sprintf("the UserInfo answer of %s %s", u.provider, err), lasting: true}
	}
	if email == "" {
		return "", &userInfoError{msg: fmt.Sprintf("neither the token nor the UserInfo answer of %s carries the %s claim", u.provider, claim), lasting: true}
	}
	return email, nil
}

// learnedEmails remembers, per issuer and subject, the e-mail a web
// sign-in or a UserInfo answer established, for DPoP-bound access tokens
// without one: this service cannot call UserInfo with those (RFC 9449 §7,
// docs/decisions.md).
type learnedEmails struct {
	mu sync.Mutex
	m  map[string]learnedEmail
}

type learnedEmail struct {
	email string
	until time.Time
}

func (l *learnedEmails) learn(iss, sub, email string, now time.Time) {
	if sub == "" || email == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil || len(l.m) >= maxLearned {
		l.m = map[string]learnedEmail{}
	}
	l.m[iss+"\x00"+sub] = learnedEmail{email: email, until: now.Add(learnedEmailTTL)}
}

func (l *learnedEmails) lookup(iss, sub string, now time.Time) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[iss+"\x00"+sub]
	if !ok || sub == "" {
		return ""
	}
	if !now.Before(e.until) {
		delete(l.m, iss+"\x00"+sub)
		return ""
	}
	return e.email
}

// emailFromProvider finds the e-mail of an access token that does not
// carry it: for a Bearer token from the issuer's UserInfo endpoint, for a
// DPoP-bound one from what a web sign-in or a Bearer token of the same
// subject established.
func (a *authenticator) emailFromProvider(ctx context.Context, provider, iss string, ui *userInfoEndpoint, uiErr error, raw, sub, jkt, claim string) (string, error) {
	now := a.s.cfg.Now()
	if jkt != "" {
		if email := a.learned.lookup(iss, sub, now); email != "" {
			return email, nil
		}
		return "", &userInfoError{lasting: false, msg: fmt.Sprintf("this DPoP-bound token carries no %s claim, and trustframe cannot ask the UserInfo endpoint of %s with it: "+
			"only the holder of the token's key can present it (RFC 9449 §7). Sign in to the web console once with this account (trustframe then knows its e-mail for 12 hours), "+
			"use a Bearer token, or have %s put %s into access tokens", claim, provider, provider, claim)}
	}
	if uiErr != nil {
		return "", &userInfoError{msg: fmt.Sprintf("the token has no %s claim, and the UserInfo endpoint of %s is unknown: %v", claim, provider, uiErr)}
	}
	if ui == nil {
		return "", &userInfoError{lasting: true, msg: fmt.Sprintf("the token has no %s claim, and %s names no UserInfo endpoint to ask", claim, provider)}
	}
	email, err := ui.email(ctx, raw, sub, claim)
	if err != nil {
		return "", err
	}
	a.learned.learn(iss, sub, email, now)
	return email, nil
}
