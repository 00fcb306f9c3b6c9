package web_test

// Token requests that must get no token (docs/design.md §20), as an
// attacker would send them: hand-made JWS (alg none, HS256 with the public
// key as secret, headers bringing their own key, crit, nested), odd claims
// and forms, DPoP proofs of the wrong key; and application tokens where
// they do not reach. Every refusal is an RFC 6749 §5.2 error at the token
// endpoint and 401/403/404 at /api: never a 500, never a token.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

var b64 = base64.RawURLEncoding

// rawJWS signs header.payload (both raw JSON text, so that duplicate
// members can be sent) with alg by key; alg "none" signs nothing, HS*
// takes key as a []byte secret.
func rawJWS(t testing.TB, header, payload string, alg string, key any) string {
	t.Helper()
	input := b64.EncodeToString([]byte(header)) + "." + b64.EncodeToString([]byte(payload))
	sum := sha256.Sum256([]byte(input))
	var sig []byte
	var err error
	switch {
	case alg == "none":
	case alg == "HS256":
		m := hmac.New(sha256.New, key.([]byte))
		m.Write([]byte(input))
		sig = m.Sum(nil)
	case alg == "ES256":
		k := key.(*ecdsa.PrivateKey)
		r, s, e := ecdsa.Sign(rand.Reader, k, sum[:])
		err = e
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	case alg == "RS256":
		sig, err = rsa.SignPKCS1v15(rand.Reader, key.(*rsa.PrivateKey), crypto.SHA256, sum[:])
	case alg == "PS256":
		sig, err = rsa.SignPSS(rand.Reader, key.(*rsa.PrivateKey), crypto.SHA256, sum[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	case alg == "EdDSA":
		sig = ed25519.Sign(key.(ed25519.PrivateKey), []byte(input))
	default:
		t.Fatalf("alg %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64.EncodeToString(sig)
}

// assertionForm is a token request carrying raw as its client assertion.
func assertionForm(raw string) url.Values {
	return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion": {raw}}
}

// postTokenRaw sends body as ct to the token endpoint with hdr.
func postTokenRaw(t testing.TB, env *webtest.Env, method, ct, body string, hdr http.Header) (*http.Response, map[string]any, string) {
	t.Helper()
	req, _ := http.NewRequest(method, env.URL+"/oauth/token", strings.NewReader(body))
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp, m, string(b)
}

// oauthRefusal checks an answer of the token endpoint is an RFC 6749 §5.2
// refusal (400 or 401 with error and error_description) and no token.
func oauthRefusal(t *testing.T, name string, resp *http.Response, m map[string]any, body string) {
	t.Helper()
	if (resp.StatusCode != 400 && resp.StatusCode != 401) || m["error"] == nil || m["error_description"] == nil || m["access_token"] != nil {
		t.Errorf("%s: %d %.300s, want 400/401 with error and no token", name, resp.StatusCode, body)
	}
}

// tokProbe is an application with an EC key and an RSA key bound to it,
// a sibling application of its organisation with its own key, and a
// person's token.
type tokProbe struct {
	env      *webtest.Env
	su       *api
	c        *appClient
	rsaKey   *rsa.PrivateKey
	rsaKid   string
	sibling  *appClient
	endpoint string
}

func newTokProbe(t *testing.T, mod func(*web.Config)) tokProbe {
	env := webtest.Start(t, mod)
	su := newAPI(t, env, "admin@example.com")
	c := newAppClient(t, env, su)
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwk, _ := json.Marshal(jose.JSONWebKey{Key: rk.Public(), Use: "sig"})
	su.must(201, "POST", "/organisations/"+c.orgID+"/key-material", `{"PublicJwk":`+string(jwk)+`,"Use":"sig","SoftwareStatementId":"`+c.appID+`"}`)
	tp, _ := (&jose.JSONWebKey{Key: rk.Public()}).Thumbprint(crypto.SHA256)
	other := su.must(201, "POST", "/organisations/"+c.orgID+"/softwarestatements", `{"ClientName":"Sibling"}`)["SoftwareStatementId"].(string)
	return tokProbe{env: env, su: su, c: c, rsaKey: rk, rsaKid: b64.EncodeToString(tp), sibling: newAppClientOf(t, env, su, c.orgID, other),
		endpoint: env.URL + "/oauth/token"}
}

// claimsJSON is a good assertion's claims of c with mod applied, as JSON.
func (p tokProbe) claimsJSON(mod func(map[string]any)) string {
	cl := p.c.claims()
	if mod != nil {
		mod(cl)
	}
	return mustMarshal(cl)
}

func hdr(kv ...any) string {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return mustMarshal(m)
}

// TestClientAssertionForgeriesRefused: assertions that must not get a
// token, whatever their header says about how to check them.
func TestClientAssertionForgeriesRefused(t *testing.T) {
	p := newTokProbe(t, nil)
	c := p.c
	ecJWK, _ := json.Marshal(jose.JSONWebKey{Key: c.key.Public()})
	rsaPub, _ := x509.MarshalPKIXPublicKey(p.rsaKey.Public())
	rsaPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: rsaPub})
	attacker, attackerKid := newClientKey(t)
	attackerJWK, _ := json.Marshal(jose.JSONWebKey{Key: attacker.Public(), KeyID: attackerKid})
	var fetched atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"keys":[%s]}`, attackerJWK)
	}))
	defer evil.Close()
	selfSigned := func() string {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: c.appID}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, attacker.Public(), attacker)
		if err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(der)
	}()
	nested := rawJWS(t, hdr("alg", "ES256", "kid", c.kid), p.claimsJSON(nil), "ES256", c.key)

	for _, tc := range []struct {
		name, raw string
	}{
		{"alg none", rawJWS(t, hdr("alg", "none", "kid", c.kid), p.claimsJSON(nil), "none", nil)},
		{"alg None", rawJWS(t, hdr("alg", "None"), p.claimsJSON(nil), "none", nil)},
		{"alg none, a signature kept", rawJWS(t, hdr("alg", "none", "kid", c.kid), p.claimsJSON(nil), "none", nil) + "AAAA"},
		{"HS256, the EC JWK as secret", rawJWS(t, hdr("alg", "HS256", "kid", c.kid), p.claimsJSON(nil), "HS256", ecJWK)},
		{"HS256, the RSA PEM as secret", rawJWS(t, hdr("alg", "HS256", "kid", p.rsaKid), p.claimsJSON(nil), "HS256", rsaPEM)},
		{"HS256, the RSA PEM as secret, no kid", rawJWS(t, hdr("alg", "HS256"), p.claimsJSON(nil), "HS256", rsaPEM)},
		{"ES256 header on an RSA key", rawJWS(t, hdr("alg", "ES256", "kid", p.rsaKid), p.claimsJSON(nil), "RS256", p.rsaKey)},
		{"RS256 header on the EC key", rawJWS(t, hdr("alg", "RS256", "kid", c.kid), p.claimsJSON(nil), "ES256", c.key)},
		{"PS256 header, RS256 signature", rawJWS(t, hdr("alg", "PS256", "kid", p.rsaKid), p.claimsJSON(nil), "RS256", p.rsaKey)},
		{"RS256 header, PS256 signature", rawJWS(t, hdr("alg", "RS256", "kid", p.rsaKid), p.claimsJSON(nil), "PS256", p.rsaKey)},
		{"EdDSA header on the EC key", rawJWS(t, hdr("alg", "EdDSA", "kid", c.kid), p.claimsJSON(nil), "ES256", c.key)},
		{"its own jwk, no kid", rawJWS(t, `{"alg":"ES256","jwk":`+string(attackerJWK)+`}`, p.claimsJSON(nil), "ES256", attacker)},
		{"its own jwk, the registered kid", rawJWS(t, `{"alg":"ES256","kid":"`+c.kid+`","jwk":`+string(attackerJWK)+`}`, p.claimsJSON(nil), "ES256", attacker)},
		{"jku", rawJWS(t, hdr("alg", "ES256", "kid", attackerKid, "jku", evil.URL), p.claimsJSON(nil), "ES256", attacker)},
		{"x5u", rawJWS(t, hdr("alg", "ES256", "x5u", evil.URL), p.claimsJSON(nil), "ES256", attacker)},
		{"x5c self-signed", rawJWS(t, hdr("alg", "ES256", "x5c", []string{selfSigned}), p.claimsJSON(nil), "ES256", attacker)},
		{"kid of the sibling's key", rawJWS(t, hdr("alg", "ES256", "kid", p.sibling.kid), p.claimsJSON(nil), "ES256", p.sibling.key)},
		{"sub and iss the sibling, own key", rawJWS(t, hdr("alg", "ES256", "kid", c.kid), p.claimsJSON(func(m map[string]any) { m["iss"], m["sub"] = p.sibling.appID, p.sibling.appID }), "ES256", c.key)},
		{"iss the sibling, sub own", rawJWS(t, hdr("alg", "ES256", "kid", c.kid), p.claimsJSON(func(m map[string]any) { m["iss"] = p.sibling.appID }), "ES256", c.key)},
		{"duplicate alg (ES256, then none)", rawJWS(t, `{"alg":"ES256","kid":"`+c.kid+`","alg":"none"}`, p.claimsJSON(nil), "none", nil)},
		{"nested JWS as the payload", rawJWS(t, hdr("alg", "ES256", "kid", attackerKid, "cty", "JWT"), `"`+nested+`"`, "ES256", attacker)},
		{"nested JWS, payload raw", func() string {
			h := b64.EncodeToString([]byte(hdr("alg", "ES256", "kid", c.kid, "cty", "JWT")))
			in := h + "." + b64.EncodeToString([]byte(nested))
			sum := sha256.Sum256([]byte(in))
			r, s, _ := ecdsa.Sign(rand.Reader, attacker, sum[:])
			return in + "." + b64.EncodeToString(append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...))
		}()},
		{"JWE compact (5 parts)", b64.EncodeToString([]byte(`{"alg":"dir","enc":"A128GCM","kid":"`+c.kid+`"}`)) + "..AAAAAAAAAAAAAAAA." + b64.EncodeToString([]byte(p.claimsJSON(nil))) + ".AAAAAAAAAAAAAAAAAAAAAA"},
		{"JWS JSON serialization", `{"payload":"` + b64.EncodeToString([]byte(p.claimsJSON(nil))) + `","protected":"` + b64.EncodeToString([]byte(hdr("alg", "ES256", "kid", c.kid))) + `","signature":"AAAA"}`},
		{"two signatures (JSON)", `{"payload":"x","signatures":[{"protected":"e30","signature":"AA"},{"protected":"e30","signature":"AA"}]}`},
		{"four parts", nested + ".AAAA"},
		{"empty parts", ".."},
		{"not base64", "!!!.???.***"},
		{"header not an object", b64.EncodeToString([]byte(`[1]`)) + "." + b64.EncodeToString([]byte(p.claimsJSON(nil))) + ".AAAA"},
		{"claims not an object", rawJWS(t, hdr("alg", "ES256", "kid", c.kid), `[1,2]`, "ES256", c.key)},
		{"claims deeply nested", rawJWS(t, hdr("alg", "ES256", "kid", c.kid), `{"x":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+`}`, "ES256", c.key)},
		{"an access token of the directory as the assertion", c.token()},
		{"a person's token as the assertion", p.su.token},
	} {
		resp, m, body := postTokenRaw(t, p.env, "POST", "application/x-www-form-urlencoded", assertionForm(tc.raw).Encode(), nil)
		oauthRefusal(t, tc.name, resp, m, body)
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("the directory fetched a key the assertion pointed at (%d times)", n)
	}
	// Controls: the hand-made assertion is good when it is good (EC, RS256, PS256).
	for _, tc := range []struct{ name, raw string }{
		{"ES256", rawJWS(t, hdr("alg", "ES256", "kid", c.kid), p.claimsJSON(nil), "ES256", c.key)},
		{"RS256", rawJWS(t, hdr("alg", "RS256", "kid", p.rsaKid), p.claimsJSON(nil), "RS256", p.rsaKey)},
		{"PS256 without kid", rawJWS(t, hdr("alg", "PS256"), p.claimsJSON(nil), "PS256", p.rsaKey)},
	} {
		if resp, m, body := postTokenRaw(t, p.env, "POST", "application/x-www-form-urlencoded", assertionForm(tc.raw).Encode(), nil); resp.StatusCode != 200 || m["access_token"] == nil {
			t.Errorf("control %s: %d %.300s", tc.name, resp.StatusCode, body)
		}
	}
}

