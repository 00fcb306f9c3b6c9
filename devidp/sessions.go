package devidp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// sessions keeps the grants behind codes and refresh tokens, by the
// tokens' signatures, and forgets each when it can no longer be used (a
// development provider may run for weeks).
//
// Codes are in memory, or in the CodeStore when several instances share the
// database. Refresh tokens are in memory, or in the RefreshTokenStore when
// one is set (the database is then the truth: a restart keeps them, and
// another instance sees a rotation or revocation at once).
//
// A used code or refresh token is kept inactive until it expires (and a
// grace after), so that a reuse is recognised as one and revokes the grant.
type sessions struct {
	now        func() time.Time
	codeTTL    time.Duration
	refreshTTL time.Duration

	mu        sync.Mutex
	codes     map[string]*entry // code signature -> grant
	refresh   map[string]*entry // refresh token signature -> grant
	refreshBy map[string]map[string]bool
	lastPrune time.Time

	persist   RefreshTokenStore
	codeStore CodeStore
}

type entry struct {
	g       *grant
	active  bool
	expires time.Time // when it is forgotten
}

// grace keeps an entry a while after its lifetime: a late reuse of a code
// or a refresh token is still recognised as a reuse, not as unknown.
const grace = 10 * time.Minute

// errNotFound: no code or refresh token with this signature is kept.
var errNotFound = errors.New("devidp: not found")

func newSessions(now func() time.Time, codeTTL, refreshTTL time.Duration) *sessions {
	return &sessions{now: now, codeTTL: codeTTL, refreshTTL: refreshTTL,
		codes: map[string]*entry{}, refresh: map[string]*entry{}, refreshBy: map[string]map[string]bool{}}
}

// put stores an entry and prunes now and then; the caller holds mu.
func (s *sessions) put(m map[string]*entry, key string, g *grant, ttl time.Duration) {
	now := s.now()
	m[key] = &entry{g: g, active: true, expires: now.Add(ttl + grace)}
	if now.Sub(s.lastPrune) > time.Minute {
		s.prune(now)
	}
}

// prune forgets what has expired; the caller holds mu.
func (s *sessions) prune(now time.Time) {
	s.lastPrune = now
	for k, e := range s.codes {
		if now.After(e.expires) {
			delete(s.codes, k)
		}
	}
	for sig, e := range s.refresh {
		if now.After(e.expires) {
			delete(s.refresh, sig)
			unindex(s.refreshBy, e.g.ID, sig)
		}
	}
}

// size is how many entries are kept, for tests.
func (s *sessions) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.codes) + len(s.refresh) + len(s.refreshBy)
}

// saveCode keeps a code's grant for the code's lifetime (and the grace).
func (s *sessions) saveCode(ctx context.Context, sig string, g *grant) error {
	if s.codeStore != nil {
		data, err := encodeGrant(g)
		if err != nil {
			return err
		}
		return s.codeStore.Save(ctx, keptCode, sig, data, s.now().Add(s.codeTTL+grace))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(s.codes, sig, g, s.codeTTL)
	return nil
}

// findCode is a code's grant and whether the code is unused; errNotFound
// when there is none.
func (s *sessions) findCode(ctx context.Context, sig string) (*grant, bool, error) {
	if s.codeStore != nil {
		data, active, err := s.codeStore.Find(ctx, keptCode, sig)
		if err != nil {
			return nil, false, errNotFound
		}
		g, err := decodeGrant(data)
		if err != nil {
			return nil, false, errNotFound
		}
		return g, active, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.codes[sig]
	if !ok {
		return nil, false, errNotFound
	}
	return e.g, e.active, nil
}

// claimCode marks a code used; false when it was used already (of two
// exchanges of one code, on any instances, one gets true).
func (s *sessions) claimCode(ctx context.Context, sig string) (bool, error) {
	if s.codeStore != nil {
		return s.codeStore.Invalidate(ctx, keptCode, sig)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.codes[sig]
	if !ok || !e.active {
		return false, nil
	}
	e.active = false
	return true, nil
}

// saveRefresh keeps a refresh token's grant.
func (s *sessions) saveRefresh(ctx context.Context, sig string, g *grant) error {
	if s.persist != nil {
		data, err := encodeGrant(g)
		if err != nil {
			return err
		}
		return s.persist.Save(ctx, sig, g.ID, data, s.now().Add(s.refreshTTL+grace))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(s.refresh, sig, g, s.refreshTTL)
	index(s.refreshBy, g.ID, sig)
	return nil
}

// findRefresh is a refresh token's grant and whether the token is active;
// errNotFound when there is none.
func (s *sessions) findRefresh(ctx context.Context, sig string) (*grant, bool, error) {
	if s.persist != nil {
		data, active, err := s.persist.Find(ctx, sig)
		if err != nil {
			return nil, false, errNotFound
		}
		g, err := decodeGrant(data)
		if err != nil {
			return nil, false, errNotFound
		}
		return g, active, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.refresh[sig]
	if !ok {
		return nil, false, errNotFound
	}
	return e.g, e.active, nil
}

// claimRefresh uses a refresh token: when it is active, it and every other
// refresh token of its grant become inactive (rotation) and it reports
// true; false when it was not active (a reuse).
func (s *sessions) claimRefresh(ctx context.Context, sig string) (bool, error) {
	if s.persist != nil {
		return s.persist.Use(ctx, sig)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.refresh[sig]
	if !ok || !e.active {
		return false, nil
	}
	s.deactivate(e.g.ID)
	return true, nil
}

// revokeGrant makes every refresh token of a grant inactive.
func (s *sessions) revokeGrant(ctx context.Context, grantID string) error {
	if s.persist != nil {
		return s.persist.Deactivate(ctx, grantID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deactivate(grantID)
	return nil
}

// deactivate: the caller holds mu.
func (s *sessions) deactivate(grantID string) {
	for sig := range s.refreshBy[grantID] {
		if e, ok := s.refresh[sig]; ok {
			e.active = false
		}
	}
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
