package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/federation/anchor"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Federation serves the directory as its participants' OpenID Federation
// trust anchor (docs/design.md §13): its entity configuration and the
// fetch, list and resolve endpoints. Every answer is a signed statement or
// a federation JSON error; internal failures are logged, never shown.
type Federation struct {
	*Base
	Store    *store.DB
	Org      *Org // the Federation tab loads organisations as the directory does
	Keys     *federation.Keyring
	EntityID string
	OrgName  string
	Client   *http.Client // the guarded client of issuer validation
	Now      func() time.Time

	list    rebuilt[fedList]  // the subordinates, rebuilt in the background after a change
	fetches anchor.FetchGuard // participants' entity configurations, fetched within a budget
}

// subjectTypes are the entity types a subordinate is listed under.
func subjectTypes(kind string) []string {
	if kind == "Application" {
		return []string{"openid_relying_party", "oauth_client"}
	}
	return []string{"openid_provider", "oauth_authorization_server"}
}

var protocolTypes = []string{"openid_relying_party", "oauth_client", "openid_provider", "oauth_authorization_server"}

// statementError is a statement that cannot be made: 400 invalid_subject.
type statementError struct{ reason string }

func (e *statementError) Error() string { return e.reason }

// mergedPolicies merges the held policies that apply to a subject, per
// entity type, in a fixed order (domain, role). An application's policies
// are those of its own roles; a server's those of every Federation role its
// organisation holds (docs/decisions.md).
func mergedPolicies(sub store.FederationSubject, held []store.HeldPolicy) (map[string]federation.Policy, error) {
	out := map[string]federation.Policy{}
	from := map[string][]string{} // entity type → roles merged so far
	for _, p := range held {
		if sub.Roles != nil && !contains(sub.Roles, p.Role) {
			continue
		}
		// The protocol types of the other kind do not apply (an RP policy
		// does not shape a server); wallet types apply to both.
		if contains(protocolTypes, p.EntityType) && !contains(subjectTypes(sub.Kind), p.EntityType) {
			continue
		}
		pol, err := federation.ParsePolicy(p.Policy)
		if err != nil {
			return nil, &statementError{fmt.Sprintf("the policy of role %s/%s for %s is not a metadata policy", p.AuthorisationDomain, p.Role, p.EntityType)}
		}
		role := p.AuthorisationDomain + "/" + p.Role
		cur, ok := out[p.EntityType]
		if !ok {
			out[p.EntityType], from[p.EntityType] = pol, []string{role}
			continue
		}
		merged, err := federation.MergePolicies(cur, pol)
		if err != nil {
			return nil, &statementError{fmt.Sprintf("the %s policies of roles %s and %s cannot be merged: %v",
				p.EntityType, strings.Join(from[p.EntityType], ", "), role, err)}
		}
		out[p.EntityType], from[p.EntityType] = merged, append(from[p.EntityType], role)
	}
	return out, nil
}

// allowedTypes are the entity types the directory vouches for in a
// subject of kind: its protocol types, and the wallet types its roles'
// policies name (federation_entity is always allowed, and never named).
// They are []any, as the claim reads once decoded (ParseConstraints).
func allowedTypes(kind string, policies map[string]federation.Policy) []any {
	types := slices.Clone(subjectTypes(kind))
	for t := range policies {
		if !contains(protocolTypes, t) && t != "federation_entity" && !contains(types, t) {
			types = append(types, t)
		}
	}
	sort.Strings(types)
	out := make([]any, len(types))
	for i, t := range types {
		out[i] = t
	}
	return out
}

// Statement is what a subordinate statement says about a subject, before
// signing; the Federation tab shows it too.
type Statement struct {
	Subject store.FederationSubject
	Claims  map[string]any
	Policy  map[string]federation.Policy
}