// TestClientAssertionCrit: a crit header the directory does not
// understand makes the assertion invalid (RFC 7515 §4.1.11), even signed
// by the application's own key. (crit ["b64"] with b64 true is understood
// by the JOSE library and changes nothing: it is accepted.)
func TestClientAssertionCrit(t *testing.T) {
	p := newTokProbe(t, nil)
	c := p.c
	for name, h := range map[string]string{
		"unknown crit":    `{"alg":"ES256","kid":"` + c.kid + `","crit":["urn:example:must-check"],"urn:example:must-check":true}`,
		"crit naming exp": `{"alg":"ES256","kid":"` + c.kid + `","crit":["exp"],"exp":1}`,
	} {
		resp, m, body := postTokenRaw(t, p.env, "POST", "application/x-www-form-urlencoded", assertionForm(rawJWS(t, h, p.claimsJSON(nil), "ES256", c.key)).Encode(), nil)
		oauthRefusal(t, name, resp, m, body)
	}
}

// TestClientAssertionOddClaims: claims of odd types and values.
func TestClientAssertionOddClaims(t *testing.T) {
	p := newTokProbe(t, nil)
	c := p.c
	now := time.Now()
	for _, tc := range []struct {
		name string
		mod  func(map[string]any)
		ok   bool
	}{
		{"aud an array without the endpoint", func(m map[string]any) { m["aud"] = []string{"https://elsewhere.example", p.env.URL + "/api"} }, false},
		{"aud an array with the endpoint", func(m map[string]any) { m["aud"] = []string{"https://elsewhere.example", p.endpoint} }, true},
		{"aud the endpoint with a trailing slash", func(m map[string]any) { m["aud"] = p.endpoint + "/" }, false},
		{"aud empty", func(m map[string]any) { m["aud"] = "" }, false},
		{"aud a number", func(m map[string]any) { m["aud"] = 1 }, false},
		{"nbf ahead", func(m map[string]any) { m["nbf"] = now.Add(2 * time.Minute).Unix() }, false},
		{"exp a string", func(m map[string]any) { m["exp"] = fmt.Sprint(now.Add(time.Minute).Unix()) }, false},
		{"exp a float", func(m map[string]any) { m["exp"] = float64(now.Add(time.Minute).Unix()) + 0.5 }, true},
		{"exp huge", func(m map[string]any) { m["exp"] = 1e300 }, false},
		{"exp past int64", func(m map[string]any) { m["exp"] = 9.3e18 }, false},
		{"exp negative", func(m map[string]any) { m["exp"] = -1 }, false},
		{"exp null", func(m map[string]any) { m["exp"] = nil }, false},
		{"exp an object", func(m map[string]any) { m["exp"] = map[string]any{} }, false},
		{"jti missing", func(m map[string]any) { delete(m, "jti") }, false},
		{"jti empty", func(m map[string]any) { m["jti"] = "" }, false},
		{"jti a number", func(m map[string]any) { m["jti"] = 12 }, false},
		{"iss empty, sub empty", func(m map[string]any) { m["iss"], m["sub"] = "", "" }, false},
		{"iss a number", func(m map[string]any) { m["iss"] = 1 }, false},
		{"sub missing", func(m map[string]any) { delete(m, "sub") }, false},
	} {
		raw := rawJWS(t, hdr("alg", "ES256", "kid", c.kid), p.claimsJSON(tc.mod), "ES256", c.key)
		resp, m, body := postTokenRaw(t, p.env, "POST", "application/x-www-form-urlencoded", assertionForm(raw).Encode(), nil)
		if tc.ok {
			if resp.StatusCode != 200 {
				t.Errorf("%s: %d %.300s, want a token", tc.name, resp.StatusCode, body)
			}
			continue
		}
		oauthRefusal(t, tc.name, resp, m, body)
	}
	// Duplicate members: whatever member is read, it is the one checked.
	dup := func(first, second string) string {
		cl := p.c.claims()
		delete(cl, "iss")
		b := mustMarshal(cl)
		return `{"iss":"` + first + `","iss":"` + second + `",` + b[1:]
	}
	for name, claims := range map[string]string{
		"iss of the sibling, then own": dup(p.sibling.appID, c.appID),
		"iss own, then the sibling":    dup(c.appID, p.sibling.appID),
	} {
		raw := rawJWS(t, hdr("alg", "ES256", "kid", c.kid), claims, "ES256", c.key)
		resp, m, body := postTokenRaw(t, p.env, "POST", "application/x-www-form-urlencoded", assertionForm(raw).Encode(), nil)
		if resp.StatusCode == 200 {
			if _, cl := jwtParts(t, m["access_token"].(string)); cl["client_id"] != c.appID {
				t.Errorf("%s: a token for %v", name, cl["client_id"])
			}
			continue
		}
		oauthRefusal(t, name, resp, m, body)
	}
}

