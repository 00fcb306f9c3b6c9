package federation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// resolve answers /resolve?sub=&trust_anchor=: the subject's entity
// configuration, verified with the keys this anchor holds for it, its
// metadata with the statement's metadata and policy applied, and the chain.
func (s *Server) resolve(w http.ResponseWriter, r *http.Request, a *Anchor, now time.Time) {
	q := r.URL.Query()
	for k := range q {
		if k != "sub" && k != "trust_anchor" && k != "entity_type" {
			writeFedError(w, &fedError{http.StatusBadRequest, "unsupported_parameter", "resolve does not support " + k})
			return
		}
	}
	sub, ta := q.Get("sub"), q.Get("trust_anchor")
	if sub == "" || ta == "" {
		writeFedError(w, &fedError{http.StatusBadRequest, "invalid_request", "sub and trust_anchor are required"})
		return
	}
	if ta != a.cfg.EntityID {
		writeFedError(w, &fedError{http.StatusNotFound, "invalid_trust_anchor", "this anchor is " + a.cfg.EntityID})
		return
	}
	statement, sb, err := a.SubordinateStatement(r.Context(), sub, now, s.Client)
	if err != nil {
		var fe *fedError
		if errors.As(err, &fe) {
			writeFedError(w, fe)
			return
		}
		writeFedError(w, &fedError{http.StatusInternalServerError, "server_error", err.Error()})
		return
	}
	ec, claims, err := s.fetchEntityConfiguration(r.Context(), a, sb, now)
	if err != nil {
		writeFedError(w, &fedError{http.StatusBadGateway, "invalid_trust_chain", err.Error()})
		return
	}
	metadata, _ := claims["metadata"].(map[string]any)
	if metadata == nil {
		metadata = map[string]any{}
	}
	// The superior's metadata overrides the subject's, then the policy applies.
	for etype, over := range sb.Metadata {
		m, _ := metadata[etype].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		if om, ok := over.(map[string]any); ok {
			for k, v := range om {
				m[k] = v
			}
		}
		metadata[etype] = m
	}
	for etype, pol := range sb.MetadataPolicy {
		m, ok := metadata[etype].(map[string]any)
		if !ok {
			continue
		}
		pm, _ := pol.(map[string]any)
		resolved, err := ApplyPolicy(pm, m)
		if err != nil {
			writeFedError(w, &fedError{http.StatusBadRequest, "invalid_metadata", etype + ": " + err.Error()})
			return
		}
		metadata[etype] = resolved
	}
	if types := q["entity_type"]; len(types) > 0 {
		kept := map[string]any{}
		for _, t := range types {
			if v, ok := metadata[t]; ok {
				kept[t] = v
			}
		}
		metadata = kept
	}
	own, err := a.EntityConfiguration(now)
	if err != nil {
		writeFedError(w, &fedError{http.StatusInternalServerError, "server_error", err.Error()})
		return
	}
	exp := now.Add(a.lifetime).Unix()
	if e, ok := claims["exp"].(float64); ok && int64(e) < exp {
		exp = int64(e)
	}
	tok, err := a.sign(a.resolver, map[string]any{
		"iss": a.cfg.EntityID, "sub": sub, "iat": now.Unix(), "exp": exp,
		"metadata": metadata, "trust_chain": []string{ec, statement, own},
	})
	if err != nil {
		writeFedError(w, &fedError{http.StatusInternalServerError, "server_error", err.Error()})
		return
	}
	writeJWT(w, "resolve-response+jwt", tok, a.lifetime)
}

