package anchor

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// fedError is an OpenID Federation error response.
type fedError struct {
	Status      int
	Code        string
	Description string
}

func (e *fedError) Error() string { return e.Code + ": " + e.Description }

func writeFedError(w http.ResponseWriter, e *fedError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": e.Code, "error_description": e.Description})
}

func writeJWT(w http.ResponseWriter, typ, tok string, lifetime time.Duration) {
	w.Header().Set("Content-Type", "application/"+typ)
	w.Header().Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(min(lifetime, time.Hour).Seconds())))
	_, _ = w.Write([]byte(tok))
}

// WriteError writes an OpenID Federation error response (§8.9).
func WriteError(w http.ResponseWriter, status int, code, description string) {
	writeFedError(w, &fedError{status, code, description})
}

// WriteJWT writes a signed statement with its media type.
func WriteJWT(w http.ResponseWriter, typ, tok string, lifetime time.Duration) {
	writeJWT(w, typ, tok, lifetime)
}

// UnsupportedListFilter answers 400 unsupported_parameter and reports true
// when a list request uses a filter neither the anchor nor the directory
// supports (OpenID Federation 1.0, Subordinate Listing Request: refused,
// not ignored).
func UnsupportedListFilter(w http.ResponseWriter, q url.Values) bool {
	for _, p := range []string{"trust_marked", "trust_mark_type", "intermediate"} {
		if q.Has(p) {
			writeFedError(w, &fedError{http.StatusBadRequest, "unsupported_parameter", "the " + p + " filter is not supported"})
			return true
		}
	}
	return false
}

// CritNamesClaims reports a statement whose crit names extension claims:
// they must be understood, and neither resolver understands any (Entity
// Statement Validation).
func CritNamesClaims(claims map[string]any) bool {
	c, _ := claims["crit"].([]any)
	return len(c) > 0 || (claims["crit"] != nil && c == nil)
}

// IssuedBefore reports whether a statement has an iat no later than now,
// with ClockSkew of leeway.
func IssuedBefore(claims map[string]any, now time.Time) bool {
	i, ok := claims["iat"].(float64)
	return ok && int64(i) <= now.Add(ClockSkew).Unix()
}

// ClockSkew is the leeway allowed on a statement's iat.
const ClockSkew = time.Minute

// MisplacedClaim names a claim a statement of its kind must not carry, or
// returns "": an entity configuration carries no metadata_policy,
// metadata_policy_crit or constraints, a subordinate statement no
// authority_hints, trust_anchor_hints or trust mark claims (docs/design.md
// §13). Both resolvers refuse such a statement.
func MisplacedClaim(claims map[string]any, configuration bool) string {
	names := []string{"authority_hints", "trust_anchor_hints", "trust_marks", "trust_mark_issuers", "trust_mark_owners"}
	if configuration {
		names = []string{"metadata_policy", "metadata_policy_crit", "constraints"}
	}
	for _, n := range names {
		if _, ok := claims[n]; ok {
			return n
		}
	}
	return ""
}
