// Package dpop implements OAuth 2.0 Demonstrating Proof of Possession
// (RFC 9449): checking DPoP proofs at a token endpoint and a resource
// server, and making proofs for clients.
//
// Every rule of RFC 9449 §4.3 is its own check with its own Rule name, so a
// refused proof says exactly which rule it broke.
package dpop

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	_ "crypto/sha512" // SHA-384 and SHA-512 for ES384, PS512, …
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/formats"
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
	RuleHTU         = "htu"             // URI matches, query and fragment ignored
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

// parsedKey is a proof key with its thumbprint, cached by its JSON text:
// a client signs every proof with the same key.
type parsedKey struct {
	jwk        jose.JSONWebKey
	thumbprint string
}

type keyCacheT struct {
	mu  sync.Mutex
	max int
	m   map[string]*parsedKey
}

func newKeyCache(max int) *keyCacheT { return &keyCacheT{max: max, m: map[string]*parsedKey{}} }

func (c *keyCacheT) get(raw string) *parsedKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[raw]
}

func (c *keyCacheT) put(raw string, k *parsedKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m) // simple and bounded; the next proofs refill it
	}
	c.m[raw] = k
}

// parseKey checks a header jwk and returns it with its thumbprint.
func parseKey(rawJWK json.RawMessage, cache *keyCacheT) (*parsedKey, error) {
	if cache != nil {
		if k := cache.get(string(rawJWK)); k != nil {
			return k, nil
		}
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
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(rawJWK); err != nil {
		return nil, fail(RuleJWK, "jwk is not a usable key: %v", err)
	}
	if !jwk.IsPublic() || !jwk.Valid() {
		return nil, fail(RulePrivateKey, "jwk must be a public key")
	}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fail(RuleJWK, "no thumbprint for this key: %v", err)
	}
	k := &parsedKey{jwk: jwk, thumbprint: base64.RawURLEncoding.EncodeToString(tp)}
	if cache != nil {
		cache.put(string(rawJWK), k)
	}
	return k, nil
}

type proofHeader struct {
	Typ  *string         `json:"typ"`
	Alg  *string         `json:"alg"`
	JWK  json.RawMessage `json:"jwk"`
	X5C  json.RawMessage `json:"x5c"`
	Crit json.RawMessage `json:"crit"`
}

type proofClaims struct {
	JTI   *string         `json:"jti"`
	HTM   *string         `json:"htm"`
	HTU   *string         `json:"htu"`
	IAT   json.RawMessage `json:"iat"` // a JSON number; json.Number would take "123" too
	ATH   *string         `json:"ath"`
	Nonce *string         `json:"nonce"`
}

// Parse parses a proof and checks everything that does not depend on the
// request: form, typ, alg, public jwk, signature and required claims.
func Parse(raw string, algs []string) (*Proof, error) { return parse(raw, algs, nil) }

func parse(raw string, algs []string, cache *keyCacheT) (*Proof, error) {
	if len(raw) > 8192 {
		return nil, fail(RuleMalformed, "the proof is longer than 8192 bytes")
	}
	h64, rest, ok1 := strings.Cut(raw, ".")
	c64, s64, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || h64 == "" || c64 == "" || s64 == "" || strings.Contains(s64, ".") {
		return nil, fail(RuleMalformed, "not a compact JWS of three parts")
	}
	hb, err := base64.RawURLEncoding.DecodeString(h64)
	if err != nil {
		return nil, fail(RuleMalformed, "the header is not base64url")
	}
	var hdr proofHeader
	if _, deep := formats.JSONTooDeep(hb); deep {
		return nil, fail(RuleMalformed, "the header nests deeper than %d levels", formats.MaxJSONDepth)
	}
	if err := json.Unmarshal(hb, &hdr); err != nil {
		return nil, fail(RuleMalformed, "the header is not a JSON object")
	}
	if hdr.Typ == nil || *hdr.Typ != "dpop+jwt" {
		return nil, fail(RuleTyp, "typ must be dpop+jwt")
	}
	if hdr.Alg == nil || *hdr.Alg == "" {
		return nil, fail(RuleAlg, "alg is missing")
	}
	alg := *hdr.Alg
	if !contains(algs, alg) || !contains(DefaultAlgs, alg) {
		return nil, fail(RuleAlg, "alg %q is not an accepted asymmetric algorithm (%s)", alg, strings.Join(algs, " "))
	}
	if len(hdr.Crit) > 0 {
		return nil, fail(RuleMalformed, "crit header parameters are not understood here")
	}
	if len(hdr.X5C) > 0 {
		return nil, fail(RuleJWK, "x5c is not accepted in a proof; send the key as jwk")
	}
	if len(hdr.JWK) == 0 || string(hdr.JWK) == "null" {
		return nil, fail(RuleJWK, "the header has no jwk")
	}
	key, err := parseKey(hdr.JWK, cache)
	if err != nil {
		return nil, err
	}
	sig, err := base64.RawURLEncoding.DecodeString(s64)
	if err != nil {
		return nil, fail(RuleMalformed, "the signature is not base64url")
	}
	if err := verify(alg, key.jwk.Key, []byte(h64+"."+c64), sig); err != nil {
		return nil, err
	}
	payload, err := base64.RawURLEncoding.DecodeString(c64)
	if err != nil {
		return nil, fail(RuleMalformed, "the claims are not base64url")
	}
	var c proofClaims
	if _, deep := formats.JSONTooDeep(payload); deep {
		return nil, fail(RuleMalformed, "the claims nest deeper than %d levels", formats.MaxJSONDepth)
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return nil, fail(RuleMalformed, "the claims are not a JSON object")
	}
	if c.JTI == nil || *c.JTI == "" || c.HTM == nil || c.HTU == nil || len(c.IAT) == 0 || string(c.IAT) == "null" {
		return nil, fail(RuleClaims, "jti, htm, htu and iat are required")
	}
	if len(*c.JTI) > 256 {
		return nil, fail(RuleClaims, "jti is longer than 256 characters")
	}
	var iatNum json.Number
	if c.IAT[0] == '"' || json.Unmarshal(c.IAT, &iatNum) != nil {
		return nil, fail(RuleClaims, "iat must be a NumericDate (a JSON number)")
	}
	iat, err := iatNum.Float64()
	if err != nil || iat <= 0 || iat > 1e11 {
		return nil, fail(RuleClaims, "iat must be a NumericDate")
	}
	p := &Proof{Alg: alg, JWK: key.jwk, Thumbprint: key.thumbprint,
		JTI: *c.JTI, HTM: *c.HTM, HTU: *c.HTU, IAT: time.Unix(int64(iat), 0)}
	if c.ATH != nil {
		p.ATH = *c.ATH
	}
	if c.Nonce != nil {
		p.Nonce = *c.Nonce
	}
	return p, nil
}

