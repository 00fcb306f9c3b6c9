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

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/federation"
)

// chainError is a trust chain that does not hold: 400 invalid_trust_chain
// (OpenID Federation 1.0 §8.3.4), never a 5xx.
func chainError(format string, args ...any) *Error {
	return &Error{http.StatusBadRequest, "invalid_trust_chain", fmt.Sprintf(format, args...)}
}

// link is one subordinate statement of a chain, top down, with what it says.
type link struct {
	token  string
	claims map[string]any
}

// trustAnchor is a trust anchor as the one resolver sees it: the
// standalone anchor of a configuration file (Anchor) or the directory over
// its participants (Directory).
type trustAnchor interface {
	entityID() string
	statementLifetime() time.Duration
	// statementAbout is what the anchor says about its direct subordinate
	// sub, unsigned, and the keys it holds for sub. A sub that is not a
	// direct subordinate is a 404 *Error (look under the intermediates).
	statementAbout(ctx context.Context, sub string, now time.Time, get getFunc) (map[string]any, json.RawMessage, error)
	// intermediates are the direct subordinates a leaf may be found
	// under, in the order they are tried; the directory has none.
	intermediates() []string
	// unknown is the refusal of a sub found neither as a direct
	// subordinate nor under an intermediate.
	unknown(sub string) error
	configuration(ctx context.Context, now time.Time) (string, error)
	sign(ctx context.Context, typ string, claims map[string]any) (string, error)
}

// Resolver is the one resolver of both anchors (docs/design.md §8 and
// §13): it fetches the statements of a chain through Client within each
// address's budget (FetchGuard) and each resolve's (resolveFetches),
// verifies them link by link, applies the constraints and the merged
// policies, and signs the resolve response with the anchor's key.
type Resolver struct {
	Client *http.Client

	fetches           FetchGuard
	maxResolveFetches int // fetches one resolve may make; 0 is maxResolveFetches plus one per intermediate
}

// fetch is a getFunc within each address's budget (FetchGuard), for a
// request made at now.
func (r *Resolver) fetch(now time.Time) getFunc {
	return func(ctx context.Context, u string) (int, []byte, error) {
		return r.fetches.Get(ctx, r.Client, u, now)
	}
}

// resolve is the signed resolve response of ta about sub, its metadata
// kept to types when any are given. A refusal is an *Error; anything else
// is a failure of the anchor's own (its store, its key).
func (r *Resolver) resolve(ctx context.Context, ta trustAnchor, sub string, types []string, now time.Time) (string, map[string]any, error) {
	fetches := r.resolveFetches(now, len(ta.intermediates()))
	claims, err := resolveClaims(ctx, ta, sub, now, types, fetches.fetch)
	if err != nil && fetches.over {
		err = tooManyFetches(sub, fetches.max)
	}
	if err != nil {
		return "", nil, err
	}
	tok, err := ta.sign(ctx, "resolve-response+jwt", claims)
	return tok, claims["metadata"].(map[string]any), err
}

// resolveRequest reads a resolve request (sub and trust_anchor, which may
// be repeated: the anchor among them is enough) and refuses one that is
// not for anchorID.
func resolveRequest(q url.Values, anchorID string) (string, *Error) {
	sub, tas := q.Get("sub"), q["trust_anchor"]
	if sub == "" || len(tas) == 0 || tas[0] == "" {
		return "", &Error{http.StatusBadRequest, "invalid_request", "sub and trust_anchor are required"}
	}
	if !slices.Contains(tas, anchorID) {
		return "", &Error{http.StatusNotFound, "invalid_trust_anchor", "this trust anchor is " + anchorID}
	}
	return sub, nil
}

