// Package anchor holds trustframe's two OpenID Federation trust anchors and
// the one resolver they share (docs/design.md §8 and §13): the standalone
// anchor of `trustframe anchor` (Anchor and its Server: a configuration
// file, entity configuration, fetch, list and resolve through
// intermediates) and the directory over its participants (Directory: its
// statements, list and resolve, answered by the directory's handlers). The
// Resolver fetches and verifies a chain within its budgets, applies the
// constraints and policies and signs the response; the error and statement
// writers are shared too. The rules it applies are in package federation.
package anchor

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/clientlimit"
	"github.com/trustframe/trustframe/federation"
	"go.yaml.in/yaml/v3"
)

// Config is the file of a standalone trust anchor (docs/design.md §8).
type Config struct {
	EntityID          string        `yaml:"entity_id"`
	OrganizationName  string        `yaml:"organization_name"`
	StatementLifetime string        `yaml:"statement_lifetime"`
	Keys              []KeyConfig   `yaml:"keys"`
	Subordinates      []Subordinate `yaml:"subordinates"`
}

// KeyConfig names a PEM private key and its JWS algorithm.
type KeyConfig struct {
	File string `yaml:"file"`
	Alg  string `yaml:"alg"`
}

// Subordinate is an entity the anchor makes statements about.
type Subordinate struct {
	EntityID       string         `yaml:"entity_id"`
	JWKSFile       string         `yaml:"jwks_file"`
	JWKS           map[string]any `yaml:"jwks"`
	JWKSURI        string         `yaml:"jwks_uri"`
	EntityTypes    []string       `yaml:"entity_types"`
	MetadataPolicy map[string]any `yaml:"metadata_policy"`
	Constraints    map[string]any `yaml:"constraints"`
	Metadata       map[string]any `yaml:"metadata"`

	jwks json.RawMessage // loaded from jwks or jwks_file
}

// Anchor is a loaded, checked configuration with its signing keys.
type Anchor struct {
	cfg      Config
	lifetime time.Duration
	signer   jose.Signer
	resolver jose.Signer
	jwks     jose.JSONWebKeySet
	subs     map[string]*Subordinate
}

// Load reads and checks the configuration file; every error names
// the file, and the key path or subordinate, and the reason.
func Load(path string) (*Anchor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var cfg Config
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a, err := newAnchor(cfg, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, err)
	}
	return a, nil
}

// newAnchor checks cfg, loads its signing keys and checks its
// subordinates; relative key and JWKS file names are read from dir, the
// directory of the configuration file.
func newAnchor(cfg Config, dir string) (*Anchor, error) {
	u, err := url.Parse(cfg.EntityID)
	if err != nil || u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("entity_id %q must be an https URL without query or fragment", cfg.EntityID)
	}
	a := &Anchor{cfg: cfg, lifetime: 24 * time.Hour, subs: map[string]*Subordinate{}}
	if cfg.StatementLifetime != "" {
		if a.lifetime, err = time.ParseDuration(cfg.StatementLifetime); err != nil || a.lifetime <= 0 {
			return nil, fmt.Errorf("statement_lifetime %q is not a positive duration like 24h", cfg.StatementLifetime)
		}
	}
	if err := a.loadKeys(dir); err != nil {
		return nil, err
	}
	for i := range cfg.Subordinates {
		s := &cfg.Subordinates[i]
		where := fmt.Sprintf("subordinates[%d] (%s)", i, s.EntityID)
		su, err := url.Parse(s.EntityID)
		if err != nil || su.Host == "" || (su.Scheme != "https" && !(su.Scheme == "http" && isLoopback(su.Hostname()))) {
			return nil, fmt.Errorf("%s: entity_id must be an https URL (http only on loopback)", where)
		}
		if _, dup := a.subs[s.EntityID]; dup {
			return nil, fmt.Errorf("%s: duplicate subordinate", where)
		}
		if err := checkSubordinate(s, dir); err != nil {
			return nil, fmt.Errorf("%s: %s", where, err)
		}
		a.subs[s.EntityID] = s
	}
	return a, nil
}

