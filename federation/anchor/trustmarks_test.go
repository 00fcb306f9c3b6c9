package anchor

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/store"
)

// fakeMarks is an in-memory directory.TrustMarkStore: types by id, who is
// entitled to each (the test sets it), and the marks recorded.
type fakeMarks struct {
	mu       sync.Mutex
	types    map[string]directory.TrustMarkType
	entitled map[string][]directory.Entitlement // type id → entitlements now
	issued   []directory.IssuedTrustMark
}

func (f *fakeMarks) ListTrustMarkTypes(context.Context) ([]directory.TrustMarkType, error) {
	var out []directory.TrustMarkType
	for _, t := range f.types {
		out = append(out, t)
	}
	return out, nil
}

func (f *fakeMarks) GetTrustMarkType(_ context.Context, id string) (directory.TrustMarkType, error) {
	if t, ok := f.types[id]; ok {
		return t, nil
	}
	return directory.TrustMarkType{}, directory.ErrNotFound
}

func (f *fakeMarks) TrustMarkTypeByURL(_ context.Context, u string) (directory.TrustMarkType, error) {
	for _, t := range f.types {
		if t.TrustMarkType == u {
			return t, nil
		}
	}
	return directory.TrustMarkType{}, directory.ErrNotFound
}

func (f *fakeMarks) CreateTrustMarkType(context.Context, directory.Actor, directory.TrustMarkType, directory.Fields) (directory.TrustMarkType, error) {
	return directory.TrustMarkType{}, errors.New("not in this fake")
}

func (f *fakeMarks) UpdateTrustMarkType(context.Context, directory.Actor, directory.TrustMarkType, directory.Fields, directory.Check[directory.TrustMarkType]) (directory.TrustMarkType, error) {
	return directory.TrustMarkType{}, errors.New("not in this fake")
}

func (f *fakeMarks) Entitled(_ context.Context, t directory.TrustMarkType, sub string, _ time.Time) ([]directory.Entitlement, error) {
	var out []directory.Entitlement
	for _, e := range f.entitled[t.ID] {
		if sub == "" || e.Subject == sub {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f *fakeMarks) RecordTrustMark(_ context.Context, m directory.IssuedTrustMark) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.issued = append(f.issued, m)
	return nil
}

func (f *fakeMarks) LatestTrustMark(_ context.Context, typeID, sub string) (directory.IssuedTrustMark, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.issued) - 1; i >= 0; i-- {
		if m := f.issued[i]; m.TypeID == typeID && m.Subject == sub && m.RevokedAt == nil {
			return m, nil
		}
	}
	return directory.IssuedTrustMark{}, directory.ErrNotFound
}

func (f *fakeMarks) TrustMarkByJTI(_ context.Context, jti string) (directory.IssuedTrustMark, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.issued {
		if m.JTI == jti {
			return m, nil
		}
	}
	return directory.IssuedTrustMark{}, directory.ErrNotFound
}

// revoke revokes every recorded mark of sub at at, as the store does
// when an entitlement lapses.
func (f *fakeMarks) revoke(sub string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.issued {
		if f.issued[i].Subject == sub && f.issued[i].RevokedAt == nil {
			f.issued[i].RevokedAt = &at
		}
	}
}

// revokeMark revokes the recorded mark tok at at.
func (f *fakeMarks) revokeMark(tok string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.issued {
		if f.issued[i].JWT == tok {
			f.issued[i].RevokedAt = &at
		}
	}
}

// fakeSubjects is a DirectoryStore of the given leaves, each an
// application of its own organisation.
type fakeSubjects struct{ leaves []*entity }

func (f fakeSubjects) DirectoryVersion() int64 { return 1 }

func (f fakeSubjects) FederationSubjectByEntityID(_ context.Context, id string) (store.FederationSubject, error) {
	for _, e := range f.leaves {
		if e.id() == id {
			return store.FederationSubject{EntityID: id, Kind: "Application", ID: "app-" + id, OrganisationID: "org-" + id, OrganisationName: "Org"}, nil
		}
	}
	return store.FederationSubject{}, store.ErrNotFound
}