// resolveClaims are the claims of the resolve response about sub: the
// subject is a direct subordinate, or a leaf below one of the intermediates
// (anchor → intermediate → leaf).
func resolveClaims(ctx context.Context, ta trustAnchor, sub string, now time.Time, types []string, get getFunc) (map[string]any, error) {
	ec, claims, links, err := chain(ctx, ta, sub, now, get)
	if err != nil {
		return nil, err
	}
	metadata, _ := claims["metadata"].(map[string]any)
	if metadata == nil {
		metadata = map[string]any{}
	}
	// The immediate superior's metadata overrides the subject's, under the
	// entity types the subject has.
	metadata = federation.ApplySuperiorMetadata(metadata, asMap(links[len(links)-1].claims["metadata"]))
	metadata, err = applyChain(metadata, sub, links)
	if err != nil {
		return nil, err
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
	own, err := ta.configuration(ctx, now)
	if err != nil {
		return nil, err
	}
	exp := now.Add(ta.statementLifetime()).Unix()
	trustChain := []string{ec}
	for i := len(links) - 1; i >= 0; i-- {
		trustChain = append(trustChain, links[i].token)
		if e, ok := links[i].claims["exp"].(float64); ok && int64(e) < exp {
			exp = int64(e)
		}
	}
	trustChain = append(trustChain, own)
	if e, ok := claims["exp"].(float64); ok && int64(e) < exp {
		exp = int64(e)
	}
	answer := map[string]any{
		"iss": ta.entityID(), "sub": sub, "iat": now.Unix(),
		"metadata": metadata, "trust_chain": trustChain,
	}
	if issuer, ok := ta.(trustMarkIssuer); ok {
		marks, until, err := issuer.activeTrustMarks(ctx, sub, claims, now)
		if err != nil {
			return nil, err
		}
		if len(marks) > 0 {
			answer["trust_marks"] = marks
			exp = min(exp, until)
		}
	}
	answer["exp"] = exp
	return answer, nil
}

// trustMarkIssuer is a trust anchor that issues trust marks (the
// directory, docs/design.md §17): a resolve answer carries the subject's
// marks it issued that are active, and expires with the first of them.
type trustMarkIssuer interface {
	activeTrustMarks(ctx context.Context, sub string, claims map[string]any, now time.Time) ([]any, int64, error)
}

// applyChain applies to the subject's metadata the constraints of every
// statement of the chain (§6.2), then their policies merged top down
// (§6.1.4).
func applyChain(metadata map[string]any, sub string, links []link) (map[string]any, error) {
	merged := map[string]federation.Policy{}
	for i, l := range links {
		c, err := federation.ParseConstraints(asMap(l.claims["constraints"]))
		if err != nil {
			return nil, chainError("the constraints of the statement about %v: %v", l.claims["sub"], err)
		}
		if err := c.CheckPath(len(links) - 1 - i); err != nil {
			return nil, chainError("%v", err)
		}
		// Naming constraints bind the statement's subject and everything below it.
		for _, below := range links[i:] {
			if err := c.CheckName(fmt.Sprint(below.claims["sub"])); err != nil {
				return nil, chainError("%v", err)
			}
		}
		metadata = c.FilterEntityTypes(metadata)
		if err := mergeLinkPolicies(merged, l); err != nil {
			return nil, err
		}
	}
	for etype, pol := range merged {
		m, ok := metadata[etype].(map[string]any)
		if !ok {
			continue
		}
		pm := map[string]any{}
		for k, v := range pol {
			pm[k] = v
		}
		resolved, err := federation.ApplyPolicy(pm, m)
		if err != nil {
			return nil, chainError("the %s metadata of %s does not satisfy the policy: %v", etype, sub, err)
		}
		metadata[etype] = resolved
	}
	return metadata, nil
}

// mergeLinkPolicies validates the policies of one statement and merges
// them into merged, per entity type. An operator the resolver does not
// know is ignored unless metadata_policy_crit names it (Metadata Policy
// Resolution).
func mergeLinkPolicies(merged map[string]federation.Policy, l link) error {
	for _, op := range asList(l.claims["metadata_policy_crit"]) {
		if name, _ := op.(string); !slices.Contains(federation.Operators, name) {
			return chainError("the statement about %v names the critical policy operator %v, which this anchor does not support", l.claims["sub"], op)
		}
	}
	mp := asMap(l.claims["metadata_policy"])
	etypes := make([]string, 0, len(mp))
	for t := range mp {
		etypes = append(etypes, t)
	}
	sort.Strings(etypes)
	for _, etype := range etypes {
		b, _ := json.Marshal(mp[etype])
		p, err := federation.ParsePolicy(b)
		if err != nil {
			return chainError("the %s policy of the statement about %v is not a policy", etype, l.claims["sub"])
		}
		p = knownOperators(p)
		pb, _ := json.Marshal(p)
		for _, pe := range federation.ValidatePolicy(pb) {
			return chainError("the %s policy of the statement about %v: %v", etype, l.claims["sub"], pe)
		}
		if cur, ok := merged[etype]; ok {
			if p, err = federation.MergePolicies(cur, p); err != nil {
				return chainError("the %s policies of the chain cannot be merged: %v", etype, err)
			}
		}
		merged[etype] = p
	}
	return nil
}

// knownOperators drops the operators that are not standard (they are
// ignored when not critical) and the parameters left with none.
func knownOperators(p federation.Policy) federation.Policy {
	out := federation.Policy{}
	for param, ops := range p {
		kept := map[string]any{}
		for op, v := range ops {
			if slices.Contains(federation.Operators, op) {
				kept[op] = v
			}
		}
		if len(kept) > 0 || len(ops) == 0 {
			out[param] = kept
		}
	}
	return out
}

// policyClaimsShape checks the shape of a subordinate statement's
// metadata_policy and constraints (JSON objects) and metadata_policy_crit
// (a non-empty array of strings), so that none is ignored for being of
// another shape (docs/design.md §13).
func policyClaimsShape(claims map[string]any) error {
	for _, n := range []string{"metadata_policy", "constraints"} {
		if v, ok := claims[n]; ok {
			if _, isObject := v.(map[string]any); !isObject {
				return fmt.Errorf("%s must be a JSON object", n)
			}
		}
	}
	if v, ok := claims["metadata_policy_crit"]; ok {
		l, isList := v.([]any)
		if !isList || len(l) == 0 {
			return errors.New("metadata_policy_crit must be a non-empty array of operator names")
		}
		for _, x := range l {
			if _, isString := x.(string); !isString {
				return errors.New("metadata_policy_crit must be a non-empty array of operator names")
			}
		}
	}
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// chain finds the statements from the anchor down to sub: the subject's
// verified entity configuration and its claims, and the subordinate
// statements top down. A direct subordinate is one statement; otherwise an
// intermediate among the direct subordinates must vouch for sub through its
// fetch endpoint, and sub's authority_hints must name that intermediate.
func chain(ctx context.Context, ta trustAnchor, sub string, now time.Time, get getFunc) (string, map[string]any, []link, error) {
	st, keys, err := ta.statementAbout(ctx, sub, now, get)
	if err == nil {
		tok, err := ta.sign(ctx, "entity-statement+jwt", st)
		if err != nil {
			return "", nil, nil, err
		}
		ec, claims, err := fetchEntityConfiguration(ctx, get, sub, keys, ta.entityID(), now)
		if err != nil {
			return "", nil, nil, err
		}
		return ec, claims, []link{{token: tok, claims: asRead(st)}}, nil
	}
	if fe := (*Error)(nil); !errors.As(err, &fe) || fe.Status != http.StatusNotFound {
		return "", nil, nil, err
	}
	for _, id := range ta.intermediates() {
		ist, keys, err := ta.statementAbout(ctx, id, now, get)
		if fe := budgetError(err); fe != nil {
			return "", nil, nil, fe
		}
		if err != nil {
			continue
		}
		_, iclaims, err := fetchEntityConfiguration(ctx, get, id, keys, ta.entityID(), now)
		if fe := budgetError(err); fe != nil {
			return "", nil, nil, fe
		}
		if err != nil {
			continue
		}
		fetchEP, _ := asMap(asMap(iclaims["metadata"])["federation_entity"])["federation_fetch_endpoint"].(string)
		if fetchEP == "" {
			continue
		}
		ijwks, _ := json.Marshal(iclaims["jwks"])
		stmt, sclaims, err := fetchStatement(ctx, get, fetchEP, id, sub, ijwks, keys, now)
		if err != nil {
			if errors.Is(err, errNoStatement) {
				continue
			}
			return "", nil, nil, err
		}
		ljwks, _ := json.Marshal(sclaims["jwks"])
		ec, claims, err := fetchEntityConfiguration(ctx, get, sub, ljwks, id, now)
		if err != nil {
			return "", nil, nil, err
		}
		tok, err := ta.sign(ctx, "entity-statement+jwt", ist)
		if err != nil {
			return "", nil, nil, err
		}
		return ec, claims, []link{{token: tok, claims: asRead(ist)}, {token: stmt, claims: sclaims}}, nil
	}
	return "", nil, nil, ta.unknown(sub)
}

// asRead is claims as a verifier reads them once signed: through JSON.
func asRead(claims map[string]any) map[string]any {
	b, _ := json.Marshal(claims)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

var errNoStatement = errors.New("no statement")

// jwsAlgs are the algorithms a statement may be signed with.
var jwsAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.PS256, jose.PS384, jose.PS512, jose.RS256, jose.RS384, jose.RS512, jose.EdDSA}

// getStatement fetches a statement body (at most 512 KiB) with get, within
// the address's budget (FetchGuard): past it, a 503 temporarily_unavailable.
func getStatement(ctx context.Context, get getFunc, u string) (int, string, error) {
	code, b, err := get(ctx, u)
	if fe := budgetError(err); fe != nil {
		return 0, "", fe
	}
	switch {
	case errors.As(err, new(ErrUnreadable)):
		return 0, "", errors.New("the answer could not be read")
	case err != nil:
		// Why, when the client refused the address: not why the network
		// failed, which would tell a caller about the anchor's network.
		msg := "could not be fetched"
		if strings.Contains(err.Error(), "not public") {
			msg += " (the address is not public)"
		} else if strings.Contains(err.Error(), "redirect") {
			msg += " (a redirect was refused)"
		}
		return 0, "", errors.New(msg)
	}
	return code, strings.TrimSpace(string(b)), nil
}

// budgetError is err as a 503 temporarily_unavailable when it is (or
// holds) a fetch past its budget, and nil otherwise.
func budgetError(err error) *Error {
	var fe *Error
	if errors.As(err, &fe) && fe.Status == http.StatusServiceUnavailable {
		return fe
	}
	if errors.As(err, new(ErrFetchBudget)) {
		return &Error{http.StatusServiceUnavailable, "temporarily_unavailable", "a statement was " + err.Error()}
	}
	return nil
}

// verify checks a statement's typ and signature with keys and returns its claims.
func verify(raw string, keys json.RawMessage) (map[string]any, error) {
	jws, err := jose.ParseSignedCompact(raw, jwsAlgs)
	if err != nil || len(jws.Signatures) != 1 {
		return nil, errors.New("not a signed statement")
	}
	if typ, _ := jws.Signatures[0].Header.ExtraHeaders[jose.HeaderType].(string); typ != "entity-statement+jwt" {
		return nil, fmt.Errorf("typ %q is not entity-statement+jwt", typ)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(keys, &set); err != nil {
		return nil, errors.New("the keys to verify it with are not a JWK set")
	}
	// The kid header is required and names the key (Entity Statement Validation).
	kid := jws.Signatures[0].Header.KeyID
	if kid == "" {
		return nil, errors.New("the statement has no kid header")
	}
	for _, k := range set.Key(kid) {
		if payload, err := jws.Verify(k); err == nil {
			var claims map[string]any
			if err := json.Unmarshal(payload, &claims); err != nil {
				return nil, errors.New("the claims are not JSON")
			}
			// crit names extension claims that must be understood; this
			// anchor understands none (Entity Statement Validation).
			if CritNamesClaims(claims) {
				return nil, fmt.Errorf("crit names claims this anchor does not understand: %v", claims["crit"])
			}
			return claims, nil
		}
	}
	return nil, fmt.Errorf("the signature (kid %q) is not made by a key the superior holds for it", kid)
}

// fetchEntityConfiguration gets id's entity configuration and checks it:
// signed with keys (what its superior holds for it), iss = sub = id, not
// expired, authority_hints naming superior.
func fetchEntityConfiguration(ctx context.Context, get getFunc, id string, keys json.RawMessage, superior string, now time.Time) (string, map[string]any, error) {
	u := strings.TrimRight(id, "/") + "/.well-known/openid-federation"
	code, raw, err := getStatement(ctx, get, u)
	if fe := budgetError(err); fe != nil {
		return "", nil, &Error{fe.Status, fe.Code, "the entity configuration of " + id + " was " + ErrFetchBudget{}.Error()}
	}
	if err != nil {
		return "", nil, chainError("%s: %v", u, err)
	}
	if code != http.StatusOK {
		return "", nil, chainError("%s: HTTP %d", u, code)
	}
	claims, err := verify(raw, keys)
	if err != nil {
		return "", nil, chainError("%s: %v", u, err)
	}
	if claims["iss"] != id || claims["sub"] != id {
		return "", nil, chainError("%s: iss and sub must be %s", u, id)
	}
	if e, ok := claims["exp"].(float64); !ok || int64(e) <= now.Unix() {
		return "", nil, chainError("%s is expired or has no exp", u)
	}
	if !IssuedBefore(claims, now) {
		return "", nil, chainError("%s: iat is missing or in the future", u)
	}
	// Its own jwks (required) must verify it too (Validating a Trust Chain).
	own, _ := json.Marshal(claims["jwks"])
	if claims["jwks"] == nil {
		return "", nil, chainError("%s has no jwks", u)
	}
	if _, err := verify(raw, own); err != nil {
		return "", nil, chainError("%s: its own jwks does not verify it: %v", u, err)
	}
	hints, _ := claims["authority_hints"].([]any)
	if !slices.Contains(hints, any(superior)) {
		return "", nil, chainError("%s: authority_hints do not name %s", u, superior)
	}
	if err := federation.CheckMetadata(claims["metadata"]); err != nil {
		return "", nil, chainError("%s: %v", u, err)
	}
	if c := MisplacedClaim(claims, true); c != "" {
		return "", nil, chainError("%s: an entity configuration cannot carry %s", u, c)
	}
	if err := ConfigurationSyntax(claims); err != nil {
		return "", nil, chainError("%s: %v", u, err)
	}
	return raw, claims, nil
}

// fetchStatement asks an intermediate's fetch endpoint about sub. Not
// found there is errNoStatement (try the next intermediate). The statement
// must verify with a key of the intermediate's entity configuration (keys)
// and with a key of the anchor's statement about the intermediate
// (superiorKeys), so that the chain answered verifies link by link
// (docs/design.md §13).
func fetchStatement(ctx context.Context, get getFunc, endpoint, iss, sub string, keys, superiorKeys json.RawMessage, now time.Time) (string, map[string]any, error) {
	eu, err := url.Parse(endpoint)
	if err != nil || eu.Host == "" {
		return "", nil, errNoStatement
	}
	q := eu.Query()
	q.Set("sub", sub)
	eu.RawQuery = q.Encode()
	code, raw, err := getStatement(ctx, get, eu.String())
	if fe := budgetError(err); fe != nil {
		return "", nil, fe
	}
	if err != nil || code != http.StatusOK {
		return "", nil, errNoStatement
	}
	claims, err := verify(raw, keys)
	if err != nil {
		return "", nil, chainError("the statement of %s about %s: %v", iss, sub, err)
	}
	if _, err := verify(raw, superiorKeys); err != nil {
		return "", nil, chainError("the statement of %s about %s: %v (the keys of this anchor's statement about %s)", iss, sub, err, iss)
	}
	if claims["iss"] != iss || claims["sub"] != sub {
		return "", nil, chainError("the statement of %s about %s names iss %v and sub %v", iss, sub, claims["iss"], claims["sub"])
	}
	if e, ok := claims["exp"].(float64); !ok || int64(e) <= now.Unix() {
		return "", nil, chainError("the statement of %s about %s is expired", iss, sub)
	}
	if !IssuedBefore(claims, now) {
		return "", nil, chainError("the statement of %s about %s: iat is missing or in the future", iss, sub)
	}
	if err := federation.CheckMetadata(claims["metadata"]); err != nil {
		return "", nil, chainError("the statement of %s about %s: %v", iss, sub, err)
	}
	if c := MisplacedClaim(claims, false); c != "" {
		return "", nil, chainError("the statement of %s about %s: a subordinate statement cannot carry %s", iss, sub, c)
	}
	if err := policyClaimsShape(claims); err != nil {
		return "", nil, chainError("the statement of %s about %s: %v", iss, sub, err)
	}
	return raw, claims, nil
}