// loadKeys reads the anchor's private keys, publishes their public halves
// in its JWKS and makes the signers of the first one.
func (a *Anchor) loadKeys(dir string) error {
	if len(a.cfg.Keys) == 0 {
		return errors.New("keys: the anchor needs at least one signing key")
	}
	var signingKey jose.JSONWebKey
	for i, k := range a.cfg.Keys {
		kp := k.File
		if !filepath.IsAbs(kp) {
			kp = filepath.Join(dir, kp)
		}
		priv, err := loadPrivateKey(kp)
		if err != nil {
			return fmt.Errorf("keys[%d] %s: %v", i, kp, err)
		}
		if err := algFits(k.Alg, priv); err != nil {
			return fmt.Errorf("keys[%d] %s: %v", i, kp, err)
		}
		pub := jose.JSONWebKey{Key: priv.Public(), Algorithm: k.Alg, Use: "sig"}
		tp, err := pub.Thumbprint(crypto.SHA256)
		if err != nil {
			return fmt.Errorf("keys[%d] %s: %v", i, kp, err)
		}
		pub.KeyID = b64(tp)
		for j, prev := range a.jwks.Keys {
			if prev.KeyID == pub.KeyID {
				return fmt.Errorf("keys[%d] %s: the same key as keys[%d] (every kid in the published jwks must be unique)", i, kp, j)
			}
		}
		a.jwks.Keys = append(a.jwks.Keys, pub)
		if i == 0 {
			signingKey = jose.JSONWebKey{Key: priv, KeyID: pub.KeyID, Algorithm: k.Alg}
		}
	}
	var err error
	if a.signer, err = jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(signingKey.Algorithm), Key: signingKey},
		(&jose.SignerOptions{}).WithType("entity-statement+jwt")); err != nil {
		return fmt.Errorf("keys[0]: %v", err)
	}
	if a.resolver, err = jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(signingKey.Algorithm), Key: signingKey},
		(&jose.SignerOptions{}).WithType("resolve-response+jwt")); err != nil {
		return fmt.Errorf("keys[0]: %v", err)
	}
	return nil
}

// checkSubordinate loads a subordinate's JWKS (from exactly one source)
// and checks its metadata policy, constraints and metadata.
func checkSubordinate(s *Subordinate, dir string) error {
	sources := 0
	for _, set := range []bool{s.JWKSFile != "", s.JWKS != nil, s.JWKSURI != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return errors.New("give exactly one of jwks_file, jwks, jwks_uri")
	}
	switch {
	case s.JWKSFile != "":
		jp := s.JWKSFile
		if !filepath.IsAbs(jp) {
			jp = filepath.Join(dir, jp)
		}
		jb, err := os.ReadFile(jp)
		if err != nil {
			return fmt.Errorf("jwks_file %s: %v", jp, err)
		}
		if err := checkPublicJWKS(jb); err != nil {
			return fmt.Errorf("jwks_file %s: %v", jp, err)
		}
		s.jwks = jb
	case s.JWKS != nil:
		jb, _ := json.Marshal(s.JWKS)
		if err := checkPublicJWKS(jb); err != nil {
			return fmt.Errorf("jwks: %v", err)
		}
		s.jwks = jb
	}
	for etype, pol := range s.MetadataPolicy {
		pb, _ := json.Marshal(pol)
		for _, pe := range federation.ValidatePolicy(pb) {
			return fmt.Errorf("metadata_policy.%s.%s: %s", etype, pe.Parameter, pe.Message)
		}
	}
	// The constraints are checked here as a resolver checks them, so a
	// bad one stops the start rather than failing every resolve.
	c, err := federation.ParseConstraints(s.Constraints)
	if err != nil {
		return fmt.Errorf("constraints: %v", err)
	}
	if slices.Contains(c.AllowedEntityType, "federation_entity") {
		return errors.New("constraints: allowed_entity_types must not name federation_entity (it is always allowed)")
	}
	if err := federation.CheckMetadata(s.Metadata); err != nil {
		return err
	}
	return nil
}

func isLoopback(h string) bool { return h == "localhost" || h == "127.0.0.1" || h == "::1" }

func loadPrivateKey(path string) (crypto.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("not a PEM file")
	}
	var key any
	switch blk.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(blk.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(blk.Bytes)
	default:
		return nil, fmt.Errorf("PEM block %q is not a private key", blk.Type)
	}
	if err != nil {
		return nil, err
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("unsupported key type %T", key)
	}
	return s, nil
}

// algFits checks the JWS algorithm of a key.
func algFits(alg string, k crypto.Signer) error {
	switch key := k.(type) {
	case *rsa.PrivateKey:
		switch alg {
		case "PS256", "PS384", "PS512", "RS256", "RS384", "RS512":
			if key.N.BitLen() < 2048 {
				return errors.New("RSA keys need at least 2048 bits")
			}
			return nil
		}
	case *ecdsa.PrivateKey:
		if (alg == "ES256" && key.Curve == elliptic.P256()) || (alg == "ES384" && key.Curve == elliptic.P384()) {
			return nil
		}
	case ed25519.PrivateKey:
		if alg == "EdDSA" {
			return nil
		}
	}
	return fmt.Errorf("alg %q does not fit a %T (RSA: PS256/RS256…, EC P-256: ES256, P-384: ES384, Ed25519: EdDSA)", alg, k)
}