func (f fakeSubjects) FederationSubjects(ctx context.Context) ([]store.FederationSubject, error) {
	var out []store.FederationSubject
	for _, e := range f.leaves {
		s, _ := f.FederationSubjectByEntityID(ctx, e.id())
		out = append(out, s)
	}
	return out, nil
}

func (f fakeSubjects) FederationSigningKeys(_ context.Context, orgID string) ([]json.RawMessage, error) {
	for _, e := range f.leaves {
		if "org-"+e.id() == orgID {
			var set struct{ Keys []json.RawMessage }
			_ = json.Unmarshal(e.jwks(), &set)
			return set.Keys, nil
		}
	}
	return nil, nil
}

func (f fakeSubjects) OrganisationsWithSigningKeys(context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	for _, e := range f.leaves {
		out["org-"+e.id()] = true
	}
	return out, nil
}

func (f fakeSubjects) FederationPolicies(context.Context, string) ([]store.HeldPolicy, error) {
	return nil, nil
}

type plainSealer struct{}

func (plainSealer) Seal(p, _ []byte) []byte          { return append([]byte{}, p...) }
func (plainSealer) Open(s, _ []byte) ([]byte, error) { return append([]byte{}, s...), nil }

const (
	dirID    = "http://127.0.0.1:8093"
	roleType = dirID + "/trust-marks/account-information"
	certType = dirID + "/trust-marks/security-profile"
	offType  = dirID + "/trust-marks/retired-scheme"
)

// markEnv is a directory issuing three trust mark types (a Role type with
// a logo and a ref, a Certification type, and an Inactive one) with its
// own federation keyring on a real store, over the given leaves.
type markEnv struct {
	d     *Directory
	marks *fakeMarks
	kr    *federation.Keyring
}

func newMarkEnv(t *testing.T, leaves ...*entity) *markEnv {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "keys.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	kr, err := federation.OpenKeyring(ctx, db, plainSealer{}, "ES256", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	marks := &fakeMarks{types: map[string]directory.TrustMarkType{
		"t-role": {ID: "t-role", TrustMarkType: roleType, Name: "Account information", Basis: directory.TrustMarkBasisRole,
			Lifetime: "10h", LogoURI: "https://logo.example.com/ais.svg", Ref: "https://rules.example.com/ais", Status: "Active"},
		"t-cert": {ID: "t-cert", TrustMarkType: certType, Name: "Security profile", Basis: directory.TrustMarkBasisCertification, Lifetime: "720h", Status: "Active"},
		"t-off":  {ID: "t-off", TrustMarkType: offType, Name: "Retired scheme", Basis: directory.TrustMarkBasisRole, Lifetime: "24h", Status: "Inactive"},
	}, entitled: map[string][]directory.Entitlement{}}
	d := &Directory{Store: fakeSubjects{leaves}, TrustMarks: marks, Keys: kr, EntityID: dirID, Resolver: Resolver{Client: http.DefaultClient}}
	return &markEnv{d: d, marks: marks, kr: kr}
}

// entitle makes sub entitled to the type now, until until (zero: no end).
func (e *markEnv) entitle(typeID, sub string, until time.Time) {
	e.marks.entitled[typeID] = append(e.marks.entitled[typeID], directory.Entitlement{Subject: sub, Kind: "Application", ID: "app-" + sub, Until: until})
}

// published is the directory's published JWKS, read from its entity
// configuration as a relying party reads it.
func (e *markEnv) published(t *testing.T) jose.JSONWebKeySet {
	t.Helper()
	ec, err := e.d.EntityConfiguration(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	jws, _ := jose.ParseSignedCompact(ec, jwsAlgs)
	var c struct{ JWKS jose.JSONWebKeySet }
	_ = json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c)
	return c.JWKS
}

