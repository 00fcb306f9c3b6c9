package anchor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/rebuild"
	"github.com/trustframe/trustframe/store"
)

// DirectoryStore is what the directory's trust anchor reads of the store:
// its subordinates (Active applications and servers of Active
// organisations with a federation entity ID), their organisations' signing
// keys and the role metadata policies they hold.
type DirectoryStore interface {
	FederationSubjectByEntityID(ctx context.Context, entityID string) (store.FederationSubject, error)
	FederationSubjects(ctx context.Context) ([]store.FederationSubject, error)
	FederationSigningKeys(ctx context.Context, orgID string) ([]json.RawMessage, error)
	OrganisationsWithSigningKeys(ctx context.Context) (map[string]bool, error)
	FederationPolicies(ctx context.Context, orgID string) ([]store.HeldPolicy, error)
	DirectoryVersion() int64 // changes with every write, to know when Listed is stale
}

// Directory is the directory as its participants' trust anchor
// (docs/design.md §13): its entity configuration, its statements about
// its subordinates, their list, and their resolution by the one resolver.
// Its subordinates are all leaves: it looks under no intermediate. It
// issues the trust marks of TrustMarks (docs/design.md §17; nil: none).
type Directory struct {
	Store      DirectoryStore
	TrustMarks directory.TrustMarkStore
	Keys       *federation.Keyring
	EntityID   string
	OrgName    string
	Resolver   // with the guarded client of issuer validation

	list  rebuild.Cache[Listing] // the subordinates, rebuilt in the background after a change
	marks markCache              // the trust marks last answered (markcache.go)
}

// Statement is what a subordinate statement says about a subject, before
// signing; the console's Federation tab shows it too.
type Statement struct {
	Subject store.FederationSubject
	Claims  map[string]any
	Policy  map[string]federation.Policy
}

// Statement is the subordinate statement about entityID. A subject that is
// not a subordinate is store.ErrNotFound; one whose statement cannot be
// made a *federation.StatementError naming the reason.
func (d *Directory) Statement(ctx context.Context, entityID string, now time.Time) (*Statement, error) {
	sub, err := d.Store.FederationSubjectByEntityID(ctx, entityID)
	if err != nil {
		return nil, err
	}
	keys, err := d.Store.FederationSigningKeys(ctx, sub.OrganisationID)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, &federation.StatementError{Reason: "the organisation has no Active key material with Use sig: there are no keys to put in the statement"}
	}
	held, err := d.Store.FederationPolicies(ctx, sub.OrganisationID)
	if err != nil {
		return nil, err
	}
	policies, err := federation.HeldPolicies(sub, held)
	if err != nil {
		return nil, err
	}
	// metadata_policy holds only entity types with at least one parameter
	// policy, and is left out when there is none (OpenID Federation 1.0,
	// Metadata Policy Structure: "one or more members" at each level).
	mp := map[string]any{}
	for t, p := range policies {
		if len(p) > 0 {
			mp[t] = p
		}
	}
	claims := map[string]any{
		"iss": d.EntityID, "sub": sub.EntityID, "iat": now.Unix(), "exp": now.Add(d.Keys.Lifetime()).Unix(),
		"jwks":     map[string]any{"keys": keys},
		"metadata": map[string]any{"federation_entity": map[string]any{"organization_name": sub.OrganisationName}},
		// The directory vouches for the subject as what it registered:
		// an application as a client, a server as a provider, and a
		// wallet type only when a role it holds has a policy for it
		// (docs/design.md §13). Other types' metadata is not resolved.
		"constraints": map[string]any{"allowed_entity_types": federation.AllowedTypes(sub.Kind, policies)},
	}
	if len(mp) > 0 {
		claims["metadata_policy"] = mp
	}
	return &Statement{Subject: sub, Claims: claims, Policy: policies}, nil
}

