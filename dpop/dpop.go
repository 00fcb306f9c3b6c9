// Package dpop implements OAuth 2.0 Demonstrating Proof of Possession
// (RFC 9449): checking DPoP proofs at a token endpoint and a resource
// server, and making proofs for clients.
//
// Every rule of RFC 9449 §4.3 is its own check with its own Rule name, so a
// refused proof says exactly which rule it broke.
package dpop

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// DefaultAlgs are the asymmetric JWS algorithms accepted for proofs.
var DefaultAlgs = []string{"ES256", "ES384", "ES512", "EdDSA", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512"}

// Rule names, reported in errors.
const (
	RuleHeaderCount = "single_proof"    // exactly one DPoP header
	RuleMalformed   = "well_formed_jwt" // a compact JWS with JSON header and claims
	RuleTyp         = "typ"             // typ is dpop+jwt
	RuleAlg         = "alg"             // asymmetric, on the allow-list
	RuleJWK         = "jwk"             // a public key in the header
	RulePrivateKey  = "jwk_public_only" // no private members in jwk
	RuleSignature   = "signature"       // verifies with jwk
	RuleClaims      = "required_claims" // jti, htm, htu, iat present
	RuleHTM         = "htm"             // method matches
	RuleHTU         = "htu"             // URI matches, no query or fragment
	RuleIAT         = "iat"             // within the window
	RuleNonce       = "nonce"           // the server's nonce
	RuleATH         = "ath"             // hash of the access token
	RuleBinding     = "cnf_jkt"         // key thumbprint = token's cnf.jkt
	RuleReplay      = "jti_replay"      // jti not seen in the window
)

// Error is a refused proof.
type Error struct {
	Rule     string
	Message  string
	UseNonce bool // the client must retry with the nonce in DPoP-Nonce
}

func (e *Error) Error() string { return "dpop: " + e.Rule + ": " + e.Message }

func fail(rule, format string, args ...any) *Error {
	return &Error{Rule: rule, Message: fmt.Sprintf(format, args...)}
}

// Proof is a parsed, signature-checked proof.
type Proof struct {
	Alg        string
	JWK        jose.JSONWebKey
	Thumbprint string // RFC 7638, base64url SHA-256
	JTI        string
	HTM        string
	HTU        string
	IAT        time.Time
	ATH        string
	Nonce      string
}

var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "k", "oth", "priv"}

// Parse parses a proof and checks everything that does not depend on the
// request: form, typ, alg, public jwk, signature and required claims.
func Parse(raw string, algs []string) (*Proof, error) {
	if len(raw) > 8192 {
		return nil, fail(RuleMalformed, "the proof is longer than 8192 bytes")
	}
	parts := strings.Split(raw, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return nil, fail(RuleMalformed, "not a compact JWS of three parts")
	}
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, fail(RuleMalformed, "the header is not base64url")
	}
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(hb, &hdr); err != nil {
		return nil, fail(RuleMalformed, "the header is not a JSON object")
	}
	var typ, alg string
	if err := json.Unmarshal(hdr["typ"], &typ); err != nil || typ != "dpop+jwt" {
		return nil, fail(RuleTyp, "typ must be dpop+jwt")
	}
	if err := json.Unmarshal(hdr["alg"], &alg); err != nil || alg == "" {
		return nil, fail(RuleAlg, "alg is missing")
	}
	if !contains(algs, alg) {
		return nil, fail(RuleAlg, "alg %q is not an accepted asymmetric algorithm (%s)", alg, strings.Join(algs, " "))
	}
	rawJWK, ok := hdr["jwk"]
	if !ok {
		return nil, fail(RuleJWK, "the header has no jwk")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(rawJWK, &members); err != nil {
		return nil, fail(RuleJWK, "jwk is not a JSON object")
	}
	for _, m := range privateMembers {
		if _, ok := members[m]; ok {
			return nil, fail(RulePrivateKey, "jwk holds the private member %q", m)
		}
	}
	if _, ok := hdr["x5c"]; ok {
		return nil, fail(RuleJWK, "x5c is not accepted in a proof; send the key as jwk")
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(rawJWK); err != nil {
		return nil, fail(RuleJWK, "jwk is not a usable key: %v", err)
	}
	if !jwk.IsPublic() || !jwk.Valid() {
		return nil, fail(RulePrivateKey, "jwk must be a public key")
	}
	jws, err := jose.ParseSignedCompact(raw, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)})
	if err != nil {
		return nil, fail(RuleMalformed, "not a valid JWS: %v", err)
	}
	payload, err := jws.Verify(jwk.Key)
	if err != nil {
		return nil, fail(RuleSignature, "the signature does not verify with the header's jwk")
	}
	var c struct {
		JTI   *string      `json:"jti"`
		HTM   *string      `json:"htm"`
		HTU   *string      `json:"htu"`
		IAT   *json.Number `json:"iat"`
		ATH   *string      `json:"ath"`
		Nonce *string      `json:"nonce"`
	}
	dec := json.NewDecoder(strings.NewReader(string(payload)))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return nil, fail(RuleMalformed, "the claims are not a JSON object")
	}
	if c.JTI == nil || *c.JTI == "" || c.HTM == nil || c.HTU == nil || c.IAT == nil {
		return nil, fail(RuleClaims, "jti, htm, htu and iat are required")
	}
	if len(*c.JTI) > 256 {
		return nil, fail(RuleClaims, "jti is longer than 256 characters")
	}
	iat, err := c.IAT.Float64()
	if err != nil || iat <= 0 || iat > 1e11 {
		return nil, fail(RuleClaims, "iat must be a NumericDate")
	}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fail(RuleJWK, "no thumbprint for this key: %v", err)
	}
	p := &Proof{Alg: alg, JWK: jwk, Thumbprint: base64.RawURLEncoding.EncodeToString(tp),
		JTI: *c.JTI, HTM: *c.HTM, HTU: *c.HTU, IAT: time.Unix(int64(iat), 0)}
	if c.ATH != nil {
		p.ATH = *c.ATH
	}
	if c.Nonce != nil {
		p.Nonce = *c.Nonce
	}
	return p, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Checker checks proofs against requests.