// currentKid is the kid of the key that signs now.
func (e *markEnv) currentKid(t *testing.T) string {
	t.Helper()
	kid, err := e.d.currentKid(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return kid
}

func (e *markEnv) issue(t *testing.T, typ, sub string, now time.Time) string {
	t.Helper()
	tok, err := e.d.IssueTrustMark(context.Background(), url.Values{"trust_mark_type": {typ}, "sub": {sub}}, now)
	if err != nil {
		t.Fatalf("issue %s to %s: %v", typ, sub, err)
	}
	return tok
}

// checkJWT verifies tok as a relying party does: typ, kid naming a key of
// keys (the published JWKS), the signature; it answers the claims.
func checkJWT(t *testing.T, tok, typ, kid string, keys jose.JSONWebKeySet) map[string]any {
	t.Helper()
	jws, err := jose.ParseSignedCompact(tok, jwsAlgs)
	if err != nil {
		t.Fatal(err)
	}
	h := jws.Signatures[0].Header
	if got, _ := h.ExtraHeaders[jose.HeaderType].(string); got != typ {
		t.Fatalf("typ %q, want %s", got, typ)
	}
	if h.KeyID != kid {
		t.Fatalf("kid %q, want the current federation key %s", h.KeyID, kid)
	}
	ks := keys.Key(kid)
	if len(ks) != 1 {
		t.Fatalf("kid %q is not in the published jwks", kid)
	}
	payload, err := jws.Verify(ks[0])
	if err != nil {
		t.Fatalf("the signature does not verify with the published key: %v", err)
	}
	var c map[string]any
	_ = json.Unmarshal(payload, &c)
	return c
}

func refusal(t *testing.T, err error, status int, code string) {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) || fe.Status != status || fe.Code != code {
		t.Fatalf("got %v, want %d %s", err, status, code)
	}
}

// TestTrustMarkIssued: a trust-mark+jwt signed with the current federation
// key (checked against the published JWKS), naming the directory, the
// subject and the type, exp the type's lifetime from iat, a jti, the
// type's logo_uri and ref; the mark is recorded as issued.
func TestTrustMarkIssued(t *testing.T) {
	e := newMarkEnv(t)
	const sub = "https://rp.example.com"
	e.entitle("t-role", sub, time.Time{})
	now := time.Now()
	tok := e.issue(t, roleType, sub, now)
	c := checkJWT(t, tok, TrustMarkTyp, e.currentKid(t), e.published(t))
	want := map[string]any{"iss": dirID, "sub": sub, "trust_mark_type": roleType, "iat": float64(now.Unix()),
		"exp": float64(now.Add(10 * time.Hour).Unix()), "logo_uri": "https://logo.example.com/ais.svg", "ref": "https://rules.example.com/ais"}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %v, want %v", k, c[k], v)
		}
	}
	jti, _ := c["jti"].(string)
	if len(jti) < 16 {
		t.Fatalf("jti %q", jti)
	}
	m, err := e.marks.TrustMarkByJTI(context.Background(), jti)
	if err != nil || m.TypeID != "t-role" || m.Subject != sub || m.JWT != tok || m.IssuedAt.Unix() != now.Unix() || m.ExpiresAt.Unix() != now.Add(10*time.Hour).Unix() {
		t.Fatalf("recorded %+v %v", m, err)
	}
	// Without logo and ref, the claims are absent.
	e.entitle("t-cert", sub, time.Time{})
	c = checkJWT(t, e.issue(t, certType, sub, now), TrustMarkTyp, e.currentKid(t), e.published(t))
	if _, ok := c["logo_uri"]; ok {
		t.Errorf("logo_uri without a logo: %v", c)
	}
	if _, ok := c["ref"]; ok {
		t.Errorf("ref without one: %v", c)
	}
}

// TestTrustMarkExpiresWithTheCertification: a certification ending before
// the lifetime does caps exp at the end of its last day.
func TestTrustMarkExpiresWithTheCertification(t *testing.T) {
	e := newMarkEnv(t)
	const sub = "https://op.example.com"
	now := time.Now()
	until := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 3) // 720h is 30 days
	e.entitle("t-cert", sub, until)
	c := checkJWT(t, e.issue(t, certType, sub, now), TrustMarkTyp, e.currentKid(t), e.published(t))
	if c["exp"] != float64(until.Unix()) {
		t.Fatalf("exp %v, want the certification's end %d", c["exp"], until.Unix())
	}
	if m := e.marks.issued[0]; !m.ExpiresAt.Equal(until) {
		t.Fatalf("recorded exp %v, want %v", m.ExpiresAt, until)
	}
	// An end after the lifetime leaves exp at iat + lifetime.
	e2 := newMarkEnv(t)
	e2.entitle("t-role", sub, now.AddDate(1, 0, 0))
	if c := checkJWT(t, e2.issue(t, roleType, sub, now), TrustMarkTyp, e2.currentKid(t), e2.published(t)); c["exp"] != float64(now.Add(10*time.Hour).Unix()) {
		t.Fatalf("exp %v, want iat + 10h", c["exp"])
	}
}

