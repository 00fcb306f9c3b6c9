package web_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/trustframe/trustframe/dpop"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// mustAllocateUnder runs f and fails t when the heap allocations of the
// whole process (the test server's handlers too) during f exceed limit
// bytes; it returns what they were.
func mustAllocateUnder(t *testing.T, limit uint64, f func()) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	n := after.TotalAlloc - before.TotalAlloc
	if raceDetector {
		// The race detector's own bookkeeping and the escapes it forces
		// (about 1.3× here): the bound is for the program, not the tool.
		limit *= 2
	}
	if n > limit {
		t.Errorf("%d bytes allocated, want under %d", n, limit)
	}
	return n
}

// rawMultipart sends body as multipart/form-data with boundary B.
func (a *api) rawMultipart(method, path, body string) (*http.Response, map[string]any) {
	a.t.Helper()
	return a.sendBody(method, path, "multipart/form-data; boundary=B", strings.NewReader(body))
}

func postPEM(t *testing.T, a *api, path, pemText string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", a.base+"/api"+path, strings.NewReader(pemText))
	req.Header.Set("Content-Type", "application/x-pem-file")
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp, m
}

func keystore(t *testing.T, base, orgID string, inactive bool) jose.JSONWebKeySet {
	t.Helper()
	path := base + "/keystore/" + orgID + "/application.jwks"
	if inactive {
		path = base + "/keystore/" + orgID + "/inactive/application.jwks"
	}
	resp, err := http.Get(path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/jwk-set+json" || resp.Header.Get("Cache-Control") == "" {
		t.Fatalf("keystore: %d %v", resp.StatusCode, resp.Header)
	}
	for _, m := range []string{`"d"`, `"p"`, `"q"`, `"dp"`, `"dq"`, `"qi"`, `"priv"`, `"k"`} {
		if bytes.Contains(b, []byte(m+":")) {
			t.Fatalf("the keystore holds %s", m)
		}
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatalf("go-jose cannot parse the keystore: %v", err)
	}
	for _, k := range set.Keys {
		if !k.IsPublic() {
			t.Fatal("a private key in the keystore")
		}
	}
	return set
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func multipartBody(t *testing.T, fileName string, content []byte, desc string) (string, *bytes.Buffer) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if desc != "" {
		mw.WriteField("Description", desc)
	}
	if content != nil {
		fw, _ := mw.CreateFormFile("file", fileName)
		fw.Write(content)
	}
	mw.Close()
	return mw.FormDataContentType(), &buf
}

func (a *api) multipart(method, path, fileName string, content []byte, desc string) (*http.Response, map[string]any) {
	ct, body := multipartBody(a.t, fileName, content, desc)
	return a.sendBody(method, path, ct, body)
}

// sendBody sends body as Content-Type ct and reads the JSON answer.
func (a *api) sendBody(method, path, ct string, body io.Reader) (*http.Response, map[string]any) {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.base+"/api"+path, body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp, m
}

// api is a small JSON client for the directory tests.
type api struct {
	t     *testing.T
	base  string
	token string
}

func newAPI(t *testing.T, env *webtest.Env, email string) *api {
	return &api{t: t, base: env.URL, token: webtest.Token(t, env.URL, email, nil).AccessToken}
}

func (a *api) do(method, path, body string, hdr ...string) (*http.Response, map[string]any) {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.base+"/api"+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	var raw json.RawMessage
	json.NewDecoder(resp.Body).Decode(&raw)
	if len(raw) > 0 && raw[0] == '[' {
		m = map[string]any{"list": nil}
		var l []any
		json.Unmarshal(raw, &l)
		m["list"] = l
	} else {
		json.Unmarshal(raw, &m)
	}
	return resp, m
}

func (a *api) must(status int, method, path, body string) map[string]any {
	a.t.Helper()
	resp, m := a.do(method, path, body)
	if resp.StatusCode != status {
		a.t.Fatalf("%s %s: %d, want %d: %v", method, path, resp.StatusCode, status, m)
	}
	return m
}

func fieldsOf(m map[string]any) map[string]string {
	out := map[string]string{}
	errs, _ := m["errors"].([]any)
	for _, e := range errs {
		em := e.(map[string]any)
		f, _ := em["field"].(string)
		msg, _ := em["message"].(string)
		out[f] += msg
	}
	return out
}

func org(name string) string {
	return fmt.Sprintf(`{"OrganisationName":%q,"RegistrationNumber":"REG-%s","CountryOfRegistration":"GB"}`, name, name)
}