type Checker struct {
	Algs   []string         // default DefaultAlgs
	Window time.Duration    // how old a proof may be; default 60 s
	Skew   time.Duration    // how far in the future iat may be; default 5 s
	Now    func() time.Time // default time.Now
	Nonces *Nonces          // nil: no server nonces
	replay *ReplayCache
	once   sync.Once
}

func (c *Checker) init() {
	c.once.Do(func() {
		if len(c.Algs) == 0 {
			c.Algs = DefaultAlgs
		}
		if c.Window == 0 {
			c.Window = 60 * time.Second
		}
		if c.Skew == 0 {
			c.Skew = 5 * time.Second
		}
		if c.Now == nil {
			c.Now = time.Now
		}
		c.replay = NewReplayCache(1_000_000, c.Now)
	})
}

// AlgList is the algs parameter of a WWW-Authenticate challenge.
func (c *Checker) AlgList() string {
	c.init()
	return strings.Join(c.Algs, " ")
}

// Request is what a proof is checked against.
type Request struct {
	Method      string
	URL         string // the target URI computed from the public base URL
	AccessToken string // when set, ath must match it
	JKT         string // when set, the proof's key thumbprint must equal it
}

// Check checks the DPoP header values of a request. The jti is recorded only
// when every other rule holds.
func (c *Checker) Check(headers []string, req Request) (*Proof, error) {
	c.init()
	if len(headers) != 1 {
		return nil, fail(RuleHeaderCount, "exactly one DPoP header is required, got %d", len(headers))
	}
	if strings.Contains(headers[0], ",") {
		return nil, fail(RuleHeaderCount, "exactly one proof is required")
	}
	p, err := Parse(strings.TrimSpace(headers[0]), c.Algs)
	if err != nil {
		return nil, err
	}
	if p.HTM != req.Method {
		return nil, fail(RuleHTM, "htm %q does not match the method %s", p.HTM, req.Method)
	}
	if err := matchHTU(p.HTU, req.URL); err != nil {
		return nil, err
	}
	if c.Nonces != nil {
		if p.Nonce == "" {
			return nil, &Error{Rule: RuleNonce, Message: "the server requires a nonce (see DPoP-Nonce)", UseNonce: true}
		}
		if !c.Nonces.Valid(p.Nonce) {
			return nil, &Error{Rule: RuleNonce, Message: "the nonce is unknown or stale (see DPoP-Nonce)", UseNonce: true}
		}
	}
	now := c.Now()
	if p.IAT.Before(now.Add(-c.Window)) {
		return nil, fail(RuleIAT, "iat is more than %s in the past", c.Window)
	}
	if p.IAT.After(now.Add(c.Skew)) {
		return nil, fail(RuleIAT, "iat is more than %s in the future", c.Skew)
	}
	if req.AccessToken != "" {
		if p.ATH == "" {
			return nil, fail(RuleATH, "ath is required with an access token")
		}
		sum := sha256.Sum256([]byte(req.AccessToken))
		if !hmac.Equal([]byte(p.ATH), []byte(base64.RawURLEncoding.EncodeToString(sum[:]))) {
			return nil, fail(RuleATH, "ath does not match the access token")
		}
	}
	if req.JKT != "" && !hmac.Equal([]byte(p.Thumbprint), []byte(req.JKT)) {
		return nil, fail(RuleBinding, "the proof's key is not the key the token is bound to")
	}
	if !c.replay.Add(p.Thumbprint+"|"+p.JTI, p.IAT.Add(c.Window+c.Skew)) {
		return nil, fail(RuleReplay, "this proof (jti) was already used")
	}
	return p, nil
}

