package views

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/store"
)

// NewOwnConfigPage is the page of the directory's own entity
// configuration, published under entityID ("" when it has none).
func NewOwnConfigPage(entityID string) OwnConfigPage {
	p := OwnConfigPage{EntityID: entityID}
	if entityID != "" {
		p.URL = strings.TrimRight(entityID, "/") + "/.well-known/openid-federation"
	}
	return p
}

// endpointLabels names the federation_entity endpoints OpenID Federation
// 1.0 defines, in the order the page lists them; others follow by name.
var endpointLabels = []struct{ claim, label string }{
	{"federation_fetch_endpoint", "Fetch"},
	{"federation_list_endpoint", "Subordinate listing"},
	{"federation_resolve_endpoint", "Resolve"},
	{"federation_trust_mark_status_endpoint", "Trust mark status"},
	{"federation_trust_mark_list_endpoint", "Trust marked entities listing"},
	{"federation_trust_mark_endpoint", "Trust mark"},
	{"federation_historical_keys_endpoint", "Historical keys"},
}

// ownCoreClaims are the claims the page shows in their own places; any
// other (trust_mark_issuers, trust_mark_owners, constraints,
// metadata_policy, trust_marks, …) is listed as it is.
var ownCoreClaims = map[string]bool{"iss": true, "sub": true, "iat": true, "exp": true, "jwks": true, "metadata": true, "authority_hints": true}

// Decode fills p from the compact statement tok, taken apart rather than
// assembled beside the endpoint, its signature verified with the key its
// own jwks publishes under the header's kid.
func (p *OwnConfigPage) Decode(tok string, now time.Time) error {
	d, err := federation.Decode(tok)
	if err != nil {
		return err
	}
	claims := d.Claims
	p.JWT, p.Alg, p.Kid, p.Typ, p.JSON = tok, d.Alg, d.Kid, d.Typ, d.JSON
	p.Iss, _ = claims["iss"].(string)
	p.Sub, _ = claims["sub"].(string)
	if v, ok := claims["iat"].(float64); ok {
		p.Iat = time.Unix(int64(v), 0).UTC()
	}
	if v, ok := claims["exp"].(float64); ok {
		p.Exp = time.Unix(int64(v), 0).UTC()
		p.ExpiresIn = expiresIn(p.Exp.Sub(now))
	}
	hints, _ := claims["authority_hints"].([]any)
	for _, hint := range hints {
		if s, ok := hint.(string); ok {
			p.AuthorityHints = append(p.AuthorityHints, s)
		}
	}
	for _, k := range d.Keys {
		p.Keys = append(p.Keys, OwnKey{Kid: k.KeyID, Kty: federation.KeyType(k), Alg: k.Algorithm, Use: k.Use, Signs: k.KeyID == p.Kid})
	}
	p.VerifyError, p.Verified = d.Unverified, d.Unverified == ""
	p.metadata(claims)
	for _, k := range sortedKeys(claims) {
		if !ownCoreClaims[k] {
			p.OtherClaims = append(p.OtherClaims, OwnField{Name: k, Value: claimText(claims[k])})
		}
	}
	return nil
}

// metadata shows federation_entity apart (endpoints as links) and every
// other entity type as JSON.
func (p *OwnConfigPage) metadata(claims map[string]any) {
	metadata, _ := claims["metadata"].(map[string]any)
	fe, _ := metadata["federation_entity"].(map[string]any)
	seen := map[string]bool{}
	for _, e := range endpointLabels {
		if u, ok := fe[e.claim].(string); ok {
			p.Endpoints = append(p.Endpoints, OwnEndpoint{Claim: e.claim, Label: e.label, URL: u})
			seen[e.claim] = true
		}
	}
	for _, k := range sortedKeys(fe) {
		if seen[k] {
			continue
		}
		if u, ok := fe[k].(string); ok && strings.HasSuffix(k, "_endpoint") {
			p.Endpoints = append(p.Endpoints, OwnEndpoint{Claim: k, Label: k, URL: u})
			continue
		}
		p.EntityFields = append(p.EntityFields, OwnField{Name: k, Value: claimText(fe[k])})
	}
	for _, t := range sortedKeys(metadata) {
		if t != "federation_entity" {
			p.OtherMetadata = append(p.OtherMetadata, OwnField{Name: t, Value: claimText(metadata[t])})
		}
	}
}

// SetKeyStatus gives each published key its state in the store: the
// prepared next key and the retired ones are published without signing
// (docs/design.md §13).
func (p *OwnConfigPage) SetKeyStatus(stored []store.SigningKey) {
	status := map[string]string{}
	for _, k := range stored {
		status[k.Kid] = k.Status
	}
	for i := range p.Keys {
		p.Keys[i].Status = status[p.Keys[i].Kid]
	}
}

// claimText is a string as it is, anything else as indented JSON.
func claimText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return IndentJSON(v)
}

// IndentJSON is v as indented JSON, for people to read.
func IndentJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