// TestClientTokenRequestForms: the request around the assertion.
func TestClientTokenRequestForms(t *testing.T) {
	p := newTokProbe(t, nil)
	c := p.c
	form := func(mod func(url.Values)) string {
		f := c.form(nil)
		if mod != nil {
			mod(f)
		}
		return f.Encode()
	}
	for _, tc := range []struct {
		name, method, ct, body string
		hdr                    http.Header
	}{
		{"client_assertion twice", "POST", "application/x-www-form-urlencoded", form(func(f url.Values) { f.Add("client_assertion", f.Get("client_assertion")) }), nil},
		{"grant_type twice", "POST", "application/x-www-form-urlencoded", form(func(f url.Values) { f.Add("grant_type", "client_credentials") }), nil},
		{"client_id another", "POST", "application/x-www-form-urlencoded", form(func(f url.Values) { f.Set("client_id", p.sibling.appID) }), nil},
		{"client_assertion_type other", "POST", "application/x-www-form-urlencoded", form(func(f url.Values) {
			f.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:saml2-bearer")
		}), nil},
		{"JSON body", "POST", "application/json", mustMarshal(map[string]string{"grant_type": "client_credentials", "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", "client_assertion": c.form(nil).Get("client_assertion")}), nil},
		{"form body sent as text/plain", "POST", "text/plain", form(nil), nil},
		{"no Content-Type", "POST", "", form(nil), nil},
		{"multipart", "POST", "multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"grant_type\"\r\n\r\nclient_credentials\r\n--x--\r\n", nil},
		{"parameters in the query only", "POST", "application/x-www-form-urlencoded", "", nil},
		{"body over 64 KiB", "POST", "application/x-www-form-urlencoded", form(func(f url.Values) { f.Set("client_assertion", strings.Repeat("A", 70<<10)) }), nil},
		{"an assertion of 60 KiB", "POST", "application/x-www-form-urlencoded", assertionForm(rawJWS(t, hdr("alg", "ES256", "kid", c.kid), p.claimsJSON(func(m map[string]any) { m["pad"] = strings.Repeat("x", 40<<10); m["aud"] = "nowhere" }), "ES256", c.key)).Encode(), nil},
		{"bad percent-encoding", "POST", "application/x-www-form-urlencoded", "grant_type=%zz", nil},
		{"GET", "GET", "", "", nil},
		{"two DPoP headers", "POST", "application/x-www-form-urlencoded", form(nil), http.Header{"Dpop": {proof(t, newDPoPSigner(t), "POST", p.endpoint, "", ""), proof(t, newDPoPSigner(t), "POST", p.endpoint, "", "")}}},
		{"DPoP of the wrong htu", "POST", "application/x-www-form-urlencoded", form(nil), http.Header{"Dpop": {proof(t, newDPoPSigner(t), "POST", p.env.URL+"/api/organisations", "", "")}}},
		{"DPoP not a JWT", "POST", "application/x-www-form-urlencoded", form(nil), http.Header{"Dpop": {"hello"}}},
		{"DPoP signed by another key than its jwk", "POST", "application/x-www-form-urlencoded", form(nil), http.Header{"Dpop": {func() string {
			a, b := newDPoPSigner(t), newDPoPSigner(t)
			pa, pb := strings.Split(proof(t, a, "POST", p.endpoint, "", ""), "."), strings.Split(proof(t, b, "POST", p.endpoint, "", ""), ".")
			return pa[0] + "." + pa[1] + "." + pb[2]
		}()}}},
	} {
		if tc.name == "parameters in the query only" {
			req, _ := http.NewRequest("POST", p.endpoint+"?"+form(nil), nil)
			req.Header.Set("Content-Type", tc.ct)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			oauthRefusal(t, tc.name, resp, m, string(b))
			continue
		}
		resp, m, body := postTokenRaw(t, p.env, tc.method, tc.ct, tc.body, tc.hdr)
		if tc.method == "GET" {
			if resp.StatusCode != 405 || m["error"] != "invalid_request" {
				t.Errorf("GET: %d %.200s", resp.StatusCode, body)
			}
			continue
		}
		oauthRefusal(t, tc.name, resp, m, body)
	}
}