func checkPublicJWKS(b []byte) error {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		return fmt.Errorf("not a JWK set: %v", err)
	}
	if len(set.Keys) == 0 {
		return errors.New("the JWK set is empty")
	}
	seen := map[string]bool{}
	for _, k := range set.Keys {
		if !k.IsPublic() {
			return errors.New("the JWK set holds a private key")
		}
		// Statements name their signing key by kid, which must be unique
		// in the set (docs/design.md §13).
		if k.KeyID == "" {
			return errors.New("a key of the JWK set has no kid")
		}
		if seen[k.KeyID] {
			return fmt.Errorf("kid %q is in the JWK set twice", k.KeyID)
		}
		seen[k.KeyID] = true
	}
	return nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// signWith makes a statement JWT with the anchor's first key.
func (a *Anchor) signWith(s jose.Signer, claims map[string]any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := s.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// EntityConfiguration is the anchor's own statement.
func (a *Anchor) EntityConfiguration(now time.Time) (string, error) {
	id := strings.TrimRight(a.cfg.EntityID, "/")
	fe := map[string]any{
		"federation_fetch_endpoint":   id + "/fetch",
		"federation_list_endpoint":    id + "/list",
		"federation_resolve_endpoint": id + "/resolve",
	}
	if a.cfg.OrganizationName != "" {
		fe["organization_name"] = a.cfg.OrganizationName
	}
	return a.signWith(a.signer, map[string]any{
		"iss": a.cfg.EntityID, "sub": a.cfg.EntityID, "iat": now.Unix(), "exp": now.Add(a.lifetime).Unix(),
		"jwks": a.jwks, "metadata": map[string]any{"federation_entity": fe},
	})
}

// getFunc fetches a URL: its status and at most 512 KiB of its body
// (Resolver.fetch: within the address's budget).
type getFunc func(ctx context.Context, u string) (int, []byte, error)

func (a *Anchor) subordinateJWKS(ctx context.Context, s *Subordinate, get getFunc) (json.RawMessage, error) {
	if s.jwks != nil {
		return s.jwks, nil
	}
	code, b, err := get(ctx, s.JWKSURI)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("jwks_uri %s: HTTP %d", s.JWKSURI, code)
	}
	if len(b) > 256<<10 {
		return nil, fmt.Errorf("jwks_uri %s: larger than 256 KiB", s.JWKSURI)
	}
	if err := checkPublicJWKS(b); err != nil {
		return nil, fmt.Errorf("jwks_uri %s: %v", s.JWKSURI, err)
	}
	return b, nil
}

// SubordinateStatement is the statement about sub, signed.
func (a *Anchor) SubordinateStatement(ctx context.Context, sub string, now time.Time, get getFunc) (string, error) {
	claims, _, err := a.statementAbout(ctx, sub, now, get)
	if err != nil {
		return "", err
	}
	return a.signWith(a.signer, claims)
}

// statementAbout is the unsigned statement about sub and the keys it
// holds for sub (its jwks, or what its jwks_uri answers).
func (a *Anchor) statementAbout(ctx context.Context, sub string, now time.Time, get getFunc) (map[string]any, json.RawMessage, error) {
	s, ok := a.subs[sub]
	if !ok {
		return nil, nil, &Error{http.StatusNotFound, "not_found", "no subordinate " + sub}
	}
	jwks, err := a.subordinateJWKS(ctx, s, get)
	if budget := (ErrFetchBudget{}); errors.As(err, &budget) {
		return nil, nil, &Error{http.StatusServiceUnavailable, "temporarily_unavailable", "the keys of " + sub + " were " + err.Error()}
	}
	if err != nil {
		return nil, nil, &Error{http.StatusBadRequest, "invalid_subject", "no statement can be made about " + sub + ": its keys could not be read from its jwks_uri"}
	}
	claims := map[string]any{"iss": a.cfg.EntityID, "sub": sub, "iat": now.Unix(), "exp": now.Add(a.lifetime).Unix(), "jwks": json.RawMessage(jwks)}
	if len(s.MetadataPolicy) > 0 {
		claims["metadata_policy"] = s.MetadataPolicy
	}
	if len(s.Constraints) > 0 {
		claims["constraints"] = s.Constraints
	}
	if len(s.Metadata) > 0 {
		claims["metadata"] = s.Metadata
	}
	return claims, jwks, nil
}

// The anchor as the resolver sees it (trustAnchor).

func (a *Anchor) entityID() string                 { return a.cfg.EntityID }
func (a *Anchor) statementLifetime() time.Duration { return a.lifetime }