func newAPIWithInvite(t *testing.T, env *webtest.Env, admin *api, email string) *api {
	admin.must(201, "POST", "/users/data-administrators", `{"Email":"`+email+`"}`)
	return newAPI(t, env, email)
}

// discoveryServer serves a discovery document naming issuer (or itself).
func discoveryServer(t *testing.T, issuer func(self string) string) string {
	var self string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/openid-configuration" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"issuer":%q}`, issuer(self))
	}))
	t.Cleanup(s.Close)
	self = s.URL
	return self
}

// formOf reads the fields of the development sign-in form.
func formOf(t *testing.T, resp *http.Response) url.Values {
	t.Helper()
	v := url.Values{}
	docOf(t, resp).Find("form input").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		val, _ := s.Attr("value")
		v.Set(name, val)
	})
	return v
}

// setupDomains creates, as a Super User, the domain Payments (roles PISP
// and AISP of Type Federation, EXCL of Type Directory and Exclusive), the
// domain Data (role DATA) and the authority Central Bank covering
// Payments only; it returns the authority's id.
func setupDomains(t *testing.T, su *api) string {
	t.Helper()
	su.must(201, "POST", "/references/authorisation-domains", `{"Name":"Payments","Description":"Open finance payments"}`)
	su.must(201, "POST", "/references/authorisation-domains", `{"Name":"Data"}`)
	su.must(201, "POST", "/references/authorisation-domains/Payments/roles", `{"Name":"PISP","Type":"Federation"}`)
	su.must(201, "POST", "/references/authorisation-domains/Payments/roles", `{"Name":"AISP","Type":"Federation"}`)
	su.must(201, "POST", "/references/authorisation-domains/Payments/roles", `{"Name":"EXCL","Type":"Directory","Exclusive":true}`)
	su.must(201, "POST", "/references/authorisation-domains/Data/roles", `{"Name":"DATA","Type":"Federation"}`)
	au := su.must(201, "POST", "/references/authorities", `{"AuthorityName":"Central Bank","AuthorityCode":"CB","Country":"GB","AuthorisationDomains":["Payments"]}`)
	return au["AuthorityId"].(string)
}

func grant(t *testing.T, a *api, orgID, authority, domain, role string) string {
	t.Helper()
	c := a.must(201, "POST", "/organisations/"+orgID+"/authority-claims", `{"AuthorityId":"`+authority+`","AuthorisationDomain":"`+domain+`","Role":"`+role+`","RegistrationId":"REG-`+role+`"}`)
	return c["ClaimId"].(string)
}

// fakeOP is an external OpenID Provider whose signing key can rotate.
type fakeOP struct {
	srv      *httptest.Server
	mu       sync.Mutex
	keys     map[string]*rsa.PrivateKey
	kid      string
	jwksHits int
}

func newFakeOP(t *testing.T) *fakeOP {
	op := &fakeOP{keys: map[string]*rsa.PrivateKey{}}
	op.rotate("k1")
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": op.srv.URL, "authorization_endpoint": op.srv.URL + "/auth",
			"token_endpoint": op.srv.URL + "/token", "jwks_uri": op.srv.URL + "/jwks", "id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		op.mu.Lock()
		defer op.mu.Unlock()
		op.jwksHits++
		set := jose.JSONWebKeySet{}
		for kid, k := range op.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "RS256", Use: "sig"})
		}
		json.NewEncoder(w).Encode(set)
	})
	op.srv = httptest.NewServer(mux)
	t.Cleanup(op.srv.Close)
	return op
}

func (op *fakeOP) rotate(kid string) {
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	op.mu.Lock()
	defer op.mu.Unlock()
	op.keys = map[string]*rsa.PrivateKey{kid: k} // the old key is gone
	op.kid = kid
}

func (op *fakeOP) hits() int {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.jwksHits
}

func (op *fakeOP) token(t *testing.T, typ string, claims map[string]any) string {
	op.mu.Lock()
	k, kid := op.keys[op.kid], op.kid
	op.mu.Unlock()
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k, KeyID: kid}}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	s, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func docOf(t *testing.T, resp *http.Response) *goquery.Document {
	t.Helper()
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// postForm posts a console form and answers the status and the page.
func postForm(t *testing.T, c *http.Client, u string, form url.Values) (int, *goquery.Document) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, docOf(t, resp)
}

