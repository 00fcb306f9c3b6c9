package devidp

import (
	"context"
	"sync"
	"time"

	"github.com/ory/fosite"
)

// sessions keeps what the code flow and the tokens leave behind (codes,
// PKCE and OpenID Connect requests, access and refresh token sessions) and
// forgets each when it can no longer be used. fosite's MemoryStore keeps
// them for ever, which a development provider left running for weeks
// should not.
//
// The semantics are those of fosite's MemoryStore: a used code is
// invalidated (kept for reuse detection), a revoked refresh token is
// inactive, revoking by request ID reaches the request's tokens.
type sessions struct {
	now        func() time.Time
	codeTTL    time.Duration // codes, PKCE and OpenID Connect requests
	accessTTL  time.Duration
	refreshTTL time.Duration

	mu        sync.Mutex
	codes     map[string]*entry // authorize code -> request
	pkce      map[string]*entry
	oidc      map[string]*entry
	access    map[string]*entry // token signature -> request
	refresh   map[string]*entry
	accessBy  map[string]map[string]bool // request ID -> signatures
	refreshBy map[string]map[string]bool
	lastPrune time.Time

	// persist, when set, keeps refresh token sessions across restarts;
	// decode turns a kept one back into a request.
	persist RefreshTokenStore
	decode  func(context.Context, []byte) (fosite.Requester, error)
	// codeStore, when set, keeps codes with their PKCE and OpenID Connect
	// requests instead of the maps, for every instance (docs/design.md
	// §14); codeSig is a code's signature.
	codeStore CodeStore
	codeSig   func(code string) string
}

type entry struct {
	req     fosite.Requester
	active  bool
	expires time.Time
}

// grace keeps an entry a while after its lifetime: a late reuse of a code
// or a refresh token is still recognised as a reuse, not as unknown.
const grace = 10 * time.Minute

func newSessions(now func() time.Time, codeTTL, accessTTL, refreshTTL time.Duration) *sessions {
	return &sessions{now: now, codeTTL: codeTTL, accessTTL: accessTTL, refreshTTL: refreshTTL,
		codes: map[string]*entry{}, pkce: map[string]*entry{}, oidc: map[string]*entry{},
		access: map[string]*entry{}, refresh: map[string]*entry{},
		accessBy: map[string]map[string]bool{}, refreshBy: map[string]map[string]bool{}}
}

// put stores an entry and prunes now and then; the caller holds mu.
func (s *sessions) put(m map[string]*entry, key string, req fosite.Requester, ttl time.Duration) {
	now := s.now()
	m[key] = &entry{req: req, active: true, expires: now.Add(ttl + grace)}
	if now.Sub(s.lastPrune) > time.Minute {
		s.prune(now)
	}
}

// prune forgets what has expired; the caller holds mu.
func (s *sessions) prune(now time.Time) {
	s.lastPrune = now
	for _, m := range []map[string]*entry{s.codes, s.pkce, s.oidc} {
		for k, e := range m {
			if now.After(e.expires) {
				delete(m, k)
			}
		}
	}
	for _, kind := range []struct {
		m  map[string]*entry
		by map[string]map[string]bool
	}{{s.access, s.accessBy}, {s.refresh, s.refreshBy}} {
		for sig, e := range kind.m {
			if now.After(e.expires) {
				delete(kind.m, sig)
				id := e.req.GetID()
				delete(kind.by[id], sig)
				if len(kind.by[id]) == 0 {
					delete(kind.by, id)
				}
			}
		}
	}
}

// size is how many entries are kept, for tests.
func (s *sessions) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.codes) + len(s.pkce) + len(s.oidc) + len(s.access) + len(s.refresh) + len(s.accessBy) + len(s.refreshBy)
}

func (s *sessions) get(m map[string]*entry, key string) (*entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := m[key]
	if !ok {
		return nil, fosite.ErrNotFound
	}
	return e, nil
}

// keep stores an entry under mu (put, for the maps without an index).
func (s *sessions) keep(m map[string]*entry, key string, req fosite.Requester, ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(m, key, req, ttl)
}

// request is the request of an entry, active or not.
func (s *sessions) request(m map[string]*entry, key string) (fosite.Requester, error) {
	e, err := s.get(m, key)
	if err != nil {
		return nil, err
	}
	return e.req, nil
}

func (s *sessions) del(m map[string]*entry, key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(m, key)
}