func (a *Anchor) intermediates() []string {
	ids := make([]string, 0, len(a.subs))
	for id := range a.subs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (a *Anchor) unknown(sub string) error {
	return &Error{http.StatusNotFound, "not_found", sub + " is neither a subordinate of this anchor nor one of its intermediates'"}
}

func (a *Anchor) configuration(_ context.Context, now time.Time) (string, error) {
	return a.EntityConfiguration(now)
}

func (a *Anchor) sign(_ context.Context, typ string, claims map[string]any) (string, error) {
	if typ == "resolve-response+jwt" {
		return a.signWith(a.resolver, claims)
	}
	return a.signWith(a.signer, claims)
}

// List is the entity ids of the subordinates of any of the given types.
func (a *Anchor) List(types []string) []string {
	out := []string{}
	for id, s := range a.subs {
		if len(types) == 0 {
			out = append(out, id)
			continue
		}
		for _, want := range types {
			if slices.Contains(s.EntityTypes, want) {
				out = append(out, id)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// fetchRequest reads a fetch request: sub, given once (of two, which one
// was meant is not the anchor's to guess), and not the anchor itself.
// Parameters fetch does not use (iss among them) are ignored (§8.1.1).
func fetchRequest(q url.Values, anchorID string) (string, *Error) {
	sub := q.Get("sub")
	if sub == "" || len(q["sub"]) > 1 {
		return "", &Error{http.StatusBadRequest, "invalid_request", "give sub once"}
	}
	if sub == anchorID {
		return "", &Error{http.StatusBadRequest, "invalid_request", "the anchor's own statement is at /.well-known/openid-federation"}
	}
	return sub, nil
}

// Server serves a trust anchor whose configuration can be replaced (SIGHUP).
type Server struct {
	mu       sync.RWMutex
	anchor   *Anchor
	Now      func() time.Time
	Resolver // subjects' statements, fetched within a budget

	resolves *clientlimit.InFlight // resolves under way (NewResolveBudget)
}

// NewServer serves an anchor.
func NewServer(a *Anchor) *Server {
	return &Server{anchor: a, Now: time.Now, Resolver: Resolver{Client: &http.Client{Timeout: 10 * time.Second}}, resolves: NewResolveBudget(0, 0)}
}

// Replace swaps in a newly loaded anchor.
func (s *Server) Replace(a *Anchor) {
	s.mu.Lock()
	s.anchor = a
	s.mu.Unlock()
}

func (s *Server) current() *Anchor {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.anchor
}

// ServeHTTP answers the federation endpoints. HEAD is GET's answer, whose
// body net/http drops (docs/design.md §4): nothing here writes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeFedError(w, &Error{http.StatusMethodNotAllowed, "invalid_request", "only GET and HEAD are served"})
		return
	}
	a := s.current()
	now := s.Now()
	q := r.URL.Query()
	switch r.URL.Path {
	case "/.well-known/openid-federation":
		tok, err := a.EntityConfiguration(now)
		if err != nil {
			writeFedError(w, &Error{http.StatusInternalServerError, "server_error", "the entity configuration could not be signed"})
			return
		}
		writeJWT(w, "entity-statement+jwt", tok, a.lifetime)
	case "/fetch":
		sub, fe := fetchRequest(q, a.cfg.EntityID)
		if fe != nil {
			writeFedError(w, fe)
			return
		}
		tok, err := a.SubordinateStatement(r.Context(), sub, now, s.fetch(now))
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				fe = &Error{http.StatusInternalServerError, "server_error", "the statement could not be signed"}
			}
			writeFedError(w, fe)
			return
		}
		writeJWT(w, "entity-statement+jwt", tok, a.lifetime)
	case "/list":
		// Filters this anchor does not support are refused, not ignored.
		if UnsupportedListFilter(w, q) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(a.List(q["entity_type"]))
	case "/resolve":
		client := clientlimit.Block(peer(r))
		if !s.resolves.Acquire(client) {
			WriteTooManyResolves(w)
			return
		}
		defer s.resolves.Release(client)
		sub, fe := resolveRequest(q, a.cfg.EntityID)
		if fe != nil {
			writeFedError(w, fe)
			return
		}
		tok, _, err := s.resolve(r.Context(), a, sub, q["entity_type"], now)
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				fe = &Error{http.StatusInternalServerError, "server_error", "the resolution failed"}
			}
			writeFedError(w, fe)
			return
		}
		writeJWT(w, "resolve-response+jwt", tok, a.lifetime)
	default:
		writeFedError(w, &Error{http.StatusNotFound, "not_found", "no endpoint " + r.URL.Path})
	}
}