// TestTrustMarkNotIssued: a subject not entitled or unknown, a type
// unknown or Inactive is 404 not_found and records nothing; a request
// without both parameters 400 invalid_request.
func TestTrustMarkNotIssued(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp.example.com", time.Time{})
	e.entitle("t-off", "https://rp.example.com", time.Time{})
	for name, q := range map[string]url.Values{
		"not entitled":  {"trust_mark_type": {certType}, "sub": {"https://rp.example.com"}},
		"unknown sub":   {"trust_mark_type": {roleType}, "sub": {"https://nobody.example.com"}},
		"unknown type":  {"trust_mark_type": {dirID + "/trust-marks/nothing"}, "sub": {"https://rp.example.com"}},
		"Inactive type": {"trust_mark_type": {offType}, "sub": {"https://rp.example.com"}},
	} {
		_, err := e.d.IssueTrustMark(context.Background(), q, time.Now())
		refusal(t, err, 404, "not_found")
		if len(e.marks.issued) != 0 {
			t.Fatalf("%s: recorded %v", name, e.marks.issued)
		}
	}
	for _, q := range []url.Values{{"sub": {"https://rp.example.com"}}, {"trust_mark_type": {roleType}},
		{"trust_mark_type": {roleType}, "sub": {"https://rp.example.com", "https://rp.example.com"}}} {
		_, err := e.d.IssueTrustMark(context.Background(), q, time.Now())
		refusal(t, err, 400, "invalid_request")
	}
}