// Authorize codes (oauth2.AuthorizeCodeStorage).

func (s *sessions) CreateAuthorizeCodeSession(ctx context.Context, code string, req fosite.Requester) error {
	if s.codeStore != nil {
		return s.saveCode(ctx, keptCode, code, req)
	}
	s.keep(s.codes, code, req, s.codeTTL)
	return nil
}

func (s *sessions) GetAuthorizeCodeSession(ctx context.Context, code string, _ fosite.Session) (fosite.Requester, error) {
	var req fosite.Requester
	var active bool
	if s.codeStore != nil {
		var err error
		if req, active, err = s.findCode(ctx, keptCode, code); err != nil {
			return nil, err
		}
	} else {
		e, err := s.get(s.codes, code)
		if err != nil {
			return nil, err
		}
		req, active = e.req, e.active
	}
	if !active {
		return req, fosite.ErrInvalidatedAuthorizeCode
	}
	return req, nil
}

func (s *sessions) InvalidateAuthorizeCodeSession(ctx context.Context, code string) error {
	if s.codeStore != nil {
		used, err := s.codeStore.Invalidate(ctx, keptCode, code)
		if err != nil {
			return err
		}
		if !used {
			return errCodeTaken
		}
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.codes[code]
	if !ok {
		return fosite.ErrNotFound
	}
	e.active = false
	return nil
}

// PKCE requests (pkce.PKCERequestStorage).

func (s *sessions) CreatePKCERequestSession(ctx context.Context, code string, req fosite.Requester) error {
	if s.codeStore != nil {
		return s.saveCode(ctx, keptPKCE, code, req)
	}
	s.keep(s.pkce, code, req, s.codeTTL)
	return nil
}

func (s *sessions) GetPKCERequestSession(ctx context.Context, code string, _ fosite.Session) (fosite.Requester, error) {
	if s.codeStore != nil {
		req, _, err := s.findCode(ctx, keptPKCE, code)
		return req, err
	}
	return s.request(s.pkce, code)
}

// DeletePKCERequestSession is where a kept code is claimed: fosite deletes
// the PKCE request before it makes any token, so of two exchanges of one
// code (on any instances) only the one that deletes it goes on.
func (s *sessions) DeletePKCERequestSession(ctx context.Context, code string) error {
	if s.codeStore != nil {
		deleted, err := s.codeStore.Delete(ctx, keptPKCE, code)
		if err != nil {
			return err
		}
		if !deleted {
			return errCodeTaken
		}
		return nil
	}
	s.del(s.pkce, code)
	return nil
}

// OpenID Connect requests (openid.OpenIDConnectRequestStorage). fosite
// names them by the code itself; a kept one is under the code's signature.

func (s *sessions) CreateOpenIDConnectSession(ctx context.Context, code string, req fosite.Requester) error {
	if s.codeStore != nil {
		return s.saveCode(ctx, keptOIDC, s.codeSig(code), req)
	}
	s.keep(s.oidc, code, req, s.codeTTL)
	return nil
}

func (s *sessions) GetOpenIDConnectSession(ctx context.Context, code string, _ fosite.Requester) (fosite.Requester, error) {
	if s.codeStore != nil {
		req, _, err := s.findCode(ctx, keptOIDC, s.codeSig(code))
		return req, err
	}
	return s.request(s.oidc, code)
}

func (s *sessions) DeleteOpenIDConnectSession(ctx context.Context, code string) error {
	if s.codeStore != nil {
		_, err := s.codeStore.Delete(ctx, keptOIDC, s.codeSig(code))
		return err
	}
	s.del(s.oidc, code)
	return nil
}

// saveCode keeps a request made with a code for the code's lifetime (and
// the grace).
func (s *sessions) saveCode(ctx context.Context, kind, signature string, req fosite.Requester) error {
	data, err := encodeRequest(req)
	if err != nil {
		return err
	}
	return s.codeStore.Save(ctx, kind, signature, data, s.now().Add(s.codeTTL+grace))
}

// findCode is a kept request and whether it is active; fosite.ErrNotFound
// when there is none.
func (s *sessions) findCode(ctx context.Context, kind, signature string) (fosite.Requester, bool, error) {
	data, active, err := s.codeStore.Find(ctx, kind, signature)
	if err != nil {
		return nil, false, fosite.ErrNotFound.WithDebug(err.Error())
	}
	req, err := s.decode(ctx, data)
	if err != nil {
		return nil, false, fosite.ErrNotFound.WithDebug(err.Error())
	}
	return req, active, nil
}

// Access tokens (oauth2.AccessTokenStorage).

func (s *sessions) CreateAccessTokenSession(_ context.Context, sig string, req fosite.Requester) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(s.access, sig, req, s.accessTTL)
	index(s.accessBy, req.GetID(), sig)
	return nil
}