// StatementFor builds the subordinate statement about entityID. A subject
// that is not a subordinate is store.ErrNotFound; one whose statement
// cannot be made a *statementError naming the reason.
func (h *Federation) StatementFor(ctx context.Context, entityID string, now time.Time) (*Statement, error) {
	sub, err := h.Store.FederationSubjectByEntityID(ctx, entityID)
	if err != nil {
		return nil, err
	}
	return h.statement(ctx, sub, now)
}

func (h *Federation) statement(ctx context.Context, sub store.FederationSubject, now time.Time) (*Statement, error) {
	keys, err := h.Store.FederationSigningKeys(ctx, sub.OrganisationID)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, &statementError{"the organisation has no Active key material with Use sig: there are no keys to put in the statement"}
	}
	held, err := h.Store.FederationPolicies(ctx, sub.OrganisationID)
	if err != nil {
		return nil, err
	}
	policies, err := mergedPolicies(sub, held)
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
		"iss": h.EntityID, "sub": sub.EntityID, "iat": now.Unix(), "exp": now.Add(h.Keys.Lifetime()).Unix(),
		"jwks":     map[string]any{"keys": keys},
		"metadata": map[string]any{"federation_entity": map[string]any{"organization_name": sub.OrganisationName}},
		// The directory vouches for the subject as what it registered:
		// an application as a client, a server as a provider, and a
		// wallet type only when a role it holds has a policy for it
		// (docs/design.md §13). Other types' metadata is not resolved.
		"constraints": map[string]any{"allowed_entity_types": allowedTypes(sub.Kind, policies)},
	}
	if len(mp) > 0 {
		claims["metadata_policy"] = mp
	}
	return &Statement{Subject: sub, Claims: claims, Policy: policies}, nil
}

// fedFail answers a failure: store.ErrNotFound is 404 not_found, a
// statementError 400 invalid_subject, anything else a logged 500 with a
// fixed message.
func (h *Federation) fedFail(w http.ResponseWriter, r *http.Request, sub string, err error) {
	var se *statementError
	switch {
	case errors.Is(err, store.ErrNotFound):
		anchor.WriteError(w, CodeNotFound.Status, CodeNotFound.Name, "no subordinate "+sub+" in this federation")
	case errors.As(err, &se):
		anchor.WriteError(w, http.StatusBadRequest, "invalid_subject", "no statement can be made about "+sub+": "+se.reason)
	default:
		LoggerFrom(r.Context()).Error("federation", "path", r.URL.Path, "sub", sub, "err", err)
		anchor.WriteError(w, http.StatusInternalServerError, "server_error", "the statement could not be made; the failure is logged")
	}
}

// EntityConfiguration answers GET /.well-known/openid-federation.
func (h *Federation) EntityConfiguration(w http.ResponseWriter, r *http.Request) {
	tok, err := h.entityConfiguration(r.Context(), h.Now())
	if err != nil {
		h.fedFail(w, r, h.EntityID, err)
		return
	}
	anchor.WriteJWT(w, "entity-statement+jwt", tok, h.Keys.Lifetime())
}

func (h *Federation) entityConfiguration(ctx context.Context, now time.Time) (string, error) {
	jwks, err := h.Keys.Published(ctx, now)
	if err != nil {
		return "", err
	}
	base := strings.TrimRight(h.EntityID, "/")
	fe := map[string]any{
		"federation_fetch_endpoint":   base + "/federation/fetch",
		"federation_list_endpoint":    base + "/federation/list",
		"federation_resolve_endpoint": base + "/federation/resolve",
	}
	if h.OrgName != "" {
		fe["organization_name"] = h.OrgName
	}
	return h.Keys.Sign(ctx, "entity-statement+jwt", map[string]any{
		"iss": h.EntityID, "sub": h.EntityID, "iat": now.Unix(), "exp": now.Add(h.Keys.Lifetime()).Unix(),
		"jwks": jwks, "metadata": map[string]any{"federation_entity": fe},
	})
}