// EntityConfiguration is the directory's own statement, signed.
func (d *Directory) EntityConfiguration(ctx context.Context, now time.Time) (string, error) {
	jwks, err := d.Keys.Published(ctx, now)
	if err != nil {
		return "", err
	}
	base := strings.TrimRight(d.EntityID, "/")
	fe := map[string]any{
		"federation_fetch_endpoint":   base + "/federation/fetch",
		"federation_list_endpoint":    base + "/federation/list",
		"federation_resolve_endpoint": base + "/federation/resolve",
		// The trust marks it issues, their status and who holds them
		// (docs/design.md §17), and the keys it signed with before.
		"federation_trust_mark_endpoint":        base + "/federation/trust-mark",
		"federation_trust_mark_status_endpoint": base + "/federation/trust-mark-status",
		"federation_trust_mark_list_endpoint":   base + "/federation/trust-marked-entities",
		"federation_historical_keys_endpoint":   base + "/federation/historical-keys",
	}
	if d.OrgName != "" {
		fe["organization_name"] = d.OrgName
	}
	claims := map[string]any{
		"iss": d.EntityID, "sub": d.EntityID, "iat": now.Unix(), "exp": now.Add(d.Keys.Lifetime()).Unix(),
		"jwks": jwks, "metadata": map[string]any{"federation_entity": fe},
	}
	issuers, err := d.trustMarkIssuers(ctx)
	if err != nil {
		return "", err
	}
	if len(issuers) > 0 {
		claims["trust_mark_issuers"] = issuers
	}
	return d.Keys.Sign(ctx, "entity-statement+jwt", claims)
}

// HistoricalKeys is the directory's retired federation keys
// (federation.Keyring.HistoricalKeys) as a jwk-set+jwt signed with the
// current key (docs/design.md §17).
func (d *Directory) HistoricalKeys(ctx context.Context, now time.Time) (string, error) {
	keys, err := d.Keys.HistoricalKeys(ctx)
	if err != nil {
		return "", err
	}
	return d.Keys.Sign(ctx, "jwk-set+jwt", map[string]any{"iss": d.EntityID, "iat": now.Unix(), "keys": keys})
}

// Fetch answers a fetch request (q: sub, given once; parameters it does
// not use, iss among them, are ignored: OpenID Federation 1.0 §8.1.1): the
// statement about sub, signed. Errors are answered as Refusal says.
func (d *Directory) Fetch(ctx context.Context, q url.Values, now time.Time) (string, error) {
	sub, fe := fetchRequest(q, d.EntityID)
	if fe != nil {
		return "", fe
	}
	st, err := d.Statement(ctx, sub, now)
	if err != nil {
		return "", err
	}
	return d.Keys.Sign(ctx, "entity-statement+jwt", st.Claims)
}

// ResolveRequest answers a resolve request (q: sub, trust_anchor, and
// entity_type to keep): the resolve response, signed. Errors are answered
// as Refusal says.
func (d *Directory) ResolveRequest(ctx context.Context, q url.Values, now time.Time) (string, error) {
	sub, fe := resolveRequest(q, d.EntityID)
	if fe != nil {
		return "", fe
	}
	tok, _, err := d.Resolve(ctx, sub, q["entity_type"], now)
	return tok, err
}

// Resolve fetches the subject's entity configuration, verifies it with its
// organisation's keys, applies the statement's metadata, constraints and
// policy, and makes the resolve response: signed, and its metadata. A
// chain that does not hold is an *Error (invalid_trust_chain, or
// temporarily_unavailable past the fetch budget); a subject that is not
// listed store.ErrNotFound; one whose statement cannot be made a
// *federation.StatementError.
func (d *Directory) Resolve(ctx context.Context, sub string, types []string, now time.Time) (string, map[string]any, error) {
	return d.resolve(ctx, d, sub, types, now)
}

// Refusal is err as the federation error it is answered with: the
// resolver's *Error as it is; a subject that is not listed (or no signing
// key) 404 not_found; a statement that cannot be made 400
// invalid_subject. Any other error (the store's, the keys') is nil: a
// failure to log and answer 500.
func (d *Directory) Refusal(sub string, err error) *Error {
	var fe *Error
	var se *federation.StatementError
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.Is(err, store.ErrNotFound):
		return &Error{http.StatusNotFound, "not_found", "no subordinate " + sub + " in this federation"}
	case errors.As(err, &se):
		return &Error{http.StatusBadRequest, "invalid_subject", "no statement can be made about " + sub + ": " + se.Reason}
	}
	return nil
}