func (s *sessions) GetAccessTokenSession(_ context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	return s.request(s.access, sig)
}

func (s *sessions) DeleteAccessTokenSession(_ context.Context, sig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.access[sig]; ok {
		unindex(s.accessBy, e.req.GetID(), sig)
		delete(s.access, sig)
	}
	return nil
}

// Refresh tokens (oauth2.RefreshTokenStorage).

func (s *sessions) CreateRefreshTokenSession(ctx context.Context, sig, _ string, req fosite.Requester) error {
	if s.persist != nil {
		data, err := encodeRequest(req)
		if err != nil {
			return err
		}
		if err := s.persist.Save(ctx, sig, req.GetID(), data, s.now().Add(s.refreshTTL+grace)); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(s.refresh, sig, req, s.refreshTTL)
	index(s.refreshBy, req.GetID(), sig)
	return nil
}

func (s *sessions) GetRefreshTokenSession(ctx context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	// With several instances on the database (codes kept there too), a
	// kept one is read where it is kept: another instance may have rotated
	// or revoked it. Alone, this instance's memory is the truth, and the
	// database has what it forgot in a restart.
	var e *entry
	var err error
	if s.persist != nil && s.codeStore != nil {
		e, err = s.loadRefresh(ctx, sig)
	} else {
		e, err = s.get(s.refresh, sig)
		if err != nil && s.persist != nil {
			e, err = s.loadRefresh(ctx, sig)
		}
	}
	if err != nil {
		return nil, err
	}
	if !e.active {
		return e.req, fosite.ErrInactiveToken
	}
	return e.req, nil
}

// loadRefresh reads a kept refresh token session into memory (where the
// revocations by request ID find it), after a restart or from another
// instance.
func (s *sessions) loadRefresh(ctx context.Context, sig string) (*entry, error) {
	data, active, err := s.persist.Find(ctx, sig)
	if err != nil {
		return nil, fosite.ErrNotFound
	}
	req, err := s.decode(ctx, data)
	if err != nil {
		return nil, fosite.ErrNotFound.WithDebug(err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(s.refresh, sig, req, s.refreshTTL)
	index(s.refreshBy, req.GetID(), sig)
	e := s.refresh[sig]
	e.active = active
	return e, nil
}

func (s *sessions) DeleteRefreshTokenSession(ctx context.Context, sig string) error {
	if s.persist != nil {
		if err := s.persist.Delete(ctx, sig); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.refresh[sig]; ok {
		unindex(s.refreshBy, e.req.GetID(), sig)
		delete(s.refresh, sig)
	}
	return nil
}

// Revocation and rotation (oauth2.TokenRevocationStorage).

// RevokeRefreshToken makes the request's refresh tokens inactive: kept
// until they expire, so that a reuse is recognised.
func (s *sessions) RevokeRefreshToken(ctx context.Context, requestID string) error {
	if s.persist != nil {
		if err := s.persist.Deactivate(ctx, requestID); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for sig := range s.refreshBy[requestID] {
		if e, ok := s.refresh[sig]; ok {
			e.active = false
		}
	}
	return nil
}

// RevokeAccessToken forgets the request's access token sessions.
func (s *sessions) RevokeAccessToken(_ context.Context, requestID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sig := range s.accessBy[requestID] {
		delete(s.access, sig)
	}
	delete(s.accessBy, requestID)
	return nil
}

// RotateRefreshToken retires the request's tokens when a refresh token is
// used, as fosite's MemoryStore does.
func (s *sessions) RotateRefreshToken(ctx context.Context, requestID, _ string) error {
	if err := s.RevokeRefreshToken(ctx, requestID); err != nil {
		return err
	}
	return s.RevokeAccessToken(ctx, requestID)
}

func index(by map[string]map[string]bool, id, sig string) {
	if by[id] == nil {
		by[id] = map[string]bool{}
	}
	by[id][sig] = true
}

func unindex(by map[string]map[string]bool, id, sig string) {
	delete(by[id], sig)
	if len(by[id]) == 0 {
		delete(by, id)
	}
}
