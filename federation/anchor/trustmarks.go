package anchor

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/directory"
)

// The directory as the issuer of its trust marks (docs/design.md §17):
// it issues a mark of each Active type it defines to the subordinates
// entitled to it now, records every mark it signs so that the status
// endpoint answers exactly, lists the entitled subordinates, and keeps in
// a resolve answer only the subject's marks it issued that are active.

// The media types (the JWT typ headers) of a trust mark and of a trust
// mark status response.
const (
	TrustMarkTyp       = "trust-mark+jwt"
	TrustMarkStatusTyp = "trust-mark-status-response+jwt"
)

const (
	defaultMarkLifetime = 24 * time.Hour
	reuseFractionOfLife = 10 // a repeat request within lifetime/10 may get the same mark
)

// TrustMarkStatusBodyLimit is the largest status request body read.
const TrustMarkStatusBodyLimit = 64 << 10

// The statuses a trust mark status response gives.
const (
	MarkActive  = "active"
	MarkRevoked = "revoked"
	MarkExpired = "expired"
	MarkInvalid = "invalid"
)

// activeMarkType is the Active trust mark type named typeURL; an unknown
// or Inactive one is a 404 not_found (the directory issues no mark of it).
func (d *Directory) activeMarkType(ctx context.Context, typeURL string) (directory.TrustMarkType, error) {
	if d.TrustMarks == nil {
		return directory.TrustMarkType{}, unknownMarkType(typeURL)
	}
	t, err := d.TrustMarks.TrustMarkTypeByURL(ctx, typeURL)
	if errors.Is(err, directory.ErrNotFound) || err == nil && t.Status != "Active" {
		return directory.TrustMarkType{}, unknownMarkType(typeURL)
	}
	return t, err
}

func unknownMarkType(typeURL string) *Error {
	return &Error{http.StatusNotFound, "not_found", "this directory issues no trust mark of type " + typeURL}
}

// activeMarkTypes are the Active types: those the directory issues.
func (d *Directory) activeMarkTypes(ctx context.Context) ([]directory.TrustMarkType, error) {
	if d.TrustMarks == nil {
		return nil, nil
	}
	all, err := d.TrustMarks.ListTrustMarkTypes(ctx)
	var out []directory.TrustMarkType
	for _, t := range all {
		if t.Status == "Active" {
			out = append(out, t)
		}
	}
	return out, err
}

// markLifetime is a type's Lifetime, 24 hours when it does not parse
// (the store checks it on every write).
func markLifetime(t directory.TrustMarkType) time.Duration {
	if d, err := time.ParseDuration(t.Lifetime); err == nil && d > 0 {
		return d
	}
	return defaultMarkLifetime
}

// onceParam is the value of a parameter given exactly once, else "".
func onceParam(q url.Values, name string) string {
	if len(q[name]) != 1 {
		return ""
	}
	return q[name][0]
}

// IssueTrustMark answers a trust mark request (q: trust_mark_type and
// sub, each given once): a trust-mark+jwt signed with the current
// federation key, whose exp is the type's lifetime from now or the end of
// the certification it rests on, whichever is first. Every mark signed is
// recorded; a repeat within a tenth of the lifetime answers the mark
// already issued while it is unrevoked and says what a new one would,
// from the cache of marks answered (markcache.go) while no write has
// committed since it was read.
// A subject that is unknown or not entitled, or a type that is unknown or
// Inactive, is a 404 not_found *Error.
func (d *Directory) IssueTrustMark(ctx context.Context, q url.Values, now time.Time) (string, error) {
	typeURL, sub := onceParam(q, "trust_mark_type"), onceParam(q, "sub")
	if typeURL == "" || sub == "" {
		return "", &Error{http.StatusBadRequest, "invalid_request", "give trust_mark_type and sub, each once"}
	}
	version, cache := d.markVersion(ctx)
	if cache {
		if tok, ok := d.marks.get(version, typeURL, sub, now); ok {
			return tok, nil
		}
	}
	t, err := d.activeMarkType(ctx, typeURL)
	if err != nil {
		return "", err
	}
	ents, err := d.TrustMarks.Entitled(ctx, t, sub, now)
	if err != nil && !errors.Is(err, directory.ErrNotFound) {
		return "", err
	}
	until, entitled := entitledUntil(ents, sub)
	if !entitled {
		return "", &Error{http.StatusNotFound, "not_found", sub + " is not a subordinate entitled to a trust mark of type " + typeURL}
	}
	iat := time.Unix(now.Unix(), 0).UTC()
	exp := iat.Add(markLifetime(t))
	if !until.IsZero() && until.Before(exp) {
		exp = time.Unix(until.Unix(), 0).UTC()
	}
	claims := map[string]any{"iss": d.EntityID, "sub": sub, "trust_mark_type": t.TrustMarkType, "iat": iat.Unix(), "exp": exp.Unix()}
	if t.LogoURI != "" {
		claims["logo_uri"] = t.LogoURI
	}
	if t.Ref != "" {
		claims["ref"] = t.Ref
	}
	remember := func(m directory.IssuedTrustMark) {
		if cache {
			current, _ := d.markVersion(ctx)
			d.marks.put(version, current, typeURL, sub, cachedMark{tok: m.JWT, at: now, exp: m.ExpiresAt,
				reuseUntil: m.IssuedAt.Add(markLifetime(t) / reuseFractionOfLife)})
		}
	}
	if m, ok, err := d.reusableMark(ctx, t, sub, claims, now); err != nil {
		return "", err
	} else if ok {
		remember(m)
		return m.JWT, nil
	}
	claims["jti"] = newJTI()
	tok, err := d.Keys.Sign(ctx, TrustMarkTyp, claims)
	if err != nil {
		return "", err
	}
	m := directory.IssuedTrustMark{JTI: claims["jti"].(string), TypeID: t.ID, TrustMarkType: t.TrustMarkType,
		Subject: sub, IssuedAt: iat, ExpiresAt: exp, JWT: tok}
	if err := d.TrustMarks.RecordTrustMark(ctx, m); err != nil {
		return "", err
	}
	remember(m)
	return tok, nil
}