// TestClientTokenOneAuthenticationMethod: a token request that
// authenticates the client in two ways (a client assertion and a
// client_secret, or an Authorization header) is refused as
// invalid_request (RFC 6749 §2.3: a client MUST NOT use more than one
// authentication method in each request).
func TestClientTokenOneAuthenticationMethod(t *testing.T) {
	p := newTokProbe(t, nil)
	c := p.c
	f := c.form(nil)
	f.Set("client_secret", "s3cret")
	resp, m, body := postTokenRaw(t, p.env, "POST", "application/x-www-form-urlencoded", f.Encode(), nil)
	if resp.StatusCode != 400 || m["error"] != "invalid_request" {
		t.Errorf("with client_secret too: %d %.300s", resp.StatusCode, body)
	}
	resp, m, body = postTokenRaw(t, p.env, "POST", "application/x-www-form-urlencoded", c.form(nil).Encode(),
		http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(c.appID+":s3cret"))}})
	if resp.StatusCode != 400 || m["error"] != "invalid_request" {
		t.Errorf("with Authorization: Basic too: %d %.300s", resp.StatusCode, body)
	}
}

// TestApplicationTokenElsewhere: an application's token where it
// does not belong.
func TestApplicationTokenElsewhere(t *testing.T) {
	p := newTokProbe(t, nil)
	c := p.c
	tok := c.token()
	// The console (outside /api) takes no Authorization header: its pages
	// answer as to anyone without a session (the sign-in page, or the
	// public home page without the organisation).
	for _, path := range []string{"/organisations/" + c.orgID, "/organisations/" + c.orgID + "/softwarestatements/" + c.appID, "/references", "/audit"} {
		resp, _ := send(t, "GET", p.env.URL+path, "Authorization", "Bearer "+tok, "Accept", "text/html")
		if resp.StatusCode != 302 || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
			t.Errorf("console %s with an application's token: %d %s, want the sign-in page", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if resp, body := send(t, "GET", p.env.URL+"/", "Authorization", "Bearer "+tok, "Accept", "text/html"); resp.StatusCode != 200 || strings.Contains(body, c.orgID) || strings.Contains(body, "Sign out") {
		t.Errorf("the home page with an application's token: %d, signed in or naming its organisation", resp.StatusCode)
	}
	for _, path := range []string{"/organisations/" + c.orgID + "/softwarestatements/" + c.appID} {
		resp, _ := send(t, "PUT", p.env.URL+path, "Authorization", "Bearer "+tok)
		if resp.StatusCode < 300 || resp.StatusCode >= 500 {
			t.Errorf("console PUT %s with an application's token: %d", path, resp.StatusCode)
		}
	}
	// A DPoP-bound token with a proof of another key, and of its key for another URL.
	signer := newDPoPSigner(t)
	_, m := postToken(t, p.env, c.form(nil), signer)
	bound := m["access_token"].(string)
	u := p.env.URL + "/api/organisations/" + c.orgID
	for name, h := range map[string]http.Header{
		"a proof of another key":         {"Authorization": {"DPoP " + bound}, "Dpop": {proof(t, newDPoPSigner(t), "GET", u, bound, "")}},
		"a proof for another URL":        {"Authorization": {"DPoP " + bound}, "Dpop": {proof(t, signer, "GET", u+"/softwarestatements", bound, "")}},
		"a proof for another method":     {"Authorization": {"DPoP " + bound}, "Dpop": {proof(t, signer, "POST", u, bound, "")}},
		"a proof of another token (ath)": {"Authorization": {"DPoP " + bound}, "Dpop": {proof(t, signer, "GET", u, tok, "")}},
		"no proof":                       {"Authorization": {"DPoP " + bound}},
		"an unbound token as DPoP":       {"Authorization": {"DPoP " + tok}, "Dpop": {proof(t, signer, "GET", u, tok, "")}},
	} {
		resp, body := call(t, "GET", u, h)
		if resp.StatusCode != 401 && resp.StatusCode != 400 {
			t.Errorf("%s: %d %.200s", name, resp.StatusCode, body)
		}
	}
	// A tampered token of the directory (its claims changed) is refused.
	parts := strings.Split(tok, ".")
	var cl map[string]any
	raw, _ := b64.DecodeString(parts[1])
	json.Unmarshal(raw, &cl)
	cl["client_id"], cl["software_id"] = p.sibling.appID, p.sibling.appID
	forged := parts[0] + "." + b64.EncodeToString([]byte(mustMarshal(cl))) + "." + parts[2]
	app := &api{t: t, base: p.env.URL, token: forged}
	if resp, m := app.do("GET", "/organisations/"+c.orgID+"/softwarestatements/"+p.sibling.appID, ""); resp.StatusCode != 401 {
		t.Errorf("a tampered application token: %d %v", resp.StatusCode, m)
	}
	// The directory's iss on a token signed by someone else (alg none, HS256).
	for name, forged := range map[string]string{
		"alg none":           rawJWS(t, hdr("alg", "none", "typ", "at+jwt"), string(raw), "none", nil),
		"HS256":              rawJWS(t, hdr("alg", "HS256", "typ", "at+jwt"), string(raw), "HS256", []byte("secret")),
		"EdDSA, another key": rawJWS(t, hdr("alg", "EdDSA", "typ", "at+jwt"), string(raw), "EdDSA", func() ed25519.PrivateKey { _, k, _ := ed25519.GenerateKey(rand.Reader); return k }()),
	} {
		app := &api{t: t, base: p.env.URL, token: forged}
		if resp, m := app.do("GET", "/organisations/"+c.orgID, ""); resp.StatusCode != 401 {
			t.Errorf("a forged application token (%s): %d %v", name, resp.StatusCode, m)
		}
	}
}
