package anchor

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Error is a refusal answered as an OpenID Federation error response
// (§8.9): both anchors' requests and resolves end in one.
type Error struct {
	Status      int
	Code        string
	Description string
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

// Write answers the refusal.
func (e *Error) Write(w http.ResponseWriter) { writeFedError(w, e) }

func writeFedError(w http.ResponseWriter, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if e.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": e.Code, "error_description": e.Description})
}

// statementMaxAge is how long a shared cache may keep a signed answer
// (entity configuration, subordinate statement, resolve response): a
// withdrawn subject or a rotated configuration is served at most this
// long after the change. Every answer is signed afresh (its iat moves), so
// an ETag would change at every request and revalidation would save
// nothing (docs/decisions.md).
const statementMaxAge = time.Minute

func writeJWT(w http.ResponseWriter, typ, tok string, lifetime time.Duration) {
	w.Header().Set("Content-Type", "application/"+typ)
	w.Header().Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(min(lifetime, statementMaxAge).Seconds())))
	_, _ = w.Write([]byte(tok))
}

// WriteError writes an OpenID Federation error response (§8.9).
func WriteError(w http.ResponseWriter, status int, code, description string) {
	writeFedError(w, &Error{status, code, description})
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
			writeFedError(w, &Error{http.StatusBadRequest, "unsupported_parameter", "the " + p + " filter is not supported"})
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

// ConfigurationSyntax checks the claims only an entity configuration has
// (docs/design.md §13): authority_hints and trust_anchor_hints, when
// present, are non-empty arrays of entity IDs; trust_marks an array of
// objects whose trust_mark is a JWT naming the object's trust_mark_type.
// Neither resolver uses trust marks beyond this check; none is answered.
func ConfigurationSyntax(claims map[string]any) error {
	for _, n := range []string{"authority_hints", "trust_anchor_hints"} {
		v, ok := claims[n]
		if !ok {
			continue
		}
		l, isList := v.([]any)
		if !isList || len(l) == 0 {
			return fmt.Errorf("%s must be a non-empty array of entity IDs", n)
		}
		for _, x := range l {
			if s, isString := x.(string); !isString || s == "" {
				return fmt.Errorf("%s must be a non-empty array of entity IDs", n)
			}
		}
	}
	v, ok := claims["trust_marks"]
	if !ok {
		return nil
	}
	marks, isList := v.([]any)
	if !isList {
		return errors.New("trust_marks must be an array of trust mark objects")
	}
	for i, x := range marks {
		m, _ := x.(map[string]any)
		typ, _ := m["trust_mark_type"].(string)
		tok, _ := m["trust_mark"].(string)
		if typ == "" || tok == "" {
			return fmt.Errorf("trust_marks[%d] needs trust_mark_type and trust_mark strings", i)
		}
		jws, err := jose.ParseSignedCompact(tok, jwsAlgs)
		if err != nil {
			return fmt.Errorf("trust_marks[%d]: trust_mark is not a signed JWT", i)
		}
		var tm struct {
			Type string `json:"trust_mark_type"`
		}
		if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &tm); err != nil || tm.Type != typ {
			return fmt.Errorf("trust_marks[%d]: the trust mark's trust_mark_type is not %s", i, typ)
		}
	}
	return nil
}