// entitledUntil is when sub's entitlement ends (zero: with the type's
// lifetime only) and whether sub is entitled at all.
func entitledUntil(ents []directory.Entitlement, sub string) (time.Time, bool) {
	var until time.Time
	entitled := false
	for _, e := range ents {
		if e.Subject != sub {
			continue
		}
		if entitled && (until.IsZero() || !e.Until.IsZero() && e.Until.Before(until)) {
			continue // the entitlement that lasts longest decides
		}
		until, entitled = e.Until, true
	}
	return until, entitled
}

// reusableMark is the newest mark of the type already issued to sub when
// it may answer the request again: issued less than a tenth of the
// lifetime ago, unrevoked, unexpired, signed with the current key, and
// saying what a new mark would (claims, but for iat, exp and jti) without
// outliving it.
func (d *Directory) reusableMark(ctx context.Context, t directory.TrustMarkType, sub string, claims map[string]any, now time.Time) (directory.IssuedTrustMark, bool, error) {
	none := directory.IssuedTrustMark{}
	m, err := d.TrustMarks.LatestTrustMark(ctx, t.ID, sub)
	if errors.Is(err, directory.ErrNotFound) {
		return none, false, nil
	}
	if err != nil {
		return none, false, err
	}
	if m.RevokedAt != nil || !m.ExpiresAt.After(now) || m.ExpiresAt.Unix() > claims["exp"].(int64) ||
		now.Sub(m.IssuedAt) >= markLifetime(t)/reuseFractionOfLife || m.TrustMarkType != t.TrustMarkType {
		return none, false, nil
	}
	jws, err := jose.ParseSignedCompact(m.JWT, jwsAlgs)
	if err != nil || len(jws.Signatures) != 1 {
		return none, false, nil
	}
	kid, err := d.currentKid(ctx)
	if err != nil || jws.Signatures[0].Header.KeyID != kid {
		return none, false, err
	}
	var old map[string]any
	if json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &old) != nil {
		return none, false, nil
	}
	for _, c := range []string{"iss", "sub", "trust_mark_type", "logo_uri", "ref"} {
		if old[c] != claims[c] {
			return none, false, nil
		}
	}
	return m, true, nil
}

// currentKid is the kid of the federation key that signs now: the newest
// Active one, as the keyring's Sign picks it.
func (d *Directory) currentKid(ctx context.Context) (string, error) {
	keys, err := d.Keys.Keys(ctx)
	if err != nil {
		return "", err
	}
	for _, k := range keys {
		if k.Status == "Active" {
			return k.Kid, nil
		}
	}
	return "", errors.New("anchor: no Active federation key")
}

func newJTI() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return b64(b)
}