// Fetch answers GET /federation/fetch?sub=: parameters it does not use are
// ignored (OpenID Federation 1.0 §8.1.1), iss among them.
func (h *Federation) Fetch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sub := q.Get("sub")
	if sub == "" || len(q["sub"]) > 1 {
		// Once: of two, which one was meant is not ours to guess (the
		// standalone anchor answers the same).
		anchor.WriteError(w, http.StatusBadRequest, "invalid_request", "give sub once")
		return
	}
	if sub == h.EntityID {
		anchor.WriteError(w, http.StatusBadRequest, "invalid_request", "the anchor's own statement is at /.well-known/openid-federation")
		return
	}
	now := h.Now()
	st, err := h.StatementFor(r.Context(), sub, now)
	if err != nil {
		h.fedFail(w, r, sub, err)
		return
	}
	tok, err := h.Keys.Sign(r.Context(), "entity-statement+jwt", st.Claims)
	if err != nil {
		h.fedFail(w, r, sub, err)
		return
	}
	anchor.WriteJWT(w, "entity-statement+jwt", tok, h.Keys.Lifetime())
}

// List answers GET /federation/list[?entity_type=]: the subordinates whose
// statement can be made, of any of the given entity types. The whole list
// is built once per change of the store (at most a minute old, for changes
// made by another process), in the background while the previous list is
// served (rebuilt.go), and filtered per request.
func (h *Federation) List(w http.ResponseWriter, r *http.Request) {
	// Filters this directory does not support are refused rather than
	// ignored (OpenID Federation 1.0, Subordinate Listing Request).
	if anchor.UnsupportedListFilter(w, r.URL.Query()) {
		return
	}
	v, err := h.list.get(r.Context(), h.Store.DirectoryVersion(), h.buildList)
	if err != nil {
		h.fedFail(w, r, "", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	types := r.URL.Query()["entity_type"]
	if len(types) == 0 {
		_, _ = w.Write(v.val.all)
		return
	}
	out := []string{}
	for _, e := range v.val.entries {
		match := len(types) == 0
		for _, t := range types {
			match = match || contains(e.types, t)
		}
		if match {
			out = append(out, e.id)
		}
	}
	_ = json.NewEncoder(w).Encode(out)
}

// fedList is the built list of subordinates, and its unfiltered answer.
type fedList struct {
	entries []listEntry
	all     []byte
}

type listEntry struct {
	id    string
	types []string
}

// buildList reads the subordinates whose statement can be made, with the
// entity types their merged policies give them.
func (h *Federation) buildList(ctx context.Context) (fedList, error) {
	subs, err := h.Store.FederationSubjects(ctx)
	if err != nil {
		return fedList{}, err
	}
	withKeys, err := h.Store.OrganisationsWithSigningKeys(ctx)
	if err != nil {
		return fedList{}, err
	}
	held, err := h.Store.FederationPolicies(ctx, "")
	if err != nil {
		return fedList{}, err
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
			if s.Roles == nil || contains(s.Roles, p.Role) {
				key.WriteString("|" + p.AuthorisationDomain + "/" + p.Role + "/" + p.EntityType)
			}
		}
		m, seen := memo[key.String()]
		if !seen {
			res, err := mergedPolicies(s, pols)
			m.ok = err == nil
			m.types = subjectTypes(s.Kind)
			for t := range res {
				if !contains(m.types, t) {
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
	return fedList{entries: entries, all: append(all, '\n')}, err
}

// Resolve answers GET /federation/resolve?sub=&trust_anchor=: it fetches the
// subject's entity configuration through the guarded client, verifies it
// with its organisation's keys, applies the merged policy and answers a
// resolve-response+jwt. A chain that does not hold is 400 invalid_trust_chain.
func (h *Federation) Resolve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// trust_anchor may be given several times; one of them being this
	// directory is enough (OpenID Federation 1.0, Resolve Request).
	sub, tas := q.Get("sub"), q["trust_anchor"]
	if sub == "" || len(tas) == 0 || tas[0] == "" {
		anchor.WriteError(w, http.StatusBadRequest, "invalid_request", "sub and trust_anchor are required")
		return
	}
	if !contains(tas, h.EntityID) {
		anchor.WriteError(w, http.StatusNotFound, "invalid_trust_anchor", "this trust anchor is "+h.EntityID)
		return
	}
	now := h.Now()
	res, err := h.resolve(r.Context(), sub, now, q["entity_type"])
	if err != nil {
		var ce *chainError
		if errors.As(err, &ce) {
			anchor.WriteError(w, http.StatusBadRequest, "invalid_trust_chain", ce.reason)
			return
		}
		if errors.As(err, new(anchor.ErrFetchBudget)) {
			anchor.WriteError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the entity configuration of "+sub+" was "+err.Error())
			return
		}
		h.fedFail(w, r, sub, err)
		return
	}
	tok, err := h.Keys.Sign(r.Context(), "resolve-response+jwt", res.claims)
	if err != nil {
		h.fedFail(w, r, sub, err)
		return
	}
	anchor.WriteJWT(w, "resolve-response+jwt", tok, h.Keys.Lifetime())
}

type chainError struct{ reason string }

func (e *chainError) Error() string { return e.reason }

type resolved struct {
	claims   map[string]any
	Metadata map[string]any
}

// resolve builds the resolve response about sub (also for Check now).
func (h *Federation) resolve(ctx context.Context, sub string, now time.Time, types []string) (*resolved, error) {
	st, err := h.StatementFor(ctx, sub, now)
	if err != nil {
		return nil, err
	}
	statement, err := h.Keys.Sign(ctx, "entity-statement+jwt", st.Claims)
	if err != nil {
		return nil, err
	}
	ec, claims, err := h.fetchEntityConfiguration(ctx, st, now)
	if err != nil {
		return nil, err
	}
	metadata, _ := claims["metadata"].(map[string]any)
	if metadata == nil {
		metadata = map[string]any{}
	}
	// The statement's constraints: only the types the directory vouches
	// for (OpenID Federation 1.0, Entity Type Constraints).
	cons, _ := st.Claims["constraints"].(map[string]any)
	c, err := federation.ParseConstraints(cons)
	if err != nil {
		return nil, err
	}
	metadata = c.FilterEntityTypes(metadata)
	// The statement's own metadata (the organisation's name) first, then
	// the policies (OpenID Federation 1.0, Metadata Policy Application).
	sm, _ := st.Claims["metadata"].(map[string]any)
	metadata = federation.ApplySuperiorMetadata(metadata, sm)
	for etype, pol := range st.Policy {
		m, ok := metadata[etype].(map[string]any)
		if !ok {
			continue
		}
		pm := map[string]any{}
		for k, v := range pol {
			pm[k] = v
		}
		out, err := federation.ApplyPolicy(pm, m)
		if err != nil {
			return nil, &chainError{fmt.Sprintf("the %s metadata of %s does not satisfy the policy: %v", etype, sub, err)}
		}
		metadata[etype] = out
	}
	if len(types) > 0 {
		kept := map[string]any{}
		for _, t := range types {
			if v, ok := metadata[t]; ok {
				kept[t] = v
			}
		}
		metadata = kept
	}
	own, err := h.entityConfiguration(ctx, now)
	if err != nil {
		return nil, err
	}
	exp := now.Add(h.Keys.Lifetime()).Unix()
	if e, ok := claims["exp"].(float64); ok && int64(e) < exp {
		exp = int64(e)
	}
	return &resolved{Metadata: metadata, claims: map[string]any{
		"iss": h.EntityID, "sub": sub, "iat": now.Unix(), "exp": exp,
		"metadata": metadata, "trust_chain": []string{ec, statement, own},
	}}, nil
}

var fedAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.PS256, jose.PS384, jose.PS512, jose.RS256, jose.RS384, jose.RS512, jose.EdDSA}

// fetchEntityConfiguration gets the subject's own statement and checks it:
// signed by a key of its organisation, iss = sub = the entity ID, not
// expired, authority_hints naming this anchor.
func (h *Federation) fetchEntityConfiguration(ctx context.Context, st *Statement, now time.Time) (string, map[string]any, error) {
	id := st.Subject.EntityID
	u := strings.TrimRight(id, "/") + "/.well-known/openid-federation"
	fail := func(format string, args ...any) (string, map[string]any, error) {
		return "", nil, &chainError{u + ": " + fmt.Sprintf(format, args...)}
	}
	status, b, err := h.fetches.Get(ctx, h.Client, u, now)
	var budget anchor.ErrFetchBudget
	var unreadable anchor.ErrUnreadable
	switch {
	case errors.As(err, &budget):
		return "", nil, err
	case errors.As(err, &unreadable):
		return fail("the answer could not be read")
	case err != nil:
		msg := "could not be fetched"
		if strings.Contains(err.Error(), "not public") {
			msg += " (the address is not public)"
		} else if strings.Contains(err.Error(), "redirect") {
			msg += " (a redirect was refused)"
		}
		return fail("%s", msg)
	}
	if status != http.StatusOK {
		return fail("HTTP %d", status)
	}
	raw := strings.TrimSpace(string(b))
	jws, err := jose.ParseSignedCompact(raw, fedAlgs)
	if err != nil || len(jws.Signatures) != 1 {
		return fail("the answer is not a signed entity statement")
	}
	if typ, _ := jws.Signatures[0].Header.ExtraHeaders[jose.HeaderType].(string); typ != "entity-statement+jwt" {
		return fail("typ %q is not entity-statement+jwt", typ)
	}
	var set jose.JSONWebKeySet
	kb, _ := json.Marshal(st.Claims["jwks"])
	if err := json.Unmarshal(kb, &set); err != nil {
		return fail("the organisation's keys cannot be read")
	}
	// The kid header is required and names the key (Entity Statement Validation).
	kid := jws.Signatures[0].Header.KeyID
	if kid == "" {
		return fail("the entity configuration has no kid header")
	}
	payload := verifyWith(jws, set, kid)
	if payload == nil {
		return fail("the signature (kid %q) is not made by a key of the organisation's Active key material", kid)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		return fail("the claims are not JSON")
	}
	if claims["iss"] != id || claims["sub"] != id {
		return fail("iss and sub must both be %s", id)
	}
	// crit names extension claims that must be understood; this directory
	// understands none (Entity Statement Validation).
	if anchor.CritNamesClaims(claims) {
		return fail("crit names claims this directory does not understand: %v", claims["crit"])
	}
	if e, ok := claims["exp"].(float64); !ok || int64(e) <= now.Unix() {
		return fail("the entity configuration has expired (or has no exp)")
	}
	if !anchor.IssuedBefore(claims, now) {
		return fail("the entity configuration's iat is missing or in the future")
	}
	// Its own jwks (required) must verify it too (Validating a Trust Chain:
	// ES[0] with ES[0]["jwks"]).
	var own jose.JSONWebKeySet
	ob, _ := json.Marshal(claims["jwks"])
	if err := json.Unmarshal(ob, &own); err != nil || len(own.Keys) == 0 || verifyWith(jws, own, kid) == nil {
		return fail("the entity configuration's own jwks is missing or holds no key (kid %q) that verifies it", kid)
	}
	hints, _ := claims["authority_hints"].([]any)
	if !containsAny(hints, h.EntityID) {
		return fail("authority_hints do not name this trust anchor (%s)", h.EntityID)
	}
	if err := federation.CheckMetadata(claims["metadata"]); err != nil {
		return fail("%v", err)
	}
	if c := anchor.MisplacedClaim(claims, true); c != "" {
		return fail("an entity configuration cannot carry %s", c)
	}
	if err := anchor.ConfigurationSyntax(claims); err != nil {
		return fail("%v", err)
	}
	return raw, claims, nil
}

// verifyWith returns the payload of jws verified with the key kid of set,
// or nil.
func verifyWith(jws *jose.JSONWebSignature, set jose.JSONWebKeySet, kid string) []byte {
	for _, k := range set.Key(kid) {
		if p, err := jws.Verify(k); err == nil {
			return p
		}
	}
	return nil
}

func containsAny(l []any, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Tab is the Federation tab of an application (kind "Application") or
// authorisation server; with check it also resolves the live entity.
func (h *Federation) Tab(kind string, check bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		o, ok := h.Org.loadOrg(w, r)
		if !ok {
			return
		}
		ctx := r.Context()
		base := paths.Organisation(o.OrganisationID)
		p := views.FederationPage{Checked: check}
		var tab, entityPage string
		if kind == "Application" {
			a, err := h.Store.GetSoftwareStatement(ctx, o.OrganisationID, PathParam(r, "appID"))
			if err != nil {
				WriteError(w, r, directory.Named(err, "Application"))
				return
			}
			p.Name, p.EntityID, tab = a.ClientName, a.FederationEntityID, views.TabApplications
			entityPage = base + "/softwarestatements/" + a.SoftwareStatementID
			p.Action = entityPage + "/federation/check"
		} else {
			s, err := h.Store.GetAuthorisationServer(ctx, o.OrganisationID, PathParam(r, "serverID"))
			if err != nil {
				WriteError(w, r, directory.Named(err, "Authorisation server"))
				return
			}
			p.Name, p.EntityID, tab = s.CustomerFriendlyName, s.FederationEntityID, views.TabServers
			entityPage = base + "/authorisationservers/" + s.AuthorisationServerID
			p.Action = entityPage + "/federation/check"
		}
		p.OrgPage = h.Org.orgPage(o, tab)
		now := h.Now()
		var se *statementError
		if p.EntityID == "" {
			p.Reason = "This entity has no federation entity ID: set one on its edit page to list it in the directory's federation."
		} else if st, err := h.StatementFor(ctx, p.EntityID, now); errors.Is(err, store.ErrNotFound) {
			p.Reason = "The federation does not list this entity: it and its organisation must both be Active."
		} else if errors.As(err, &se) {
			p.Reason = "No statement can be made: " + se.reason
		} else if err != nil {
			WriteError(w, r, err)
			return
		} else {
			sb, _ := json.MarshalIndent(st.Claims, "", "  ")
			pb, _ := json.MarshalIndent(st.Policy, "", "  ")
			p.Statement, p.Policy = string(sb), string(pb)
		}
		if check && p.EntityID != "" {
			res, err := h.resolve(ctx, p.EntityID, now, nil)
			var ce *chainError
			switch {
			case err == nil:
				mb, _ := json.MarshalIndent(res.Metadata, "", "  ")
				p.Resolved = string(mb)
			case errors.As(err, &ce):
				p.CheckError = "The entity does not resolve: " + ce.reason
			case errors.As(err, new(anchor.ErrFetchBudget)):
				p.CheckError = "The entity's configuration was " + err.Error() + "."
			case errors.As(err, &se):
				p.CheckError = "No statement can be made: " + se.reason
			case errors.Is(err, store.ErrNotFound):
				p.CheckError = "The federation does not list this entity."
			default:
				WriteError(w, r, err)
				return
			}
		}
		// Organisations › the organisation › the entity (linked) › Federation.
		crumbs := h.Org.orgCrumbs(&o, p.Name)
		crumbs[len(crumbs)-1].Href = entityPage
		crumbs = append(crumbs, views.Crumb{Label: "Federation"})
		Render(w, r, http.StatusOK, views.Federation(h.Shell(r, "Federation", "organisations", crumbs...), p))
	}
}