// matchHTU compares a proof's htu with the request URI: scheme and host
// case-insensitive, default ports dropped, path exact; a query or fragment
// in htu is refused.
func matchHTU(htu, want string) error {
	u, err := url.Parse(htu)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fail(RuleHTU, "htu is not an absolute URI")
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(htu, "?#") {
		return fail(RuleHTU, "htu must not have a query or fragment")
	}
	w, err := url.Parse(want)
	if err != nil {
		return fail(RuleHTU, "the request URI cannot be parsed")
	}
	if NormalizeURI(u) != NormalizeURI(w) {
		return fail(RuleHTU, "htu %q does not match the request URI %q", htu, NormalizeURI(w))
	}
	return nil
}

// NormalizeURI is scheme://host[:port]/path, lower-case scheme and host,
// default port dropped, no query or fragment (RFC 9449 §4.3 and RFC 3986 §6).
func NormalizeURI(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path
}

// ReplayCache remembers proof identifiers until they expire, with a bound
// on the number of entries.
type ReplayCache struct {
	mu      sync.Mutex
	max     int
	now     func() time.Time
	entries map[string]time.Time
	sweep   time.Time
}

// NewReplayCache makes a cache of at most max live entries.
func NewReplayCache(max int, now func() time.Time) *ReplayCache {
	return &ReplayCache{max: max, now: now, entries: map[string]time.Time{}}
}

// Add records key until exp; false when key is already live or the cache is
// full of live entries (a proof then cannot be accepted safely).
func (c *ReplayCache) Add(key string, exp time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if now.Sub(c.sweep) > 10*time.Second || len(c.entries) >= c.max {
		for k, e := range c.entries {
			if !e.After(now) {
				delete(c.entries, k)
			}
		}
		c.sweep = now
	}
	if e, ok := c.entries[key]; ok && e.After(now) {
		return false
	}
	if len(c.entries) >= c.max {
		return false
	}
	c.entries[key] = exp
	return true
}

// Len is the number of entries held.
func (c *ReplayCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Nonces makes and checks stateless server nonces: a timestamp and its
// HMAC. A nonce is valid for Lifetime after it was made.
type Nonces struct {
	key      []byte
	Lifetime time.Duration
	Now      func() time.Time
}

// NewNonces makes a nonce source with a random key.
func NewNonces(lifetime time.Duration, now func() time.Time) *Nonces {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	if now == nil {
		now = time.Now
	}
	return &Nonces{key: k, Lifetime: lifetime, Now: now}
}

// New returns a fresh nonce.
func (n *Nonces) New() string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n.Now().Unix()))
	m := hmac.New(sha256.New, n.key)
	m.Write(b[:])
	return base64.RawURLEncoding.EncodeToString(append(b[:], m.Sum(nil)[:16]...))
}

// Valid reports whether nonce was made here and is not stale.
func (n *Nonces) Valid(nonce string) bool {
	b, err := base64.RawURLEncoding.DecodeString(nonce)
	if err != nil || len(b) != 24 {
		return false
	}
	m := hmac.New(sha256.New, n.key)
	m.Write(b[:8])
	if !hmac.Equal(m.Sum(nil)[:16], b[8:]) {
		return false
	}
	t := time.Unix(int64(binary.BigEndian.Uint64(b[:8])), 0)
	now := n.Now()
	return !t.After(now.Add(5*time.Second)) && now.Sub(t) <= n.Lifetime
}

// ErrNoProof is returned by helpers when a request carries no proof.
var ErrNoProof = errors.New("dpop: no proof")