// verifyOwnMark checks that tok is a trust mark this directory signed: a
// single signature of one of its published federation keys (the current,
// the next, or one retired less than a statement lifetime ago), typ
// trust-mark+jwt, iss this directory, and a jti. Its claims, or false.
func verifyOwnMark(jws *jose.JSONWebSignature, keys jose.JSONWebKeySet, entityID string) (map[string]any, bool) {
	if len(jws.Signatures) != 1 {
		return nil, false
	}
	h := jws.Signatures[0].Header
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != TrustMarkTyp || h.KeyID == "" {
		return nil, false
	}
	for _, k := range keys.Key(h.KeyID) {
		payload, err := jws.Verify(k)
		if err != nil {
			continue
		}
		var claims map[string]any
		if json.Unmarshal(payload, &claims) != nil {
			return nil, false
		}
		if jti, _ := claims["jti"].(string); claims["iss"] != entityID || jti == "" {
			return nil, false
		}
		return claims, true
	}
	return nil, false
}

// markStatus is the status of a recorded mark at now: revoked when its
// entitlement lapsed before it expired (for good: an entitlement that
// comes back does not make it active again), or when the key that signed
// it was found compromised (an emergency rotation retired it: compromised
// maps its kid to that moment) before it expired; expired from its exp.
func markStatus(m directory.IssuedTrustMark, kid string, compromised map[string]time.Time, now time.Time) string {
	at, bad := compromised[kid]
	switch {
	case m.RevokedAt != nil && m.RevokedAt.Before(m.ExpiresAt):
		return MarkRevoked
	case bad && at.Before(m.ExpiresAt):
		return MarkRevoked
	case !now.Before(m.ExpiresAt):
		return MarkExpired
	}
	return MarkActive
}

// TrustMarkStatus answers a trust mark status request about tok (the
// trust_mark form parameter): a trust-mark-status-response+jwt signed with
// the current federation key, whose status is active, revoked, expired,
// or invalid for a mark not signed by one of the directory's published
// federation keys (or altered since). A request without a JWT is a 400
// invalid_request *Error; a mark signed here that was never recorded a
// 404 not_found — but invalid when its key was compromised, since anyone
// holding that key may have signed it.
func (d *Directory) TrustMarkStatus(ctx context.Context, tok string, now time.Time) (string, error) {
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", &Error{http.StatusBadRequest, "invalid_request", "give the trust mark as the trust_mark form parameter"}
	}
	jws, err := jose.ParseSignedCompact(tok, jwsAlgs)
	if err != nil {
		return "", &Error{http.StatusBadRequest, "invalid_request", "trust_mark is not a signed JWT"}
	}
	keys, compromised, err := d.Keys.PublishedAndCompromised(ctx, now)
	if err != nil {
		return "", err
	}
	status := MarkInvalid
	if claims, ours := verifyOwnMark(jws, keys, d.EntityID); ours {
		kid := jws.Signatures[0].Header.KeyID
		m, err := d.recordedMark(ctx, claims["jti"].(string))
		_, bad := compromised[kid]
		switch fe := (*Error)(nil); {
		case err != nil && bad && errors.As(err, &fe):
			// never recorded, signed with a key others may hold: invalid
		case err != nil:
			return "", err
		default:
			status = markStatus(m, kid, compromised, now)
		}
	}
	return d.Keys.Sign(ctx, TrustMarkStatusTyp, map[string]any{"iss": d.EntityID, "iat": now.Unix(), "trust_mark": tok, "status": status})
}

// recordedMark is the mark issued with jti; one never recorded is a 404
// not_found *Error.
func (d *Directory) recordedMark(ctx context.Context, jti string) (directory.IssuedTrustMark, error) {
	if d.TrustMarks == nil {
		return directory.IssuedTrustMark{}, errNoSuchMark(jti)
	}
	m, err := d.TrustMarks.TrustMarkByJTI(ctx, jti)
	if errors.Is(err, directory.ErrNotFound) {
		return m, errNoSuchMark(jti)
	}
	return m, err
}

func errNoSuchMark(jti string) *Error {
	return &Error{http.StatusNotFound, "not_found", fmt.Sprintf("this directory has no record of a trust mark with jti %q", jti)}
}

// TrustMarkedEntities answers a trust marked entities request (q:
// trust_mark_type, and sub to ask about one subject): the entity IDs
// entitled now to a mark of the type, sorted. Without trust_mark_type it
// is a 400 invalid_request *Error; an unknown or Inactive type 404
// not_found.
func (d *Directory) TrustMarkedEntities(ctx context.Context, q url.Values, now time.Time) ([]string, error) {
	typeURL := onceParam(q, "trust_mark_type")
	if typeURL == "" {
		return nil, &Error{http.StatusBadRequest, "invalid_request", "give trust_mark_type once"}
	}
	t, err := d.activeMarkType(ctx, typeURL)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	if err := d.addEntitled(ctx, set, t, q.Get("sub"), now); err != nil {
		return nil, err
	}
	return sortedKeys(set), nil
}

