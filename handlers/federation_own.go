package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// OwnConfiguration is Reference Data > Federation entity configuration: the
// directory's own entity configuration as /.well-known/openid-federation
// serves it (docs/design.md §13), decoded for reading. The statement is made
// by the same builder as the endpoint and then taken apart, never assembled
// separately, and its signature is verified with the key its own jwks
// publishes under the header's kid.
func (h *Federation) OwnConfiguration(w http.ResponseWriter, r *http.Request) {
	shell := h.Shell(r, "Federation entity configuration", "reference",
		views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Federation entity configuration"})
	p := views.OwnConfigPage{EntityID: h.Anchor.EntityID}
	if h.Anchor.EntityID != "" {
		p.URL = strings.TrimRight(h.Anchor.EntityID, "/") + "/.well-known/openid-federation"
	}
	if h.Anchor.Keys == nil || h.Anchor.EntityID == "" {
		p.NotConfigured = "The directory has no federation entity ID or signing keys."
		Render(w, r, http.StatusOK, views.OwnConfiguration(shell, p))
		return
	}
	now := h.Now()
	tok, err := h.Anchor.EntityConfiguration(r.Context(), now)
	if errors.Is(err, store.ErrNotFound) {
		// No Active federation key: the endpoint answers server_error.
		p.NotConfigured = "The directory has no federation signing key, so it serves no entity configuration."
		Render(w, r, http.StatusOK, views.OwnConfiguration(shell, p))
		return
	}
	if err != nil {
		WriteError(w, r, fmt.Errorf("federation: entity configuration: %w", err))
		return
	}
	if err := decodeOwnConfiguration(&p, tok, now); err != nil {
		WriteError(w, r, err)
		return
	}
	// Each published key's state in the store: the prepared next key and the
	// retired ones are published without signing (docs/design.md §13).
	if stored, err := h.Anchor.Keys.Keys(r.Context()); err == nil {
		status := map[string]string{}
		for _, k := range stored {
			status[k.Kid] = k.Status
		}
		for i := range p.Keys {
			p.Keys[i].Status = status[p.Keys[i].Kid]
		}
	}
	Render(w, r, http.StatusOK, views.OwnConfiguration(shell, p))
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

// decodeOwnConfiguration fills p from the compact statement tok.
func decodeOwnConfiguration(p *views.OwnConfigPage, tok string, now time.Time) error {
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
		p.Keys = append(p.Keys, views.OwnKey{Kid: k.KeyID, Kty: federation.KeyType(k), Alg: k.Algorithm, Use: k.Use, Signs: k.KeyID == p.Kid})
	}
	p.VerifyError, p.Verified = d.Unverified, d.Unverified == ""

	// metadata: federation_entity apart (endpoints as links), every other
	// entity type as JSON.
	metadata, _ := claims["metadata"].(map[string]any)
	fe, _ := metadata["federation_entity"].(map[string]any)
	seen := map[string]bool{}
	for _, e := range endpointLabels {
		if u, ok := fe[e.claim].(string); ok {
			p.Endpoints = append(p.Endpoints, views.OwnEndpoint{Claim: e.claim, Label: e.label, URL: u})
			seen[e.claim] = true
		}
	}
	for _, k := range sortedKeys(fe) {
		if seen[k] {
			continue
		}
		if u, ok := fe[k].(string); ok && strings.HasSuffix(k, "_endpoint") {
			p.Endpoints = append(p.Endpoints, views.OwnEndpoint{Claim: k, Label: k, URL: u})
			continue
		}
		p.EntityFields = append(p.EntityFields, views.OwnField{Name: k, Value: claimText(fe[k])})
	}
	for _, t := range sortedKeys(metadata) {
		if t != "federation_entity" {
			p.OtherMetadata = append(p.OtherMetadata, views.OwnField{Name: t, Value: claimText(metadata[t])})
		}
	}
	for _, k := range sortedKeys(claims) {
		if !ownCoreClaims[k] {
			p.OtherClaims = append(p.OtherClaims, views.OwnField{Name: k, Value: claimText(claims[k])})
		}
	}
	return nil
}

// claimText is a string as it is, anything else as indented JSON.
func claimText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
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

// expiresIn is "expires in 23 hours 59 minutes", "expires in 40 seconds" or
// "expired 5 minutes ago".
func expiresIn(d time.Duration) string {
	if d < 0 {
		return "expired " + roughDuration(-d) + " ago"
	}
	return "expires in " + roughDuration(d)
}

// roughDuration is d to the nearest minute in its two largest units (days,
// hours, minutes; the second only when next to the first), or seconds
// under a minute.
func roughDuration(d time.Duration) string {
	if d < time.Minute {
		return unit(int(d/time.Second), "second")
	}
	d = d.Round(time.Minute) // a statement made now lives "1 day", not "23 hours 59 minutes"
	vals := []int{int(d / (24 * time.Hour)), int(d % (24 * time.Hour) / time.Hour), int(d % time.Hour / time.Minute)}
	names := []string{"day", "hour", "minute"}
	var out []string
	for i, n := range vals {
		if n == 0 {
			continue
		}
		out = append(out, unit(n, names[i]))
		if i+1 < len(vals) && vals[i+1] > 0 {
			out = append(out, unit(vals[i+1], names[i+1]))
		}
		break
	}
	return strings.Join(out, " ")
}

func unit(n int, name string) string {
	if n == 1 {
		return "1 " + name
	}
	return fmt.Sprintf("%d %ss", n, name)
}