// TestTrustMarkReusedWithinATenthOfItsLifetime: a repeat request within a
// tenth of the lifetime (10h: 1h) answers the same mark; past it, or once
// the mark is revoked, or after a key rotation, a new one.
func TestTrustMarkReusedWithinATenthOfItsLifetime(t *testing.T) {
	e := newMarkEnv(t)
	const sub = "https://rp.example.com"
	e.entitle("t-role", sub, time.Time{})
	now := time.Now()
	first := e.issue(t, roleType, sub, now)
	if again := e.issue(t, roleType, sub, now.Add(59*time.Minute)); again != first {
		t.Fatal("a repeat within a tenth of the lifetime got a new mark")
	}
	if len(e.marks.issued) != 1 {
		t.Fatalf("recorded %d marks, want 1", len(e.marks.issued))
	}
	later := e.issue(t, roleType, sub, now.Add(time.Hour))
	if later == first || len(e.marks.issued) != 2 {
		t.Fatalf("a tenth of the lifetime later: the same mark (%d recorded)", len(e.marks.issued))
	}
	e.marks.revoke(sub, now.Add(61*time.Minute))
	if again := e.issue(t, roleType, sub, now.Add(62*time.Minute)); again == later {
		t.Fatal("a revoked mark was answered again")
	}
	n := len(e.marks.issued)
	if _, err := e.kr.Rotate(context.Background(), store.Audit{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	tok := e.issue(t, roleType, sub, now.Add(63*time.Minute))
	checkJWT(t, tok, TrustMarkTyp, e.currentKid(t), e.published(t))
	if len(e.marks.issued) != n+1 {
		t.Fatal("after a key rotation the mark of the retired key was answered again")
	}
}

// status asks the status of tok at now and checks the response as a
// relying party does (typ, kid, signature against the published JWKS,
// iss, iat, trust_mark); it answers the status.
func (e *markEnv) status(t *testing.T, tok string, now time.Time) string {
	t.Helper()
	resp, err := e.d.TrustMarkStatus(context.Background(), tok, now)
	if err != nil {
		t.Fatal(err)
	}
	c := checkJWT(t, resp, TrustMarkStatusTyp, e.currentKid(t), e.published(t))
	if c["iss"] != dirID || c["iat"] != float64(now.Unix()) || c["trust_mark"] != tok {
		t.Fatalf("status response claims %v", c)
	}
	s, _ := c["status"].(string)
	return s
}

// TestTrustMarkStatusActive: a recorded mark before its exp.
func TestTrustMarkStatusActive(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp.example.com", time.Time{})
	now := time.Now()
	tok := e.issue(t, roleType, "https://rp.example.com", now)
	if s := e.status(t, tok, now.Add(9*time.Hour)); s != MarkActive {
		t.Fatalf("status %q", s)
	}
}

// TestTrustMarkStatusRevoked: the entitlement lapsed before exp; the mark
// stays revoked though the entitlement is back, and past its exp.
func TestTrustMarkStatusRevoked(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp.example.com", time.Time{}) // entitled throughout: it came back
	now := time.Now()
	tok := e.issue(t, roleType, "https://rp.example.com", now)
	e.marks.revoke("https://rp.example.com", now.Add(time.Hour))
	for _, at := range []time.Time{now.Add(2 * time.Hour), now.Add(11 * time.Hour)} {
		if s := e.status(t, tok, at); s != MarkRevoked {
			t.Fatalf("at %v: status %q", at, s)
		}
	}
}

// TestTrustMarkStatusExpired: past exp, not revoked before it (a
// revocation recorded after exp changes nothing).
func TestTrustMarkStatusExpired(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp.example.com", time.Time{})
	now := time.Now()
	tok := e.issue(t, roleType, "https://rp.example.com", now)
	if s := e.status(t, tok, now.Add(10*time.Hour)); s != MarkExpired {
		t.Fatalf("at exp: status %q", s)
	}
	e.marks.revoke("https://rp.example.com", now.Add(11*time.Hour))
	if s := e.status(t, tok, now.Add(12*time.Hour)); s != MarkExpired {
		t.Fatalf("revoked after exp: status %q", s)
	}
}

// TestTrustMarkStatusSignedByARetiredKey: a mark signed by a key retired
// by a planned rotation (Prepare, then Activate), still published, is
// judged on its record (active).
func TestTrustMarkStatusSignedByARetiredKey(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp.example.com", time.Time{})
	now := time.Now()
	tok := e.issue(t, roleType, "https://rp.example.com", now)
	ctx := context.Background()
	e.kr.SetPrepublish(0)
	if _, err := e.kr.Prepare(ctx, store.Audit{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.kr.Activate(ctx, store.Audit{Actor: "test"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if kid := e.currentKid(t); kid == jwsKid(tok) {
		t.Fatalf("the key %s still signs", kid)
	}
	if s := e.status(t, tok, now.Add(time.Minute)); s != MarkActive {
		t.Fatalf("status %q", s)
	}
}

func jwsKid(tok string) string {
	jws, _ := jose.ParseSignedCompact(tok, jwsAlgs)
	return jws.Signatures[0].Header.KeyID
}

// TestTrustMarkStatusRevokedWhenItsKeyWasCompromised: the emergency
// rotation (Rotate) retires the key as compromised; a recorded mark it
// signed is revoked from then on, though its entitlement holds.
func TestTrustMarkStatusRevokedWhenItsKeyWasCompromised(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp.example.com", time.Time{})
	now := time.Now()
	tok := e.issue(t, roleType, "https://rp.example.com", now)
	if _, err := e.kr.Rotate(context.Background(), store.Audit{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if s := e.status(t, tok, time.Now().Add(time.Minute)); s != MarkRevoked {
		t.Fatalf("status %q", s)
	}
	fresh := e.issue(t, roleType, "https://rp.example.com", time.Now().Add(2*time.Minute))
	if jwsKid(fresh) == jwsKid(tok) {
		t.Fatal("the mark asked again is the one the compromised key signed")
	}
	if s := e.status(t, fresh, time.Now().Add(3*time.Minute)); s != MarkActive {
		t.Fatalf("new mark: status %q", s)
	}
}

// TestTrustMarkStatusUnrecordedUnderACompromisedKey: a mark the directory
// has no record of, signed with a key since found compromised, is invalid
// (anyone holding the key may have made it), not 404.
func TestTrustMarkStatusUnrecordedUnderACompromisedKey(t *testing.T) {
	e := newMarkEnv(t)
	now := time.Now()
	tok, err := e.kr.Sign(context.Background(), TrustMarkTyp, map[string]any{"iss": dirID, "sub": "https://rp.example.com",
		"trust_mark_type": roleType, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "never-recorded"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.kr.Rotate(context.Background(), store.Audit{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if s := e.status(t, tok, time.Now()); s != MarkInvalid {
		t.Fatalf("status %q", s)
	}
}

// foreignMark is a trust mark with the claims of a real one, signed by a
// key that is not the directory's (with its own kid, or with the kid of
// the directory's key).
func foreignMark(t *testing.T, claims map[string]any, kid string) string {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k, KeyID: kid}}, (&jose.SignerOptions{}).WithType(TrustMarkTyp))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	jws, _ := sig.Sign(b)
	s, _ := jws.CompactSerialize()
	return s
}

func claimsOf(tok string) map[string]any {
	jws, _ := jose.ParseSignedCompact(tok, jwsAlgs)
	var c map[string]any
	_ = json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c)
	return c
}

// TestTrustMarkStatusInvalidForAnotherKey: the claims of a recorded mark,
// signed by a key that is not one of the directory's (under another kid,
// or under the directory's kid), are invalid.
func TestTrustMarkStatusInvalidForAnotherKey(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp.example.com", time.Time{})
	now := time.Now()
	c := claimsOf(e.issue(t, roleType, "https://rp.example.com", now))
	for _, kid := range []string{"someone-else", e.currentKid(t)} {
		if s := e.status(t, foreignMark(t, c, kid), now); s != MarkInvalid {
			t.Fatalf("kid %s: status %q", kid, s)
		}
	}
}

// TestTrustMarkStatusInvalidForAnotherType: the claims of a recorded mark
// signed with the directory's key as another kind of JWT (not
// trust-mark+jwt) are invalid: the directory did not issue it as a mark.
func TestTrustMarkStatusInvalidForAnotherType(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp.example.com", time.Time{})
	now := time.Now()
	c := claimsOf(e.issue(t, roleType, "https://rp.example.com", now))
	tok, err := e.kr.Sign(context.Background(), "entity-statement+jwt", c)
	if err != nil {
		t.Fatal(err)
	}
	if s := e.status(t, tok, now); s != MarkInvalid {
		t.Fatalf("status %q", s)
	}
}

// TestTrustMarkStatusInvalidWhenAltered: a mark whose claims were changed
// after signing (exp pushed out) is invalid.
func TestTrustMarkStatusInvalidWhenAltered(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp.example.com", time.Time{})
	now := time.Now()
	tok := e.issue(t, roleType, "https://rp.example.com", now)
	c := claimsOf(tok)
	c["exp"] = float64(now.Add(1000 * time.Hour).Unix())
	b, _ := json.Marshal(c)
	parts := strings.Split(tok, ".")
	altered := parts[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + parts[2]
	if s := e.status(t, altered, now); s != MarkInvalid {
		t.Fatalf("status %q", s)
	}
}

// TestTrustMarkStatusUnknownMark: a mark signed by the directory that it
// has no record of is 404 not_found.
func TestTrustMarkStatusUnknownMark(t *testing.T) {
	e := newMarkEnv(t)
	now := time.Now()
	tok, err := e.kr.Sign(context.Background(), TrustMarkTyp, map[string]any{"iss": dirID, "sub": "https://rp.example.com",
		"trust_mark_type": roleType, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "never-recorded"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.d.TrustMarkStatus(context.Background(), tok, now)
	refusal(t, err, 404, "not_found")
}

// TestTrustMarkStatusWithoutAJWT: no trust_mark, or one that is not a
// JWT, is 400 invalid_request.
func TestTrustMarkStatusWithoutAJWT(t *testing.T) {
	e := newMarkEnv(t)
	for _, tok := range []string{"", "  ", "not-a-jwt"} {
		_, err := e.d.TrustMarkStatus(context.Background(), tok, time.Now())
		refusal(t, err, 400, "invalid_request")
	}
}

// TestTrustMarkedEntities: the subjects entitled now to a type, sorted,
// one subject with sub; a type unknown or Inactive 404, none 400.
func TestTrustMarkedEntities(t *testing.T) {
	e := newMarkEnv(t)
	e.entitle("t-role", "https://rp2.example.com", time.Time{})
	e.entitle("t-role", "https://rp1.example.com", time.Time{})
	e.entitle("t-cert", "https://op.example.com", time.Now().Add(time.Hour))
	ctx := context.Background()
	got, err := e.d.TrustMarkedEntities(ctx, url.Values{"trust_mark_type": {roleType}}, time.Now())
	if err != nil || !slices.Equal(got, []string{"https://rp1.example.com", "https://rp2.example.com"}) {
		t.Fatalf("%v %v", got, err)
	}
	got, err = e.d.TrustMarkedEntities(ctx, url.Values{"trust_mark_type": {roleType}, "sub": {"https://rp2.example.com"}}, time.Now())
	if err != nil || !slices.Equal(got, []string{"https://rp2.example.com"}) {
		t.Fatalf("sub: %v %v", got, err)
	}
	got, err = e.d.TrustMarkedEntities(ctx, url.Values{"trust_mark_type": {roleType}, "sub": {"https://op.example.com"}}, time.Now())
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("sub not entitled: %v %v, want []", got, err)
	}
	_, err = e.d.TrustMarkedEntities(ctx, url.Values{"trust_mark_type": {offType}}, time.Now())
	refusal(t, err, 404, "not_found")
	_, err = e.d.TrustMarkedEntities(ctx, url.Values{}, time.Now())
	refusal(t, err, 400, "invalid_request")
}

// TestListTrustMarkFilters: trust_marked=true keeps the subordinates
// entitled to a mark of an Active type, trust_mark_type (alone or with it)
// those of the type, intermediate=true none; entity_type still applies.
func TestListTrustMarkFilters(t *testing.T) {
	a, b, c := newEntity(t, nil), newEntity(t, nil), newEntity(t, nil)
	e := newMarkEnv(t, a, b, c)
	e.entitle("t-role", a.id(), time.Time{})
	e.entitle("t-cert", b.id(), time.Time{})
	e.entitle("t-off", c.id(), time.Time{}) // Inactive: no mark
	e.entitle("t-role", "https://not-a-subordinate.example.com", time.Time{})
	ctx := context.Background()
	listing, err := e.d.Subordinates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	list := func(q string, types ...string) []string {
		t.Helper()
		v, _ := url.ParseQuery(q)
		keep, err := e.d.ListKeep(ctx, v, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		_ = json.Unmarshal(listing.Answer(types, keep), &ids)
		return ids
	}
	all := []string{a.id(), b.id(), c.id()}
	slices.Sort(all)
	for q, want := range map[string][]string{
		"":                   all,
		"intermediate=false": all,
		"trust_marked=false": all,
		"intermediate=true":  {},
		"trust_marked=true":  sorted(a.id(), b.id()),
		"trust_mark_type=" + url.QueryEscape(certType):                     {b.id()},
		"trust_marked=true&trust_mark_type=" + url.QueryEscape(roleType):   {a.id()},
		"trust_mark_type=" + url.QueryEscape(offType):                      {},
		"trust_mark_type=" + url.QueryEscape(dirID+"/trust-marks/nothing"): {},
	} {
		if got := list(q); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
	if got := list("trust_marked=true", "openid_provider"); len(got) != 0 {
		t.Errorf("trust_marked with an entity type no subordinate has: %v", got)
	}
	if got := list("trust_marked=true", "openid_relying_party"); !slices.Equal(got, sorted(a.id(), b.id())) {
		t.Errorf("trust_marked with entity_type: %v", got)
	}
}

func sorted(s ...string) []string { slices.Sort(s); return s }

// TestEntityConfigurationNamesTrustMarks: trust_mark_issuers names the
// directory for every Active type (not the Inactive one), and
// federation_entity names the trust mark and historical keys endpoints.
func TestEntityConfigurationNamesTrustMarks(t *testing.T) {
	e := newMarkEnv(t)
	ec, err := e.d.EntityConfiguration(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c := checkJWT(t, ec, "entity-statement+jwt", e.currentKid(t), e.published(t))
	issuers := asMap(c["trust_mark_issuers"])
	if len(issuers) != 2 || !slices.Equal(asList(issuers[roleType]), []any{dirID}) || !slices.Equal(asList(issuers[certType]), []any{dirID}) {
		t.Fatalf("trust_mark_issuers %v", c["trust_mark_issuers"])
	}
	fe := asMap(asMap(c["metadata"])["federation_entity"])
	for claim, path := range map[string]string{
		"federation_trust_mark_endpoint":        "/federation/trust-mark",
		"federation_trust_mark_status_endpoint": "/federation/trust-mark-status",
		"federation_trust_mark_list_endpoint":   "/federation/trust-marked-entities",
		"federation_historical_keys_endpoint":   "/federation/historical-keys",
	} {
		if fe[claim] != dirID+path {
			t.Errorf("%s = %v", claim, fe[claim])
		}
	}
	// No Active type: no trust_mark_issuers.
	for id := range e.marks.types {
		ty := e.marks.types[id]
		ty.Status = "Inactive"
		e.marks.types[id] = ty
	}
	ec, _ = e.d.EntityConfiguration(context.Background(), time.Now())
	if _, ok := claimsOf(ec)["trust_mark_issuers"]; ok {
		t.Fatal("trust_mark_issuers without an Active type")
	}
}

// TestResolveCarriesActiveTrustMarks: the resolve answer keeps of the
// subject's trust_marks those the directory issued to it that are active
// (not a revoked one, one of another subject, one signed by another key,
// or one it has no record of), and expires no later than they do.
func TestResolveCarriesActiveTrustMarks(t *testing.T) {
	leaf := newEntity(t, map[string]any{"openid_relying_party": map[string]any{"client_name": "RP"}}, dirID)
	other := "https://other.example.com"
	e := newMarkEnv(t, leaf)
	e.entitle("t-role", leaf.id(), time.Time{})
	now := time.Now()
	until := now.Add(3 * time.Hour) // before the statements' 24h
	e.entitle("t-cert", leaf.id(), until)
	e.entitle("t-cert", other, time.Time{})
	active := e.issue(t, certType, leaf.id(), now) // exp: until
	revoked := e.issue(t, roleType, leaf.id(), now.Add(-time.Minute))
	e.marks.revokeMark(revoked, now)
	ofOther := e.issue(t, certType, other, now)
	unrecorded, _ := e.kr.Sign(context.Background(), TrustMarkTyp, map[string]any{"iss": dirID, "sub": leaf.id(), "trust_mark_type": certType,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "never-recorded"})
	foreign := foreignMark(t, claimsOf(active), e.currentKid(t))
	leaf.ecEdit = func(c map[string]any) {
		c["exp"] = now.Add(48 * time.Hour).Unix() // later than the marks: they decide
		var marks []any
		for typ, tok := range map[string]string{roleType: revoked, certType: ofOther} {
			marks = append(marks, map[string]any{"trust_mark_type": typ, "trust_mark": tok})
		}
		for _, tok := range []string{unrecorded, foreign, active} {
			marks = append(marks, map[string]any{"trust_mark_type": certType, "trust_mark": tok})
		}
		c["trust_marks"] = marks
	}
	tok, _, err := e.d.Resolve(context.Background(), leaf.id(), nil, now)
	if err != nil {
		t.Fatal(err)
	}
	c := checkJWT(t, tok, "resolve-response+jwt", e.currentKid(t), e.published(t))
	marks := asList(c["trust_marks"])
	if len(marks) != 1 || asMap(marks[0])["trust_mark"] != active || asMap(marks[0])["trust_mark_type"] != certType {
		t.Fatalf("trust_marks %v, want only the active one", c["trust_marks"])
	}
	if c["exp"] != float64(until.Unix()) {
		t.Fatalf("exp %v, want the mark's %d", c["exp"], until.Unix())
	}
	// Once it is revoked too, the answer carries no trust_marks and
	// expires with the statements.
	e.marks.revoke(leaf.id(), now.Add(time.Minute))
	tok, _, err = e.d.Resolve(context.Background(), leaf.id(), nil, now.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	c = claimsOf(tok)
	if _, ok := c["trust_marks"]; ok || c["exp"] != float64(now.Add(2*time.Minute+24*time.Hour).Unix()) {
		t.Fatalf("after the revocation: trust_marks %v exp %v", c["trust_marks"], c["exp"])
	}
}