// keyKind names a public key as its jwk does (kty, crv), for refusals.
func keyKind(key any) string {
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		return "an EC " + k.Curve.Params().Name + " key"
	case *rsa.PublicKey:
		return "an RSA key"
	case ed25519.PublicKey:
		return "an OKP Ed25519 key"
	default:
		return "the jwk's key"
	}
}

// verify checks a JWS signature with the key the alg calls for.
func verify(alg string, key any, input, sig []byte) error {
	bad := fail(RuleSignature, "the signature does not verify with the header's jwk")
	wrongKey := fail(RuleSignature, "alg %s does not fit %s", alg, keyKind(key))
	var h crypto.Hash
	switch alg[len(alg)-3:] {
	case "256":
		h = crypto.SHA256
	case "384":
		h = crypto.SHA384
	case "512":
		h = crypto.SHA512
	}
	digest := func() []byte {
		hh := h.New()
		hh.Write(input)
		return hh.Sum(nil)
	}
	switch {
	case alg == "EdDSA":
		k, ok := key.(ed25519.PublicKey)
		if !ok {
			return wrongKey
		}
		if !ed25519.Verify(k, input, sig) {
			return bad
		}
	case strings.HasPrefix(alg, "ES"):
		k, ok := key.(*ecdsa.PublicKey)
		if !ok {
			return wrongKey
		}
		size := (k.Curve.Params().BitSize + 7) / 8
		want := map[string]int{"ES256": 32, "ES384": 48, "ES512": 66}[alg]
		if size != want {
			return wrongKey
		}
		if len(sig) != 2*size {
			return bad
		}
		r := new(big.Int).SetBytes(sig[:size])
		s := new(big.Int).SetBytes(sig[size:])
		if !ecdsa.Verify(k, digest(), r, s) {
			return bad
		}
	case strings.HasPrefix(alg, "RS"):
		k, ok := key.(*rsa.PublicKey)
		if !ok {
			return wrongKey
		}
		if k.N.BitLen() < 2048 {
			return fail(RuleJWK, "RSA keys must have at least 2048 bits")
		}
		if rsa.VerifyPKCS1v15(k, h, digest(), sig) != nil {
			return bad
		}
	case strings.HasPrefix(alg, "PS"):
		k, ok := key.(*rsa.PublicKey)
		if !ok {
			return wrongKey
		}
		if k.N.BitLen() < 2048 {
			return fail(RuleJWK, "RSA keys must have at least 2048 bits")
		}
		if rsa.VerifyPSS(k, h, digest(), sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) != nil {
			return bad
		}
	default:
		return fail(RuleAlg, "alg %q is not supported", alg)
	}
	return nil
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
	// Replay remembers the proofs seen; nil: a ReplayCache in this process.
	// Several instances of one server share one (a table of the database),
	// so that a proof used on one is refused on all.
	Replay ReplayStore
	replay ReplayStore
	keys   *keyCacheT
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
		c.replay = c.Replay
		if c.replay == nil {
			c.replay = NewReplayCache(1_000_000, c.Now)
		}
		c.keys = newKeyCache(4096)
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
	p, err := parse(strings.TrimSpace(headers[0]), c.Algs, c.keys)
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
		return nil, fail(RuleIAT, "iat is more than %s in the past", spoken(c.Window))
	}
	if p.IAT.After(now.Add(c.Skew)) {
		return nil, fail(RuleIAT, "iat is more than %s in the future", spoken(c.Skew))
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
	fresh, err := c.replay.Add(p.Thumbprint+"|"+p.JTI, p.IAT.Add(c.Window+c.Skew))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReplayUnavailable, err)
	}
	if !fresh {
		return nil, fail(RuleReplay, "this proof (jti) was already used")
	}
	return p, nil
}