func (d *Directory) addEntitled(ctx context.Context, set map[string]bool, t directory.TrustMarkType, sub string, now time.Time) error {
	ents, err := d.TrustMarks.Entitled(ctx, t, sub, now)
	if err != nil && !errors.Is(err, directory.ErrNotFound) {
		return err
	}
	for _, e := range ents {
		if sub == "" || e.Subject == sub {
			set[e.Subject] = true
		}
	}
	return nil
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ListKeep reads the filters of a list request that are not entity types
// (OpenID Federation 1.0, Subordinate Listing Request): intermediate=true
// keeps nothing (every subordinate here is a leaf); trust_marked=true
// keeps the subordinates entitled now to a mark of an Active type, and
// trust_mark_type (with or without it) those entitled to a mark of that
// type (none for a type the directory does not issue). nil keeps every
// subordinate.
func (d *Directory) ListKeep(ctx context.Context, q url.Values, now time.Time) (map[string]bool, error) {
	if q.Get("intermediate") == "true" {
		return map[string]bool{}, nil
	}
	typeURL := q.Get("trust_mark_type")
	if typeURL == "" && q.Get("trust_marked") != "true" {
		return nil, nil
	}
	var types []directory.TrustMarkType
	if typeURL != "" {
		t, err := d.activeMarkType(ctx, typeURL)
		if fe := (*Error)(nil); errors.As(err, &fe) {
			return map[string]bool{}, nil
		} else if err != nil {
			return nil, err
		}
		types = append(types, t)
	} else {
		var err error
		if types, err = d.activeMarkTypes(ctx); err != nil {
			return nil, err
		}
	}
	keep := map[string]bool{}
	for _, t := range types {
		if err := d.addEntitled(ctx, keep, t, "", now); err != nil {
			return nil, err
		}
	}
	return keep, nil
}

// trustMarkIssuers is the entity configuration's trust_mark_issuers: the
// directory for every Active type (nil when there is none).
func (d *Directory) trustMarkIssuers(ctx context.Context) (map[string][]string, error) {
	types, err := d.activeMarkTypes(ctx)
	if err != nil || len(types) == 0 {
		return nil, err
	}
	out := map[string][]string{}
	for _, t := range types {
		out[t.TrustMarkType] = []string{d.EntityID}
	}
	return out, nil
}

// activeTrustMarks keeps of the trust_marks of sub's entity configuration
// (claims) those this directory issued to sub that are active now, with
// the earliest exp among them (0 when none is kept). Marks of other
// issuers, of another subject, altered, revoked, expired or never
// recorded are left out (OpenID Federation 1.0, Resolve Response).
func (d *Directory) activeTrustMarks(ctx context.Context, sub string, claims map[string]any, now time.Time) ([]any, int64, error) {
	marks := asList(claims["trust_marks"])
	if len(marks) == 0 || d.TrustMarks == nil {
		return nil, 0, nil
	}
	keys, compromised, err := d.Keys.PublishedAndCompromised(ctx, now)
	if err != nil {
		return nil, 0, err
	}
	var kept []any
	var exp int64
	for _, x := range marks {
		obj := asMap(x)
		typ, _ := obj["trust_mark_type"].(string)
		tok, _ := obj["trust_mark"].(string)
		jws, err := jose.ParseSignedCompact(tok, jwsAlgs)
		if err != nil {
			continue
		}
		mc, ours := verifyOwnMark(jws, keys, d.EntityID)
		if !ours || mc["sub"] != sub || mc["trust_mark_type"] != typ {
			continue
		}
		m, err := d.recordedMark(ctx, mc["jti"].(string))
		if fe := (*Error)(nil); errors.As(err, &fe) {
			continue
		} else if err != nil {
			return nil, 0, err
		}
		if markStatus(m, jws.Signatures[0].Header.KeyID, compromised, now) != MarkActive {
			continue
		}
		kept = append(kept, map[string]any{"trust_mark_type": typ, "trust_mark": tok})
		if e := m.ExpiresAt.Unix(); exp == 0 || e < exp {
			exp = e
		}
	}
	return kept, exp, nil
}

// WriteTrustMarkJWT writes a trust mark or a status response: never
// cached, so that a revocation shows at once.
func WriteTrustMarkJWT(w http.ResponseWriter, typ, tok string) {
	w.Header().Set("Content-Type", "application/"+typ)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(tok))
}