// browserForm is what a browser sends for the form posting to action: its
// fields as the page holds them, checkboxes only when ticked.
func browserForm(doc *goquery.Document, action string) url.Values {
	v := url.Values{}
	doc.Find("form[action='" + action + "']").Find("input, textarea, select").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		typ, _ := s.Attr("type")
		if name == "" {
			return
		}
		if typ == "checkbox" || typ == "radio" {
			if _, on := s.Attr("checked"); !on {
				return
			}
		}
		val, _ := s.Attr("value")
		switch {
		case s.Is("textarea"):
			val = s.Text()
		case s.Is("select"):
			val, _ = s.Find("option[selected]").Attr("value")
		case typ == "checkbox" && val == "":
			val = "on"
		}
		v.Add(name, val)
	})
	return v
}

// refusingTransport answers every request 503 without sending it.
type refusingTransport struct{}

func (refusingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusServiceUnavailable, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
}

// auditTotal is how many records the audit log holds.
func auditTotal(a *api) float64 {
	a.t.Helper()
	return a.must(200, "GET", "/audit?size=1", "")["totalSize"].(float64)
}

// postRefused submits a console form that must be refused as a conflict
// (409) and returns the page that says so.
func postRefused(t *testing.T, c *http.Client, u string, form url.Values) *goquery.Document {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("%s: status %d, want 409", u, resp.StatusCode)
	}
	return doc
}

func randomID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func median(l []time.Duration) time.Duration {
	s := append([]time.Duration(nil), l...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func mustJSON(b *testing.B, a *api, method, path, body string) map[string]any {
	resp, m := a.do(method, path, body)
	if resp.StatusCode/100 != 2 {
		b.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, m)
	}
	return m
}

// specEnv is a directory with one Active organisation "Acme Bank" whose
// key material holds key, and an Active application whose federation
// entity is the leaf; mod, when given, changes the server's configuration.
func specEnv(t *testing.T, mod ...func(*web.Config)) (*webtest.Env, *specLeaf, jose.JSONWebKeySet) {
	env := webtest.Start(t, func(c *web.Config) {
		for _, m := range mod {
			m(c)
		}
	})
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"A-1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	key := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pb, _ := json.Marshal(jose.JSONWebKey{Key: key.Public(), KeyID: "acme-sig-1"})
	kid := a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pb)+`,"Use":"sig"}`)["Kid"].(string)
	leaf := newSpecLeaf(t, key, kid)
	anchor := env.URL
	leaf.claims = func(id string, now time.Time) map[string]any {
		return map[string]any{"iss": id, "sub": id, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
			"jwks":            jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: kid}}},
			"authority_hints": []string{anchor},
			"metadata": map[string]any{
				"federation_entity":    map[string]any{"organization_name": "Self-declared Name"},
				"openid_relying_party": map[string]any{"client_name": "Acme RP"},
			}}
	}
	a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Acme RP","Status":"Active","FederationEntityId":"`+leaf.srv.URL+`"}`)
	_, _, ec := fedGet(t, env, "/.well-known/openid-federation")
	keys := jose.JSONWebKeySet{}
	kb, _ := json.Marshal(fedClaims(t, ec, "entity-statement+jwt", nil)["jwks"])
	_ = json.Unmarshal(kb, &keys)
	return env, leaf, keys
}

func resolvePath(env *webtest.Env, sub string) string {
	return "/federation/resolve?sub=" + url.QueryEscape(sub) + "&trust_anchor=" + url.QueryEscape(env.URL)
}

func newGroupsOP(t *testing.T) *groupsOP {
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	op := &groupsOP{key: k, codes: map[string]map[string]any{}}
	op.srv = httptest.NewServer(http.HandlerFunc(op.serve))
	t.Cleanup(op.srv.Close)
	return op
}

// bindGroups binds op as name for example.com with these group mappings.
func bindGroups(t *testing.T, admin *api, op *groupsOP, name, mappings string) {
	t.Helper()
	admin.must(201, "POST", "/references/identity-providers", `{"Name":"`+name+`","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+
		`","Audience":"automation","ClientId":"console","GroupRoles":`+mappings+`}`)
}

func status(t *testing.T, tok, u string) (int, string) {
	t.Helper()
	r, b := do(t, "GET", u, tok, "")
	return r.StatusCode, b
}

func getCSV(t *testing.T, c *http.Client, url, token string) (*http.Response, [][]string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return resp, nil
	}
	rows, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return resp, rows
}

