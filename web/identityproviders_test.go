package web_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/trustframe/trustframe/web/webtest"
)

// An identity provider bound in Reference Data makes the API accept its
// tokens; Inactive, or a changed e-mail claim, takes that back at once,
// even for a token the service has already verified.
func TestIdentityProviderTokens(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	api := env.URL + "/api/users/super"
	claims := func() map[string]any {
		return map[string]any{"iss": op.srv.URL, "aud": "automation", "sub": "robot", "upn": "admin@example.com",
			"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	}
	tok := op.token(t, "at+jwt", claims())

	// Not bound yet: refused, and the answer says why.
	if r, b := do(t, "GET", api, tok, ""); r.StatusCode != 401 || !strings.Contains(b, "not accepted") {
		t.Fatalf("token of an unbound issuer: %d %s", r.StatusCode, b)
	}

	resp, created := admin.do("POST", "/references/identity-providers",
		`{"Name":"Ops Keycloak","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","Audience":"automation","EmailClaim":"upn","Description":"automation"}`)
	if resp.StatusCode != 201 || created["JwksUri"] != op.srv.URL+"/jwks" || created["Status"] != "Active" ||
		resp.Header.Get("Location") != "/api/references/identity-providers/Ops%20Keycloak" {
		t.Fatalf("create: %d %v %s", resp.StatusCode, created, resp.Header.Get("Location"))
	}
	if r, b := do(t, "GET", api, tok, ""); r.StatusCode != 200 || !strings.Contains(b, "admin@example.com") {
		t.Fatalf("token of a bound issuer: %d %s", r.StatusCode, b)
	}
	// The audience and the e-mail claim are the provider's.
	c := claims()
	c["aud"] = env.URL + "/api"
	if r, _ := do(t, "GET", api, op.token(t, "at+jwt", c), ""); r.StatusCode != 401 {
		t.Fatalf("other audience: %d", r.StatusCode)
	}
	// A token of someone who is no administrator: 403 as for any token.
	c = claims()
	c["upn"] = "stranger@example.com"
	if r, _ := do(t, "GET", api, op.token(t, "at+jwt", c), ""); r.StatusCode != 403 {
		t.Fatalf("non-administrator: %d", r.StatusCode)
	}

	// Inactive: the same token, already verified once, is refused.
	path := "/references/identity-providers/" + url.PathEscape("Ops Keycloak")
	r, cur := admin.do("GET", path, "")
	etag := r.Header.Get("ETag")
	cur["Status"] = "Inactive"
	if r, m := admin.do("PUT", path, toJSON(t, cur), "If-Match", etag); r.StatusCode != 200 || m["Status"] != "Inactive" {
		t.Fatalf("deactivate: %d %v", r.StatusCode, m)
	}
	if r, b := do(t, "GET", api, tok, ""); r.StatusCode != 401 || !strings.Contains(b, "not accepted") {
		t.Fatalf("token after Inactive: %d %s", r.StatusCode, b)
	}
	// A stale If-Match changes nothing.
	cur["Status"] = "Active"
	if r, _ := admin.do("PUT", path, toJSON(t, cur), "If-Match", etag); r.StatusCode != 412 {
		t.Fatalf("stale If-Match: %d", r.StatusCode)
	}
	if r, m := admin.do("PUT", path, toJSON(t, cur)); r.StatusCode != 200 || m["Status"] != "Active" {
		t.Fatalf("reactivate: %d %v", r.StatusCode, m)
	}
	if r, _ := do(t, "GET", api, tok, ""); r.StatusCode != 200 {
		t.Fatalf("token after reactivation: %d", r.StatusCode)
	}
	// Another e-mail claim: the remembered token no longer carries it.
	cur["EmailClaim"] = "email"
	if r, m := admin.do("PUT", path, toJSON(t, cur)); r.StatusCode != 200 {
		t.Fatalf("change claim: %d %v", r.StatusCode, m)
	}
	if r, b := do(t, "GET", api, tok, ""); r.StatusCode != 401 || !strings.Contains(b, "no email claim") {
		t.Fatalf("token after the claim changed: %d %s", r.StatusCode, b)
	}

	// Every change is in the audit log.
	if r, m := admin.do("GET", "/audit?Subject=IdentityProvider", ""); r.StatusCode != 200 || m["totalSize"].(float64) != 4 {
		t.Fatalf("audit: %d %v", r.StatusCode, m)
	}
}

// A DPoP-bound token of an identity provider needs its proof like any other.
func TestIdentityProviderDPoPToken(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	admin.must(201, "POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","Audience":"automation"}`)
	key := newDPoPSigner(t)
	tok := op.token(t, "at+jwt", map[string]any{"iss": op.srv.URL, "aud": "automation", "sub": "robot", "email": "admin@example.com",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(), "cnf": map[string]any{"jkt": key.Thumbprint()}})
	api := env.URL + "/api/users/super"
	proof, _ := key.Proof("GET", api, tok, "")
	req, _ := http.NewRequest("GET", api, nil)
	req.Header.Set("Authorization", "DPoP "+tok)
	req.Header.Set("DPoP", proof)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("DPoP with proof: %v %v", err, resp.Status)
	}
	resp.Body.Close()
	if r, _ := do(t, "GET", api, tok, ""); r.StatusCode != 401 {
		t.Fatalf("bound token as Bearer: %d", r.StatusCode)
	}
}

// A token whose cnf claim is there but is not an object (RFC 7800: a JSON
// object) says it is bound in a way we cannot read: it is refused, not
// taken as an unbound Bearer token.
func TestTokenWithUnreadableCnfIsRefused(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	admin.must(201, "POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","Audience":"automation"}`)
	api := env.URL + "/api/users/super"
	for name, cnf := range map[string]any{"string": "thumbprint", "array": []any{"a"}, "number": 1, "object without jkt": map[string]any{"x5t#S256": "abc"}} {
		tok := op.token(t, "at+jwt", map[string]any{"iss": op.srv.URL, "aud": "automation", "sub": "robot", "email": "admin@example.com",
			"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(), "cnf": cnf})
		if r, b := do(t, "GET", api, tok, ""); r.StatusCode != 401 || !strings.Contains(b, "cnf") {
			t.Errorf("cnf %s as Bearer: %d %s", name, r.StatusCode, b)
		}
	}
	// The same token without cnf is an unbound Bearer token.
	tok := op.token(t, "at+jwt", map[string]any{"iss": op.srv.URL, "aud": "automation", "sub": "robot", "email": "admin@example.com",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
	if r, b := do(t, "GET", api, tok, ""); r.StatusCode != 200 {
		t.Fatalf("unbound token: %d %s", r.StatusCode, b)
	}
}

// Every bad input is a 4xx that names the field, and nothing is saved.
func TestIdentityProviderBadInput(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	admin.must(201, "POST", "/references/identity-providers", `{"Name":"first","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`"}`)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String()
	ln.Close()
	for name, c := range map[string]struct {
		body   string
		status int
		field  string
	}{
		"no name":            {`{"Issuer":"` + op.srv.URL + `"}`, 422, "Name"},
		"slash in name":      {`{"Name":"a/b","EmailDomains":["example.com"],"Issuer":"` + op.srv.URL + `"}`, 422, "Name"},
		"no issuer":          {`{"Name":"x"}`, 422, "Issuer"},
		"issuer not a URL":   {`{"Name":"x","EmailDomains":["example.com"],"Issuer":"keycloak"}`, 422, "Issuer"},
		"issuer unreachable": {`{"Name":"x","EmailDomains":["example.com"],"Issuer":"` + dead + `"}`, 422, "Issuer"},
		"own issuer":         {`{"Name":"x","EmailDomains":["example.com"],"Issuer":"` + env.URL + `/dev/idp"}`, 422, "Issuer"},
		"issuer taken":       {`{"Name":"second","EmailDomains":["example.com"],"Issuer":"` + op.srv.URL + `"}`, 422, "Issuer"},
		"name taken":         {`{"Name":"first","EmailDomains":["example.com"],"Issuer":"` + op.srv.URL + `"}`, 409, ""},
		"bad claim name":     {`{"Name":"x","EmailDomains":["example.com"],"Issuer":"` + op.srv.URL + `","EmailClaim":"e mail"}`, 422, "EmailClaim"},
		"bad status":         {`{"Name":"x","EmailDomains":["example.com"],"Issuer":"` + op.srv.URL + `","Status":"Withdrawn"}`, 422, "Status"},
		"no domains":         {`{"Name":"x","Issuer":"` + op.srv.URL + `"}`, 422, "EmailDomains"},
		"bad domain":         {`{"Name":"x","EmailDomains":["exa mple"],"Issuer":"` + op.srv.URL + `"}`, 422, "EmailDomains"},
		"star and more":      {`{"Name":"x","EmailDomains":["*","example.com"],"Issuer":"` + op.srv.URL + `"}`, 422, "EmailDomains"},
		"unknown field":      {`{"Name":"x","EmailDomains":["example.com"],"Issuer":"` + op.srv.URL + `","Secret":"s"}`, 400, ""},
		"not JSON":           {`{"Name":`, 400, ""},
	} {
		t.Run(name, func(t *testing.T) {
			r, m := admin.do("POST", "/references/identity-providers", c.body)
			if r.StatusCode != c.status {
				t.Fatalf("%d %v", r.StatusCode, m)
			}
			if c.field != "" && fieldsOf(m)[c.field] == "" {
				t.Fatalf("no error on %s: %v", c.field, m)
			}
		})
	}
	if _, m := admin.do("GET", "/references/identity-providers", ""); len(m["list"].([]any)) != 1 {
		t.Fatalf("something was saved: %v", m)
	}
	admin.must(404, "GET", "/references/identity-providers/nobody", "")
	admin.must(404, "PUT", "/references/identity-providers/nobody", `{"EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`"}`)
	admin.must(422, "PUT", "/references/identity-providers/first", `{"Name":"renamed","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`"}`)
	dana := newAPIWithInvite(t, env, admin, "dana@example.com")
	dana.must(403, "GET", "/references/identity-providers", "")
	dana.must(403, "POST", "/references/identity-providers", `{"Name":"x","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`"}`)
}

// An identity provider with a client ID is offered for web sign-in: the
// sign-in page lets the person choose, and a Data Administrator signs in
// through another trustframe's identity provider. Inactive, it is gone.
func TestIdentityProviderWebSignIn(t *testing.T) {
	partner := webtest.Start(t, nil)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	admin.must(201, "POST", "/users/data-administrators", `{"Email":"dana@example.com"}`)
	admin.must(201, "POST", "/references/identity-providers", `{"Name":"Partner","EmailDomains":["example.com"],"Issuer":"`+partner.URL+`/dev/idp","ClientId":"trustframe-cli"}`)

	c := webtest.Browser()
	resp, err := c.Get(env.URL + "/login?return_to=/organisations")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("sign-in page: %v %v", err, resp)
	}
	var choices []string
	docOf(t, resp).Find(`[data-testid=sign-in-choice]`).Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		choices = append(choices, s.Text()+" "+href)
	})
	if len(choices) != 2 || !strings.Contains(choices[0], "via=default") || !strings.Contains(choices[1], "Sign in with Partner") ||
		!strings.Contains(choices[1], "via=Partner") || !strings.Contains(choices[1], "return_to=%2Forganisations") {
		t.Fatalf("choices %q", choices)
	}
	resp = webtest.SignInAt(t, c, env.URL+"/login?via=Partner&return_to=/organisations", "dana@example.com")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.String() != env.URL+"/organisations" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("after sign-in through Partner: %d %s\n%s", resp.StatusCode, resp.Request.URL, b)
	}
	if who := docOf(t, resp).Find(`[data-testid=current-user]`).Text(); who != "dana@example.com" {
		t.Fatalf("signed in as %q", who)
	}
	// The default choice still goes to the sign-in issuer.
	other := webtest.Browser()
	if resp := webtest.SignInAt(t, other, env.URL+"/login?via=default", "admin@example.com"); resp.StatusCode != 200 {
		t.Fatalf("default sign-in: %d", resp.StatusCode)
	}

	// Inactive: no choice any more, and via=Partner is a 404.
	admin.must(200, "PUT", "/references/identity-providers/Partner", `{"EmailDomains":["example.com"],"Issuer":"`+partner.URL+`/dev/idp","ClientId":"trustframe-cli","Status":"Inactive"}`)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if r, err := noRedirect.Get(env.URL + "/login"); err != nil || r.StatusCode != http.StatusFound || !strings.HasPrefix(r.Header.Get("Location"), env.URL+"/dev/idp/authorize") {
		t.Fatalf("login with no provider offered: %v %v", err, r)
	}
	if r, _ := noRedirect.Get(env.URL + "/login?via=Partner"); r.StatusCode != 404 {
		t.Fatalf("via an Inactive provider: %d", r.StatusCode)
	}
}

// The client secret is write-only: sealed at rest, never answered, never in
// the audit log; an empty one on update keeps it, no ClientId drops it.
func TestIdentityProviderClientSecret(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	_, created := admin.do("POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","ClientId":"console","ClientSecret":"s3cret-value"}`)
	if created["HasClientSecret"] != true || created["ClientId"] != "console" || strings.Contains(toJSON(t, created), "s3cret") {
		t.Fatalf("created %v", created)
	}
	var raw []byte
	if err := env.DB.SQL().QueryRow(`SELECT client_secret FROM identity_providers WHERE name = 'kc'`).Scan(&raw); err != nil || len(raw) == 0 || strings.Contains(string(raw), "s3cret") {
		t.Fatalf("stored secret %q %v", raw, err)
	}
	// Update without a secret keeps it.
	if _, m := admin.do("PUT", "/references/identity-providers/kc", `{"EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","ClientId":"console","Description":"x"}`); m["HasClientSecret"] != true {
		t.Fatalf("secret lost on update: %v", m)
	}
	admin.must(422, "PUT", "/references/identity-providers/kc", `{"EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","ClientSecret":"only-a-secret"}`)
	if _, m := admin.do("PUT", "/references/identity-providers/kc", `{"EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`"}`); m["HasClientSecret"] != false || m["ClientId"] != "" {
		t.Fatalf("no ClientId keeps a secret: %v", m)
	}
	_, audit := admin.do("GET", "/audit?Subject=IdentityProvider", "")
	if s := toJSON(t, audit); strings.Contains(s, "s3cret") || !strings.Contains(s, "HasClientSecret") {
		t.Fatalf("audit %s", s)
	}
}

// A provider vouches only for its domains: a token or a sign-in for an
// e-mail of another domain is refused, whatever the role of that e-mail.
func TestIdentityProviderVouchesOnlyForItsDomains(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	admin.must(201, "POST", "/users/super", `{"Email":"root@partner.example","Status":"Active"}`)
	_, p := admin.do("POST", "/references/identity-providers", `{"Name":"partner","EmailDomains":["Partner.Example, @partner.example","partner.example"],"Issuer":"`+op.srv.URL+`","Audience":"automation"}`)
	if toJSON(t, p["EmailDomains"]) != `["partner.example"]` {
		t.Fatalf("domains normalised: %v", p["EmailDomains"])
	}
	tok := func(email string) string {
		return op.token(t, "at+jwt", map[string]any{"iss": op.srv.URL, "aud": "automation", "sub": "x", "email": email,
			"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
	}
	if r, b := do(t, "GET", env.URL+"/api/users/super", tok("root@partner.example"), ""); r.StatusCode != 200 {
		t.Fatalf("own domain: %d %s", r.StatusCode, b)
	}
	if r, b := do(t, "GET", env.URL+"/api/users/super", tok("admin@example.com"), ""); r.StatusCode != 401 || !strings.Contains(b, "may not vouch for admin@example.com") {
		t.Fatalf("another domain (the bootstrap Super User's): %d %s", r.StatusCode, b)
	}
	// "*" trusts the provider for any e-mail.
	admin.must(200, "PUT", "/references/identity-providers/partner", `{"EmailDomains":["*"],"Issuer":"`+op.srv.URL+`","Audience":"automation"}`)
	if r, _ := do(t, "GET", env.URL+"/api/users/super", tok("admin@example.com"), ""); r.StatusCode != 200 {
		t.Fatalf("with *: %d", r.StatusCode)
	}
}

// A confidential client: the sealed client secret is opened and sent to
// the provider's token endpoint, which refuses the exchange without it.
func TestIdentityProviderConfidentialClientSignIn(t *testing.T) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	var mu sync.Mutex
	nonces := map[string]string{} // code -> nonce
	var gotSecret string
	var op *httptest.Server
	op = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]any{"issuer": op.URL, "authorization_endpoint": op.URL + "/auth",
				"token_endpoint": op.URL + "/token", "jwks_uri": op.URL + "/jwks", "id_token_signing_alg_values_supported": []string{"RS256"}})
		case "/jwks":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k", Algorithm: "RS256", Use: "sig"}}})
		case "/auth": // signs the person in at once and sends them back
			q := r.URL.Query()
			mu.Lock()
			nonces["code-1"] = q.Get("nonce")
			mu.Unlock()
			http.Redirect(w, r, q.Get("redirect_uri")+"?code=code-1&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
		case "/token":
			id, secret, ok := r.BasicAuth()
			if !ok {
				r.ParseForm()
				id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
			}
			mu.Lock()
			gotSecret = secret
			nonce := nonces[r.PostFormValue("code")]
			mu.Unlock()
			if id != "console" || secret != "s3cret-value" {
				w.WriteHeader(http.StatusUnauthorized)
				json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
				return
			}
			sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k"}}, nil)
			idt, _ := jwt.Signed(sig).Claims(map[string]any{"iss": op.URL, "aud": "console", "sub": "u1", "email": "root@partner.example",
				"email_verified": true, "nonce": nonce, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}).Serialize()
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"access_token": "opaque", "token_type": "Bearer", "id_token": idt, "expires_in": 300})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(op.Close)

	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	admin.must(201, "POST", "/users/super", `{"Email":"root@partner.example","Status":"Active"}`)
	admin.must(201, "POST", "/references/identity-providers", `{"Name":"partner","EmailDomains":["partner.example"],"Issuer":"`+op.URL+`","ClientId":"console","ClientSecret":"s3cret-value"}`)
	c := webtest.Browser()
	resp, err := c.Get(env.URL + "/login?via=partner")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.String() != env.URL+"/" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("sign-in through a confidential client: %d %s %s", resp.StatusCode, resp.Request.URL, b)
	}
	if who := docOf(t, resp).Find(`[data-testid=current-user]`).Text(); who != "root@partner.example" || gotSecret != "s3cret-value" {
		t.Fatalf("signed in as %q, secret sent %q", who, gotSecret)
	}
	// Another secret: the provider refuses the exchange, and so does the sign-in.
	admin.must(200, "PUT", "/references/identity-providers/partner", `{"EmailDomains":["partner.example"],"Issuer":"`+op.URL+`","ClientId":"console","ClientSecret":"rotated"}`)
	other := webtest.Browser()
	resp2, err := other.Get(env.URL + "/login?via=partner")
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != 400 || gotSecret != "rotated" {
		t.Fatalf("with a secret the provider refuses: %d, sent %q", resp2.StatusCode, gotSecret)
	}
}

// TestIdentityProviderFormAsksForTheSecretAgain: a new identity provider's
// form refused once (here: a group mapped to SuperUser waits for the tick)
// comes back without the client secret that was typed, since a secret is
// never sent back to the browser. Nothing said so: ticking and saving again
// bound the provider without a secret, a public client its provider
// refuses. The field now asks for it again, and a save that leaves it empty
// is refused once more before it goes on without one.
func TestIdentityProviderFormAsksForTheSecretAgain(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	form := url.Values{"Name": {"kc"}, "Issuer": {op.srv.URL}, "EmailDomains": {"example.com"}, "ClientId": {"console"},
		"ClientSecret": {"s3cret-value"}, "GroupsClaim": {"groups"}, "GroupRoles": {"ops = SuperUser"}, "Status": {"Active"}}
	status, doc := postForm(t, c, env.URL+"/references/identity-providers", form)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", status)
	}
	if h, _ := doc.Html(); strings.Contains(h, "s3cret") {
		t.Fatal("the page holds the secret")
	}
	msg := doc.Find("#e-ClientSecret").Text()
	if v, _ := doc.Find("#f-ClientSecret").Attr("aria-invalid"); v != "true" || !strings.Contains(msg, "again") {
		t.Fatalf("the secret field does not ask for the secret again (%q)", msg)
	}
	// Ticked and sent again with the secret field as the page left it: empty.
	again := browserForm(doc, "/references/identity-providers")
	again.Set("ConfirmSuperUser", "on")
	status, doc = postForm(t, c, env.URL+"/references/identity-providers", again)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("sent again without the secret: status %d, want 422 (bound without its secret)", status)
	}
	if v, _ := doc.Find("#f-ClientSecret").Attr("aria-invalid"); v != "true" {
		t.Error("the second refusal does not name the secret field")
	}
	// Typed again, the tick kept by the page: bound, with its secret.
	again = browserForm(doc, "/references/identity-providers")
	if again.Get("ConfirmSuperUser") != "on" {
		t.Error("the second refusal dropped the Super User tick")
	}
	again.Set("ClientSecret", "s3cret-value")
	if status, doc = postForm(t, c, env.URL+"/references/identity-providers", again); status != http.StatusOK {
		t.Fatalf("with the secret typed again: status %d: %s", status, doc.Find("[role=alert]").Text())
	}
	var raw []byte
	if err := env.DB.SQL().QueryRow(`SELECT client_secret FROM identity_providers WHERE name = 'kc'`).Scan(&raw); err != nil || len(raw) == 0 {
		t.Fatalf("stored secret %q %v", raw, err)
	}
}