// matchHTU compares a proof's htu with the request URI, ignoring any query
// and fragment parts of either (RFC 9449 §4.3 (9)): scheme and host
// case-insensitive, default ports dropped, path compared after RFC 3986
// §6.2.2 normalisation (see NormalizeURI).
func matchHTU(htu, want string) error {
	u, err := url.Parse(htu)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fail(RuleHTU, "htu is not an absolute URI")
	}
	if u.User != nil {
		// Normalisation keeps user information, and the request URI has none.
		return fail(RuleHTU, "htu carries user information; the request URI has none")
	}
	w, err := url.Parse(want)
	if err != nil {
		return fail(RuleHTU, "the request URI cannot be parsed")
	}
	if NormalizeURI(u) != NormalizeURI(w) {
		return fail(RuleHTU, "htu %q does not match the request URI %q", NormalizeURI(u), NormalizeURI(w))
	}
	return nil
}

// NormalizeURI is scheme://host[:port]/path with the normalisations of
// RFC 3986 §6.2.2 and §6.2.3 that RFC 9449 §4.3 asks for: lower-case scheme
// and host, default port dropped, empty path as "/", percent-encodings of
// unreserved characters decoded and the others' hex digits in upper case;
// no query or fragment. Dot segments are kept (docs/decisions.md: the router
// does not remove them either, so a path with them names what it routes to).
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
	path := normalizePercent(u.EscapedPath())
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path
}

// normalizePercent decodes the percent-encoded unreserved characters of an
// escaped path and writes the hex digits of the other escapes in upper case
// (RFC 3986 §6.2.2.1, §6.2.2.2).
func normalizePercent(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	const hexUpper = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+2 >= len(p) {
			b.WriteByte(p[i])
			continue
		}
		hi, lo := unhex(p[i+1]), unhex(p[i+2])
		if hi < 0 || lo < 0 {
			b.WriteByte(p[i])
			continue
		}
		c := byte(hi<<4 | lo)
		if unreserved(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hexUpper[hi])
			b.WriteByte(hexUpper[lo])
		}
		i += 2
	}
	return b.String()
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// unreserved is RFC 3986 §2.3's ALPHA / DIGIT / "-" / "." / "_" / "~".
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// ReplayStore remembers proof identifiers until they expire. Add records
// key until exp and reports false when key is already live (a replay); an
// error when it cannot record it now (a full cache, a database that does
// not answer): the proof then cannot be accepted safely, but it is not a
// replay, and the client may try again.
type ReplayStore interface {
	Add(key string, exp time.Time) (bool, error)
}

// ErrReplayUnavailable: a proof could not be checked against the proofs
// already seen (Check wraps the ReplayStore's error with it). Not the
// client's fault: answered 503 with Retry-After, not 401.
var ErrReplayUnavailable = errors.New("dpop: the proofs already seen cannot be checked now")

// errReplayFull: a ReplayCache full of live entries.
var errReplayFull = errors.New("the replay cache is full of live proofs")

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

// Add records key until exp; false when key is already live, an error when
// the cache is full of live entries (a proof then cannot be accepted safely).
func (c *ReplayCache) Add(key string, exp time.Time) (bool, error) {
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
		return false, nil
	}
	if len(c.entries) >= c.max {
		return false, errReplayFull
	}
	c.entries[key] = exp
	return true, nil
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
	return NewNoncesWithKey(k, lifetime, now)
}

// NewNoncesWithKey makes a nonce source with key: instances that share the
// key accept each other's nonces.
func NewNoncesWithKey(key []byte, lifetime time.Duration, now func() time.Time) *Nonces {
	if now == nil {
		now = time.Now
	}
	return &Nonces{key: append([]byte(nil), key...), Lifetime: lifetime, Now: now}
}

// SetKey replaces the key (before any nonce is made or checked: it is not
// safe while requests are served).
func (n *Nonces) SetKey(key []byte) { n.key = append([]byte(nil), key...) }

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

// spoken says a window as a person would ("1 minute", "5 seconds"), not
// as Go prints it ("1m0s").
func spoken(d time.Duration) string {
	unit, n := "", int64(0)
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		unit, n = "minute", int64(d/time.Minute)
	case d >= time.Second && d%time.Second == 0:
		unit, n = "second", int64(d/time.Second)
	default:
		return d.String()
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", n, unit)
}