func proxies(t *testing.T, s string) []netip.Prefix {
	t.Helper()
	p, err := web.ParseTrustedProxies(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func tokenForm(t *testing.T, base string, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(base+"/dev/idp/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func send(t *testing.T, method, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] != "" {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := headClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

type changePage struct {
	Content    []store.Change `json:"content"`
	NextCursor string         `json:"nextCursor"`
}

// testClock is a clock a test moves by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func startSMTP(t *testing.T) *fakeSMTP {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveSMTP(t, ln)
}

func page(t *testing.T, c *http.Client, u string) (*http.Response, *goquery.Document) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, doc
}

// conflictClaims reads the 409 body: errors[0].message is
// "summary|{"Claims":[…]}"; it returns the ClaimIds of the payload.
func conflictClaims(t *testing.T, m map[string]any) []string {
	t.Helper()
	errs, _ := m["errors"].([]any)
	if len(errs) == 0 {
		t.Fatalf("no errors in %v", m)
	}
	msg := errs[0].(map[string]any)["message"].(string)
	summary, payload, ok := strings.Cut(msg, "|")
	if !ok || summary == "" {
		t.Fatalf("not summary|payload: %q", msg)
	}
	var p struct {
		Claims []struct{ ClaimId, OrganisationId, AuthorisationDomain, Role string }
	}
	if err := json.Unmarshal([]byte(payload), &p); err != nil || len(p.Claims) == 0 {
		t.Fatalf("payload %q: %v", payload, err)
	}
	var ids []string
	for _, c := range p.Claims {
		if c.OrganisationId == "" || c.AuthorisationDomain == "" || c.Role == "" {
			t.Fatalf("a claim of the payload is not named in full: %+v", c)
		}
		ids = append(ids, c.ClaimId)
	}
	return ids
}

// do sends a request with an optional bearer token and JSON body.
func do(t *testing.T, method, url, token, body string) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func getRaw(t *testing.T, a *api, path string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", a.base+"/api"+path, nil)
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func jwtParts(t *testing.T, tok string) (map[string]any, map[string]any) {
	t.Helper()
	p := strings.Split(tok, ".")
	if len(p) != 3 {
		t.Fatalf("not a JWS: %q", tok)
	}
	var h, c map[string]any
	hb, _ := base64.RawURLEncoding.DecodeString(p[0])
	cb, _ := base64.RawURLEncoding.DecodeString(p[1])
	json.Unmarshal(hb, &h)
	json.Unmarshal(cb, &c)
	return h, c
}

func setupApp(t *testing.T, a *api) (string, string) {
	oid := a.must(201, "POST", "/organisations", strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Active"}`)["OrganisationId"].(string)
	grant(t, a, oid, setupDomains(t, a), "Payments", "PISP") // an application's roles are those its organisation holds
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments","RedirectUri":["https://tpp.example/cb"],"Roles":["PISP"],
		"backchannel_token_delivery_mode":"ping","backchannel_client_notification_endpoint":"https://tpp.example/ciba","software_origins_uri":["https://tpp.example"]}`)
	return oid, app["SoftwareStatementId"].(string)
}

// startDelivering starts a server whose deliverer runs, with loopback
// receivers allowed and quick retries.
func startDelivering(t *testing.T, mod func(*web.Config)) *webtest.Env {
	t.Helper()
	env := webtest.Start(t, func(c *web.Config) {
		c.AllowPrivateWebhookURLs = true
		c.WebhookTimeout = time.Second
		c.WebhookBackoff = func(int) time.Duration { return 200 * time.Millisecond }
		if mod != nil {
			mod(c)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { env.Server.DeliverWebhooks(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return env
}

// receiver is a webhook endpoint that verifies every request with the
// Standard Webhooks algorithm, written here from the specification
// (https://www.standardwebhooks.com/): the key is the base64 after
// "whsec_"; the signed content is "<webhook-id>.<webhook-timestamp>.<body>";
// webhook-signature holds space-separated "v1,<base64 HMAC-SHA256>"; the
// timestamp must be within five minutes.
type receiver struct {
	t      *testing.T
	mu     sync.Mutex
	secret string
	got    []received
	answer func(n int) int // status for the n-th request (0-based)
	srv    *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{t: t, answer: func(int) int { return 200 }}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) verify(r *http.Request, body []byte) string {
	rc.mu.Lock()
	secret := rc.secret
	rc.mu.Unlock()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		return "bad secret " + secret
	}
	id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
	secs, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil {
		return "missing webhook-id or webhook-timestamp"
	}
	if d := time.Since(time.Unix(secs, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "timestamp out of tolerance"
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(r.Header.Get("webhook-signature")) {
		v, s, ok := strings.Cut(sig, ",")
		if ok && v == "v1" && hmac.Equal([]byte(s), []byte(want)) {
			return ""
		}
	}
	return "no valid v1 signature in " + r.Header.Get("webhook-signature")
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if msg := rc.verify(r, body); msg != "" {
		rc.t.Errorf("receiver: %s", msg)
		w.WriteHeader(400)
		return
	}
	var rec received
	rec.ID = r.Header.Get("webhook-id")
	if err := json.Unmarshal(body, &rec.Body); err != nil {
		rc.t.Errorf("receiver: body %s: %v", body, err)
	}
	rc.mu.Lock()
	n := len(rc.got)
	rc.got = append(rc.got, rec)
	answer := rc.answer
	rc.mu.Unlock()
	w.WriteHeader(answer(n))
}

func (rc *receiver) received() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// waitFor polls cond (the deliverer works in the background) up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func createWebhook(t *testing.T, env *webtest.Env, tok, body string) webhookAnswer {
	t.Helper()
	resp, b := do(t, "POST", env.URL+"/api/references/webhooks", tok, body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", resp.StatusCode, b)
	}
	var w webhookAnswer
	if err := json.Unmarshal([]byte(b), &w); err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Location") != "/api/references/webhooks/"+w.WebhookID {
		t.Fatalf("Location %q", resp.Header.Get("Location"))
	}
	return w
}

// superOnly says whether docs/design.md §3, §12 and §17 keep a route to
// Super Users: Reference Data and the administrators, except that every
// administrator reads domains, roles, authorities and trust mark types.
func superOnly(method, route string) bool {
	if strings.HasPrefix(route, "/api/users/") {
		return true
	}
	if !strings.HasPrefix(route, "/api/references/") {
		return false
	}
	if strings.HasPrefix(route, "/api/references/authorisation-domains") || strings.HasPrefix(route, "/api/references/authorities") ||
		strings.HasPrefix(route, "/api/references/trust-mark-types") {
		return method != http.MethodGet
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// besideField checks a refused form: the status, the message beside
// field, the field marked invalid, and the values kept (input name ->
// value; a select's chosen option counts).
func besideField(t *testing.T, what string, status, want int, doc *goquery.Document, field string, kept map[string]string) {
	t.Helper()
	if status != want {
		t.Fatalf("%s: status %d, want %d; page %q", what, status, want, doc.Find("main").Text())
	}
	if doc.Find("[data-testid=error-"+field+"]").Text() == "" {
		t.Errorf("%s: no message beside %s; page %q", what, field, doc.Find("main").Text())
	}
	marked := false
	doc.Find("[name=" + field + "]").Each(func(_ int, in *goquery.Selection) {
		marked = marked || in.AttrOr("aria-invalid", "") == "true" && in.AttrOr("aria-describedby", "") == "e-"+field
	})
	if !marked {
		t.Errorf("%s: no field %s marked invalid (aria-invalid, aria-describedby=e-%s)", what, field, field)
	}
	for name, v := range kept {
		sel := doc.Find("[name=" + name + "]").First()
		got := sel.AttrOr("value", "")
		switch goquery.NodeName(sel) {
		case "select":
			got = sel.Find("option[selected]").AttrOr("value", "")
		case "textarea":
			got = sel.Text()
		}
		if got != v {
			t.Errorf("%s: %s is %q, want %q kept", what, name, got, v)
		}
	}
}

func htmlDoc(t *testing.T, body []byte) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func jsonBody(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// benchDir returns a data directory seeded with n organisations, made once
// and kept in the temp dir between runs (seeding 100,000 takes ~30 s).
func benchDir(b *testing.B, n int) string {
	dir := os.Getenv("TRUSTFRAME_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "trustframe-bench-"+strconv.Itoa(n))
	}
	marker := filepath.Join(dir, "seeded")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(dir, "trustframe.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := db.SeedDirectory(context.Background(), store.Audit{Actor: "bench"}, n, 1); err != nil {
		b.Fatal(err)
	}
	db.Close()
	os.WriteFile(marker, nil, 0o600)
	return dir
}

func benchOrgs() int {
	if n, err := strconv.Atoi(os.Getenv("TRUSTFRAME_BENCH_ORGS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// fedGet fetches a federation endpoint of the directory.
func fedGet(t *testing.T, env *webtest.Env, path string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(env.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// claimsOf verifies a statement with one of keys (nil: its own jwks) and returns its claims.
func fedClaims(t *testing.T, tok, typ string, keys *jose.JSONWebKeySet) map[string]any {
	t.Helper()
	jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatalf("not a JWS: %v: %s", err, tok)
	}
	if got := jws.Signatures[0].Header.ExtraHeaders[jose.HeaderType]; got != typ {
		t.Fatalf("typ %v, want %s", got, typ)
	}
	var claims map[string]any
	_ = json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claims)
	if keys == nil {
		b, _ := json.Marshal(claims["jwks"])
		keys = &jose.JSONWebKeySet{}
		_ = json.Unmarshal(b, keys)
	}
	for _, k := range keys.Key(jws.Signatures[0].Header.KeyID) {
		if _, err := jws.Verify(k); err == nil {
			return claims
		}
	}
	t.Fatalf("no key verifies the %s", typ)
	return nil
}

func jsonEq(t *testing.T, got any, want string) {
	t.Helper()
	var w any
	_ = json.Unmarshal([]byte(want), &w)
	gb, _ := json.Marshal(got)
	var g any
	_ = json.Unmarshal(gb, &g)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("got %s, want %s", gb, want)
	}
}

func fedJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// bindProvider adds an Active identity provider to Reference Data, as a
// Super User would, for any e-mail domain.
func bindProvider(t *testing.T, env *webtest.Env, name, iss, audience, clientID string) {
	t.Helper()
	_, err := env.DB.CreateIdentityProvider(context.Background(), store.Audit{Actor: "admin@example.com"}, store.IdentityProvider{
		Name: name, Issuer: iss, JwksURI: iss + "/jwks", Audience: audience, EmailClaim: "email", Status: "Active",
		EmailDomains: []string{"*"}, ClientID: clientID}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

func newDPoPSigner(t *testing.T) *dpop.Signer { return newDPoPSignerB(t) }

func newDPoPSignerB(t testing.TB) *dpop.Signer {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	s, err := dpop.NewSigner(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func proof(t *testing.T, s *dpop.Signer, method, uri, token, nonce string) string {
	t.Helper()
	p, err := s.Proof(method, uri, token, nonce)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func claimsOf(t *testing.T, jwt string) map[string]any {
	t.Helper()
	parts := strings.Split(jwt, ".")
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func call(t *testing.T, method, u string, hdr http.Header) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, u, nil)
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func refresh(t *testing.T, base, refreshToken string, hdr http.Header) (int, map[string]any) {
	t.Helper()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {"trustframe-cli"}}
	req, _ := http.NewRequest("POST", base+"/dev/idp/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// tokenPoster signs admin@example.com in at base's development identity
// provider (PKCE) and returns a function that redeems the code at the token
// endpoint with a DPoP proof carrying nonce (empty: none).
func tokenPoster(t *testing.T, base string, key *dpop.Signer) func(nonce string) (*http.Response, map[string]any) {
	tokURL := base + "/dev/idp/token"
	verifier, challenge := webtest.PKCE()
	redirect := "http://127.0.0.1:8765/cb"
	code := webtest.Authorize(t, base, "admin@example.com", redirect, challenge)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {"trustframe-cli"}, "code_verifier": {verifier}}
	post := func(nonce string) (*http.Response, map[string]any) {
		req, _ := http.NewRequest("POST", tokURL, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("DPoP", proof(t, key, "POST", tokURL, "", nonce))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp, m
	}
	return post
}

// mustInviteOrgAdmin makes email an administrator of the organisations
// orgIDs, in the store (as the People tab will): Invited, Active at their
// first sign-in.
func mustInviteOrgAdmin(t testing.TB, env *webtest.Env, email string, orgIDs ...string) {
	t.Helper()
	for _, id := range orgIDs {
		if _, _, err := env.DB.InviteOrganisationAdministrator(context.Background(), store.Audit{Actor: "admin@example.com"}, id, email,
			store.Invitation{To: email, Subject: "You administer an organisation", Body: "Sign in."}); err != nil {
			t.Fatal(err)
		}
	}
}

// resolverAddr is a DNS resolver's address ("127.0.0.53:53", "[::1]:53"),
// as Go's lookup errors name it, which no page shows; not a time such as
// "09:53".
var resolverAddr = regexp.MustCompile(`(\d{1,3}\.){3}\d{1,3}:53\b|\]:53\b`)