// The directory as the resolver sees it (trustAnchor).

func (d *Directory) entityID() string                 { return d.EntityID }
func (d *Directory) statementLifetime() time.Duration { return d.Keys.Lifetime() }
func (d *Directory) intermediates() []string          { return nil }

func (d *Directory) statementAbout(ctx context.Context, sub string, now time.Time, _ getFunc) (map[string]any, json.RawMessage, error) {
	st, err := d.Statement(ctx, sub, now)
	if err != nil {
		return nil, nil, err
	}
	keys, err := json.Marshal(st.Claims["jwks"])
	return st.Claims, keys, err
}

func (d *Directory) unknown(sub string) error {
	return fmt.Errorf("anchor: %s is not a subordinate: %w", sub, store.ErrNotFound)
}

func (d *Directory) configuration(ctx context.Context, now time.Time) (string, error) {
	return d.EntityConfiguration(ctx, now)
}

func (d *Directory) sign(ctx context.Context, typ string, claims map[string]any) (string, error) {
	return d.Keys.Sign(ctx, typ, claims)
}

// Listing is the directory's subordinates whose statement can be made,
// each with the entity types it is listed under.
type Listing struct {
	entries []listEntry
	all     []byte // the unfiltered answer
}

type listEntry struct {
	id    string
	types []string
}

// Answer is the list answer: the entity IDs of the subordinates of any of
// types (all of them when none is given) that keep holds (every one when
// keep is nil: Directory.ListKeep), as a JSON array.
func (l Listing) Answer(types []string, keep map[string]bool) []byte {
	if len(types) == 0 && keep == nil {
		return l.all
	}
	out := []string{}
	for _, e := range l.entries {
		if keep != nil && !keep[e.id] {
			continue
		}
		if len(types) == 0 {
			out = append(out, e.id)
			continue
		}
		for _, t := range types {
			if slices.Contains(e.types, t) {
				out = append(out, e.id)
				break
			}
		}
	}
	b, _ := json.Marshal(out)
	return append(b, '\n')
}

// Subordinates reads the subordinates whose statement can be made, with
// the entity types their merged policies give them. It reads the whole
// store: callers keep the answer until the store changes.
func (d *Directory) Subordinates(ctx context.Context) (Listing, error) {
	subs, err := d.Store.FederationSubjects(ctx)
	if err != nil {
		return Listing{}, err
	}
	withKeys, err := d.Store.OrganisationsWithSigningKeys(ctx)
	if err != nil {
		return Listing{}, err
	}
	held, err := d.Store.FederationPolicies(ctx, "")
	if err != nil {
		return Listing{}, err
	}
	byOrg := map[string][]store.HeldPolicy{}
	for _, p := range held {
		byOrg[p.OrganisationID] = append(byOrg[p.OrganisationID], p)
	}
	// Organisations share few combinations of roles: merge each once.
	type merged struct {
		types []string
		ok    bool
	}
	memo := map[string]merged{}
	entries := []listEntry{}
	for _, s := range subs {
		if !withKeys[s.OrganisationID] {
			continue
		}
		pols := byOrg[s.OrganisationID]
		var key strings.Builder
		key.WriteString(s.Kind)
		for _, p := range pols {
			if s.Roles == nil || slices.Contains(s.Roles, p.Role) {
				key.WriteString("|" + p.AuthorisationDomain + "/" + p.Role + "/" + p.EntityType)
			}
		}
		m, seen := memo[key.String()]
		if !seen {
			res, err := federation.HeldPolicies(s, pols)
			m.ok = err == nil
			m.types = federation.SubjectTypes(s.Kind)
			for t := range res {
				if !slices.Contains(m.types, t) {
					m.types = append(m.types, t)
				}
			}
			memo[key.String()] = m
		}
		if m.ok {
			entries = append(entries, listEntry{id: s.EntityID, types: m.types})
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].id < entries[j].id })
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.id
	}
	all, err := json.Marshal(ids)
	return Listing{entries: entries, all: append(all, '\n')}, err
}