// fetchEntityConfiguration gets and verifies the subject's own statement.
func (s *Server) fetchEntityConfiguration(ctx context.Context, a *Anchor, sb *Subordinate, now time.Time) (string, map[string]any, error) {
	u := strings.TrimRight(sb.EntityID, "/") + "/.well-known/openid-federation"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", nil, err
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return "", nil, fmt.Errorf("fetching %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 512<<10))
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("fetching %s: HTTP %d", u, resp.StatusCode)
	}
	raw := strings.TrimSpace(string(b))
	jws, err := jose.ParseSignedCompact(raw, []jose.SignatureAlgorithm{jose.RS256, jose.PS256, jose.ES256, jose.ES384, jose.EdDSA, jose.PS384, jose.PS512, jose.RS384, jose.RS512})
	if err != nil {
		return "", nil, fmt.Errorf("%s is not a signed statement: %v", u, err)
	}
	if typ, _ := jws.Signatures[0].Header.ExtraHeaders[jose.HeaderType].(string); typ != "entity-statement+jwt" {
		return "", nil, fmt.Errorf("%s: typ %q is not entity-statement+jwt", u, typ)
	}
	jwksRaw, err := a.subordinateJWKS(ctx, sb, s.Client)
	if err != nil {
		return "", nil, err
	}
	var set jose.JSONWebKeySet
	_ = json.Unmarshal(jwksRaw, &set)
	keys := set.Key(jws.Signatures[0].Header.KeyID)
	if len(keys) == 0 {
		return "", nil, fmt.Errorf("%s is signed by kid %q, which the anchor does not hold for it", u, jws.Signatures[0].Header.KeyID)
	}
	payload, err := jws.Verify(keys[0])
	if err != nil {
		return "", nil, fmt.Errorf("%s: the signature does not verify", u)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		return "", nil, fmt.Errorf("%s: claims are not JSON", u)
	}
	if claims["iss"] != sb.EntityID || claims["sub"] != sb.EntityID {
		return "", nil, fmt.Errorf("%s: iss and sub must be %s", u, sb.EntityID)
	}
	if e, ok := claims["exp"].(float64); !ok || int64(e) <= now.Unix() {
		return "", nil, fmt.Errorf("%s is expired or has no exp", u)
	}
	return raw, claims, nil
}

// ApplyPolicy applies one entity type's metadata policy to its metadata
// (OpenID Federation 1.0 §6.1.4.1): value, add, default, then the checks
// one_of, subset_of (which also narrows), superset_of, essential.
func ApplyPolicy(policy map[string]any, metadata map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range metadata {
		out[k] = v
	}
	for param, raw := range policy {
		ops, _ := raw.(map[string]any)
		v, present := out[param]
		if val, ok := ops["value"]; ok {
			if val == nil {
				delete(out, param)
				present = false
			} else {
				out[param], v, present = val, val, true
			}
		}
		if add, ok := ops["add"]; ok {
			addList, isList := add.([]any)
			if !isList {
				addList = []any{add}
			}
			cur, _ := v.([]any)
			for _, x := range addList {
				if !contains(cur, x) {
					cur = append(cur, x)
				}
			}
			out[param], v, present = cur, cur, true
		}
		if def, ok := ops["default"]; ok && !present {
			out[param], v, present = def, def, true
		}
		if oneOf, ok := ops["one_of"].([]any); ok && present && !contains(oneOf, v) {
			return nil, fmt.Errorf("%s: %v is not one of %v", param, v, oneOf)
		}
		if sub, ok := ops["subset_of"].([]any); ok && present {
			cur, _ := v.([]any)
			kept := []any{}
			for _, x := range cur {
				if contains(sub, x) {
					kept = append(kept, x)
				}
			}
			out[param], v = kept, kept
		}
		if sup, ok := ops["superset_of"].([]any); ok && present {
			cur, _ := v.([]any)
			if !subset(sup, cur) {
				return nil, fmt.Errorf("%s: %v does not include %v", param, v, sup)
			}
		}
		if ess, ok := ops["essential"].(bool); ok && ess {
			if l, isList := out[param].([]any); !present || (isList && len(l) == 0) {
				return nil, fmt.Errorf("%s is essential and missing", param)
			}
		}
	}
	return out, nil
}
