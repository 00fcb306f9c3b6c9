package web_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

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
