package web_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestAPITokenFromCodeFlowCreatesAndDeactivatesSuperUser obtains a token as
// an external client would (authorization code + PKCE over HTTP) and uses it.
func TestAPITokenFromCodeFlowCreatesAndDeactivatesSuperUser(t *testing.T) {
	env := webtest.Start(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil)
	if tok.TokenType != "bearer" && tok.TokenType != "Bearer" {
		t.Fatalf("token_type %q", tok.TokenType)
	}
	if tok.RefreshToken == "" {
		t.Fatal("offline_access must give a refresh token")
	}
	resp, body := do(t, "POST", env.URL+"/api/users/super", tok.AccessToken, `{"Email":"ops@example.com","Status":"Active"}`)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Location") != "/api/users/super/ops@example.com" {
		t.Fatalf("create: %d %s %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, body = do(t, "PUT", env.URL+"/api/users/super/ops@example.com", tok.AccessToken, `{"Status":"Inactive"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"Status":"Inactive"`) {
		t.Fatalf("deactivate: %d %s", resp.StatusCode, body)
	}
	resp, body = do(t, "GET", env.URL+"/api/users/super", tok.AccessToken, "")
	var list []store.SuperUser
	_ = json.Unmarshal([]byte(body), &list)
	if resp.StatusCode != 200 || len(list) != 2 || list[1].Email != "ops@example.com" || list[1].Status != "Inactive" {
		t.Fatalf("list: %d %s", resp.StatusCode, body)
	}
	recs, _, _ := env.DB.ListAudit(context.Background(), store.AuditFilter{SubjectType: "SuperUser", SubjectID: "ops@example.com"})
	if len(recs) != 2 || recs[0].Action != "status" || recs[1].Action != "create" || recs[0].Actor != "admin@example.com" {
		t.Fatalf("audit: %+v", recs)
	}
}

func TestSuperUserBadInput(t *testing.T) {
	env := webtest.Start(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	big := `{"Email":"` + strings.Repeat("a", 2<<20) + `@example.com","Status":"Active"}`
	cases := []struct {
		name, method, path, body, ctype string
		status                          int
		code                            string
	}{
		{"malformed JSON", "POST", "/api/users/super", `{"Email":`, "application/json", 400, "malformed_json"},
		{"unknown field", "POST", "/api/users/super", `{"Email":"a@example.com","Status":"Active","Role":"x"}`, "application/json", 400, "unknown_field"},
		{"wrong type", "POST", "/api/users/super", `{"Email":5,"Status":"Active"}`, "application/json", 400, "invalid_type"},
		{"two values", "POST", "/api/users/super", `{"Email":"a@example.com","Status":"Active"}{}`, "application/json", 400, "malformed_json"},
		{"wrong media type", "POST", "/api/users/super", `Email=a@example.com`, "application/x-www-form-urlencoded", 415, "unsupported_media_type"},
		{"text body", "POST", "/api/users/super", `hello`, "text/plain", 415, "unsupported_media_type"},
		{"oversized", "POST", "/api/users/super", big, "application/json", 413, "too_large"},
		{"invalid e-mail", "POST", "/api/users/super", `{"Email":"not-an-email","Status":"Active"}`, "application/json", 422, "validation_failed"},
		{"display-name e-mail", "POST", "/api/users/super", `{"Email":"Bob <bob@example.com>","Status":"Active"}`, "application/json", 422, "validation_failed"},
		{"unknown status", "POST", "/api/users/super", `{"Email":"a@example.com","Status":"Deleted"}`, "application/json", 422, "validation_failed"},
		{"lowercase status", "POST", "/api/users/super", `{"Email":"a@example.com","Status":"active"}`, "application/json", 422, "validation_failed"},
		{"missing status", "POST", "/api/users/super", `{"Email":"a@example.com"}`, "application/json", 422, "validation_failed"},
		{"existing e-mail", "POST", "/api/users/super", `{"Email":"admin@example.com","Status":"Active"}`, "application/json", 409, "conflict"},
		{"update unknown status", "PUT", "/api/users/super/admin@example.com", `{"Status":"Withdrawn"}`, "application/json", 422, "validation_failed"},
		{"update unknown user", "PUT", "/api/users/super/nobody@example.com", `{"Status":"Active"}`, "application/json", 404, "not_found"},
		{"get unknown user", "GET", "/api/users/super/nobody@example.com", ``, "", 404, "not_found"},
		{"hard delete", "DELETE", "/api/users/super/admin@example.com", ``, "", 405, "method_not_allowed"},
		{"last super user", "PUT", "/api/users/super/admin@example.com", `{"Status":"Inactive"}`, "application/json", 409, "conflict"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, _ := env.DB.ListSuperUsers(context.Background())
			req, _ := http.NewRequest(c.method, env.URL+c.path, strings.NewReader(c.body))
			if c.ctype != "" {
				req.Header.Set("Content-Type", c.ctype)
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var prob struct {
				Status int `json:"status"`
				Errors []struct {
					Code, Field string
				} `json:"errors"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&prob)
			if resp.StatusCode != c.status || prob.Status != c.status || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("status %d (body %d, %s), want %d", resp.StatusCode, prob.Status, resp.Header.Get("Content-Type"), c.status)
			}
			if c.code != "validation_failed" && (len(prob.Errors) == 0 || prob.Errors[0].Code != c.code) {
				t.Fatalf("errors %+v, want code %s", prob.Errors, c.code)
			}
			if c.code == "validation_failed" && (len(prob.Errors) == 0 || prob.Errors[0].Field == "") {
				t.Fatalf("validation errors must name their field: %+v", prob.Errors)
			}
			after, _ := env.DB.ListSuperUsers(context.Background())
			if len(after) != len(before) || after[0].Status != before[0].Status {
				t.Fatal("a refused request changed the Super Users")
			}
		})
	}
}

func TestStaleIfMatchIsRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	resp, _ := do(t, "POST", env.URL+"/api/users/super", tok, `{"Email":"b@example.com","Status":"Active"}`)
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag on create")
	}
	do(t, "PUT", env.URL+"/api/users/super/b@example.com", tok, `{"Status":"Inactive"}`)
	req, _ := http.NewRequest("PUT", env.URL+"/api/users/super/b@example.com", strings.NewReader(`{"Status":"Active"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("If-Match", etag)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("stale If-Match: %d", r.StatusCode)
	}
	u, _ := env.DB.GetSuperUser(context.Background(), "b@example.com")
	if u.Status != "Inactive" {
		t.Fatal("a 412 changed the resource")
	}
}

// TestAccessMatrix runs every administrator endpoint for anonymous callers,
// a Data Administrator, a Super User and an Inactive Super User.
func TestAccessMatrix(t *testing.T) {
	env := webtest.Start(t, nil)
	ctx := context.Background()
	admin := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	do(t, "POST", env.URL+"/api/users/data-administrators", admin, `{"Email":"dana@example.com"}`)
	do(t, "POST", env.URL+"/api/users/super", admin, `{"Email":"gone@example.com","Status":"Active"}`)
	dana := webtest.Token(t, env.URL, "dana@example.com", nil).AccessToken
	gone := webtest.Token(t, env.URL, "gone@example.com", nil).AccessToken
	if _, err := env.DB.SetSuperUserStatus(ctx, store.Audit{Actor: "test"}, "gone@example.com", "Inactive", nil); err != nil {
		t.Fatal(err)
	}
	endpoints := []struct{ method, path, body string }{
		{"GET", "/api/users/super", ""},
		{"POST", "/api/users/super", `{"Email":"new-%s@example.com","Status":"Active"}`},
		{"GET", "/api/users/super/admin@example.com", ""},
		{"PUT", "/api/users/super/admin@example.com", `{"Status":"Active"}`},
		{"GET", "/api/users/data-administrators", ""},
		{"POST", "/api/users/data-administrators", `{"Email":"inv-%s@example.com"}`},
		{"GET", "/api/users/data-administrators/dana@example.com", ""},
		{"PUT", "/api/users/data-administrators/dana@example.com", `{"Status":"Active"}`},
	}
	callers := []struct {
		name, token string
		want        func(superOnly bool) int
	}{
		{"anonymous", "", func(bool) int { return 401 }},
		{"data administrator", dana, func(superOnly bool) int {
			if superOnly {
				return 403
			}
			return 200
		}},
		{"super user", admin, func(bool) int { return 200 }},
		{"inactive super user", gone, func(bool) int { return 403 }},
	}
	for _, c := range callers {
		for _, e := range endpoints {
			t.Run(c.name+" "+e.method+" "+e.path, func(t *testing.T) {
				body := e.body
				if strings.Contains(body, "%s") {
					body = strings.ReplaceAll(body, "%s", strings.ReplaceAll(c.name, " ", "-"))
				}
				resp, b := do(t, e.method, env.URL+e.path, c.token, body)
				want := c.want(true)
				if want == 200 && e.method == "POST" {
					want = 201
				}
				if resp.StatusCode != want {
					t.Fatalf("got %d, want %d: %s", resp.StatusCode, want, b)
				}
				if want == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("401 without a Bearer challenge")
				}
			})
		}
	}
	// The audit log is for every administrator.
	for _, c := range callers {
		resp, _ := do(t, "GET", env.URL+"/api/audit", c.token, "")
		want := map[string]int{"anonymous": 401, "data administrator": 200, "super user": 200, "inactive super user": 403}[c.name]
		if resp.StatusCode != want {
			t.Errorf("%s GET /api/audit: %d, want %d", c.name, resp.StatusCode, want)
		}
	}
}

func TestInactiveSuperUserLosesAccessAtNextRequest(t *testing.T) {
	env := webtest.Start(t, nil)
	ctx := context.Background()
	admin := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	do(t, "POST", env.URL+"/api/users/super", admin, `{"Email":"sam@example.com","Status":"Active"}`)
	samTok := webtest.Token(t, env.URL, "sam@example.com", nil).AccessToken
	samWeb := webtest.Browser()
	webtest.SignIn(t, samWeb, env.URL, "sam@example.com").Body.Close()
	if r, _ := do(t, "GET", env.URL+"/api/users/super", samTok, ""); r.StatusCode != 200 {
		t.Fatalf("active: %d", r.StatusCode)
	}
	resp, _ := samWeb.Get(env.URL + "/references/super-users")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("active web: %d", resp.StatusCode)
	}
	do(t, "PUT", env.URL+"/api/users/super/sam@example.com", admin, `{"Status":"Inactive"}`)
	if r, _ := do(t, "GET", env.URL+"/api/users/super", samTok, ""); r.StatusCode != 403 {
		t.Fatalf("inactive token: %d", r.StatusCode)
	}
	resp, _ = samWeb.Get(env.URL + "/references/super-users")
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("inactive session: %d", resp.StatusCode)
	}
	// Set Active again by a Super User, access comes back.
	do(t, "PUT", env.URL+"/api/users/super/sam@example.com", admin, `{"Status":"Active"}`)
	if r, _ := do(t, "GET", env.URL+"/api/users/super", samTok, ""); r.StatusCode != 200 {
		t.Fatalf("reactivated: %d", r.StatusCode)
	}
	_ = ctx
}

// signToken signs claims with the development identity provider's key (or
// another key) to build tokens the provider would never issue.
func signToken(t *testing.T, env *webtest.Env, own bool, typ string, claims map[string]any) string {
	t.Helper()
	var key *rsa.PrivateKey
	if own {
		b, err := os.ReadFile(filepath.Join(env.DataDir, "dev-idp-key.pem"))
		if err != nil {
			t.Fatal(err)
		}
		blk, _ := pem.Decode(b)
		key, err = x509.ParsePKCS1PrivateKey(blk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		key, _ = rsa.GenerateKey(rand.Reader, 2048)
	}
	jwk := jose.JSONWebKey{Key: &key.PublicKey}
	tp, _ := jwk.Thumbprint(0x5) // crypto.SHA256
	_ = tp
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRefusedTokens(t *testing.T) {
	env := webtest.Start(t, nil)
	now := time.Now()
	good := func() map[string]any {
		return map[string]any{"iss": env.URL + "/dev/idp", "aud": []string{env.URL + "/api"}, "sub": "admin@example.com",
			"email": "admin@example.com", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "x"}
	}
	// A token we sign like the provider is accepted: the cases below differ from it in one thing.
	if r, b := do(t, "GET", env.URL+"/api/users/super", signToken(t, env, true, "at+jwt", good()), ""); r.StatusCode != 200 {
		t.Fatalf("control token refused: %d %s", r.StatusCode, b)
	}
	mod := func(f func(m map[string]any)) map[string]any { m := good(); f(m); return m }
	// Each message says what is wrong in the API's words (go-oidc's own,
	// "oidc: token is expired (Token Expiry: …)", reached the client).
	cases := []struct {
		name  string
		token string
		want  string
	}{
		{"forged signature", signToken(t, env, false, "at+jwt", good()), "its signature does not verify with any key its issuer publishes"},
		{"expired", signToken(t, env, true, "at+jwt", mod(func(m map[string]any) { m["exp"] = now.Add(-time.Minute).Unix() })), "it expired at " + now.Add(-time.Minute).UTC().Format("2006-01-02 15:04:05 UTC")},
		{"other audience", signToken(t, env, true, "at+jwt", mod(func(m map[string]any) { m["aud"] = []string{"https://other.example/api"} })), `it is not for this API: its aud [\"https://other.example/api\"] does not name \"` + env.URL + `/api\"`},
		{"other issuer", signToken(t, env, true, "at+jwt", mod(func(m map[string]any) { m["iss"] = "https://evil.example" })), "neither the sign-in issuer nor an Active identity provider"},
		{"ID token typ", signToken(t, env, true, "JWT", good()), "is not an access token type"},
		{"no email", signToken(t, env, true, "at+jwt", mod(func(m map[string]any) { delete(m, "email") })), "has no email claim"},
		{"not a JWT", "abc.def", "the token header is not JSON"},
		{"garbage", "%%%", "the token is not a JWT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, b := do(t, "GET", env.URL+"/api/users/super", c.token, "")
			if r.StatusCode != 401 || !strings.Contains(r.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
				t.Fatalf("%d %q %s", r.StatusCode, r.Header.Get("WWW-Authenticate"), b)
			}
			if !strings.Contains(b, c.want) || strings.Contains(b, "oidc:") {
				t.Fatalf("message: want %q: %s", c.want, b)
			}
		})
	}
	// A session cookie is no credential for /api.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, _ := c.Get(env.URL + "/api/users/super")
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("cookie on /api: %d", resp.StatusCode)
	}
}

func TestDataAdministratorInvitationAndFirstSignIn(t *testing.T) {
	env := webtest.Start(t, nil)
	ctx := context.Background()
	admin := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	resp, body := do(t, "POST", env.URL+"/api/users/data-administrators", admin, `{"Email":"Dana@Example.com"}`)
	if resp.StatusCode != 201 || !strings.Contains(body, `"Status":"Invited"`) || !strings.Contains(body, `"Email":"dana@example.com"`) {
		t.Fatalf("invite: %d %s", resp.StatusCode, body)
	}
	if r, _ := do(t, "POST", env.URL+"/api/users/data-administrators", admin, `{"Email":"dana@example.com"}`); r.StatusCode != 409 {
		t.Fatalf("second invite: %d", r.StatusCode)
	}
	if r, _ := do(t, "POST", env.URL+"/api/users/data-administrators", admin, `{"Email":"dana"}`); r.StatusCode != 422 {
		t.Fatalf("bad e-mail: %d", r.StatusCode)
	}
	msgs, _ := env.DB.ListOutbox(ctx, 10)
	if len(msgs) != 1 || msgs[0].To != "dana@example.com" || !strings.Contains(msgs[0].Body, env.URL+"/login") {
		t.Fatalf("outbox: %+v", msgs)
	}
	webtest.SignIn(t, webtest.Browser(), env.URL, "dana@example.com").Body.Close()
	a, _ := env.DB.GetDataAdministrator(ctx, "dana@example.com")
	if a.Status != "Active" || a.ActivatedAt == nil {
		t.Fatalf("after first sign-in: %+v", a)
	}
	if r, b := do(t, "PUT", env.URL+"/api/users/data-administrators/dana@example.com", admin, `{"Status":"Inactive"}`); r.StatusCode != 200 || !strings.Contains(b, "Inactive") {
		t.Fatalf("deactivate: %d %s", r.StatusCode, b)
	}
	resp = webtest.SignIn(t, webtest.Browser(), env.URL, "dana@example.com")
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("inactive data administrator signed in: %d", resp.StatusCode)
	}
	recs, _, _ := env.DB.ListAudit(ctx, store.AuditFilter{SubjectType: "DataAdministrator"})
	actions := []string{}
	for _, r := range recs {
		actions = append(actions, r.Action)
	}
	if strings.Join(actions, ",") != "status,activate,invite" {
		t.Fatalf("audit actions %v", actions)
	}
}

// A GET with If-None-Match naming the resource's ETag is a 304 with no
// body; after a change the new version comes back; the token is still
// checked first.
func TestConditionalGET(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	r, _ := a.do("GET", "/organisations/"+id, "")
	etag := r.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	get := func(inm, token string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", env.URL+"/api/organisations/"+id, nil)
		req.Header.Set("If-None-Match", inm)
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
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		if r, b := get(inm, a.token); r.StatusCode != 304 || b != "" || r.Header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d %q", inm, r.StatusCode, b)
		}
	}
	if r, _ := get(`"other"`, a.token); r.StatusCode != 200 {
		t.Errorf("another tag: %d", r.StatusCode)
	}
	if r, _ := get(etag, ""); r.StatusCode != 401 {
		t.Errorf("no token: %d", r.StatusCode)
	}
	a.must(200, "PUT", "/organisations/"+id, `{"OrganisationName":"Acme 2","RegistrationNumber":"REG-Acme","CountryOfRegistration":"GB","Status":"Pending"}`)
	if r, b := get(etag, a.token); r.StatusCode != 200 || !strings.Contains(b, "Acme 2") || r.Header.Get("ETag") == etag {
		t.Errorf("after a change: %d %s", r.StatusCode, b)
	}
}

// Each administrator has their own API rate: over it, 429 with Retry-After;
// another administrator is not slowed down.
func TestAPIRateLimitPerAdministrator(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.APIRateLimit = 5 })
	a := newAPI(t, env, "admin@example.com")
	a.must(201, "POST", "/users/super", `{"Email":"ops@example.com","Status":"Active"}`)
	for i := 0; i < 4; i++ {
		a.must(200, "GET", "/users/super", "")
	}
	r, m := a.do("GET", "/users/super", "")
	if r.StatusCode != 429 || r.Header.Get("Retry-After") == "" || !strings.Contains(toJSON(t, m), "rate_limited") {
		t.Fatalf("the 6th request: %d %v %v", r.StatusCode, r.Header, m)
	}
	ops := newAPI(t, env, "ops@example.com")
	ops.must(200, "GET", "/users/super", "")
}

// TestSuperUserOnlyRefusalSaysWhat: a Data Administrator refused a Super
// User route is told that only Super Users may do it, not that it is
// Reference Data (the administrator lists are not).
func TestSuperUserOnlyRefusalSaysWhat(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/users/data-administrators", `{"Email":"dana@example.com"}`)
	dana := newAPI(t, env, "dana@example.com")
	got := dana.must(403, "GET", "/users/super", "")
	if d, _ := got["detail"].(string); d != "Only Super Users may do this." {
		t.Fatalf("detail %q", d)
	}
}

// TestInviteAnActiveSuperUserIsAConflict: inviting an Active Super User as
// a Data Administrator is 409 (they can already do all of it) and sends
// nothing; once Inactive, the same person may be invited.
func TestInviteAnActiveSuperUserIsAConflict(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/users/super", `{"Email":"ops@example.com","Status":"Active"}`)
	got := su.must(409, "POST", "/users/data-administrators", `{"Email":"ops@example.com"}`)
	if d, _ := got["detail"].(string); !strings.Contains(d, "already an Active Super User") {
		t.Fatalf("detail %q", d)
	}
	su.must(200, "PUT", "/users/super/ops@example.com", `{"Status":"Inactive"}`)
	su.must(201, "POST", "/users/data-administrators", `{"Email":"ops@example.com"}`)
}

// TestRepeatedFiltersAreRefused: a filter or sort given twice is a 400
// naming it on the lists that still took the first (participants, audit,
// contacts), as on the organisation list.
func TestRepeatedFiltersAreRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", `{"OrganisationName":"Twice Bank","RegistrationNumber":"T-1","CountryOfRegistration":"GB"}`)["OrganisationId"].(string)
	for path, field := range map[string]string{
		"/audit?Action=create&Action=update":                                    "Action",
		"/audit?From=2026-01-01&From=2026-02-01":                                "From",
		"/organisations/" + oid + "/contacts?sort=LastName&sort=FirstName,desc": "sort",
	} {
		got := a.must(400, "GET", path, "")
		if fieldsOf(got)[field] == "" {
			t.Errorf("%s: %v, want a 400 naming %s", path, got, field)
		}
	}
	resp, err := http.Get(env.URL + "/api/participants?Role=A&Role=B")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), `"Role"`) {
		t.Errorf("participants with Role twice: %d %s", resp.StatusCode, b)
	}
}

// TestUnchangedPutWritesNothing: a PUT that changes nothing (a sync job
// sending what is already there, read-only members included) answers the
// resource as it is: the same ETag and UpdatedOn, no audit record, so no
// change-feed entry or webhook delivery either. A PUT that changes
// something still writes (docs/design.md §4).
func TestUnchangedPutWritesNothing(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	orgBody := `{"OrganisationName":"Same Bank","RegistrationNumber":"S-1","CountryOfRegistration":"GB","Status":"Active","City":"Leeds"}`
	oid := a.must(201, "POST", "/organisations", orgBody)["OrganisationId"].(string)
	contactBody := `{"ContactType":"Business","FirstName":"Ann","LastName":"Lee","EmailAddress":"ann@same.example","PhoneNumber":"+441234567890"}`
	cid := a.must(201, "POST", "/organisations/"+oid+"/contacts", contactBody)["ContactId"].(string)
	a.must(201, "POST", "/references/contact-types", `{"Name":"Same","Description":"d"}`)
	// A webhook subscribed to every subject type: no delivery may follow.
	hook := "/references/webhooks/" + a.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","Description":"all","SubjectTypes":["`+
		strings.Join(store.WebhookSubjectTypes, `","`)+`"]}`)["WebhookId"].(string)
	a.must(201, "POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+
		`","ClientId":"tf","ClientSecret":"s3cret","GroupRoles":[]}`)
	setupDomains(t, a)
	policy := "/references/role-metadata-policies/" + a.must(201, "POST", "/references/role-metadata-policies",
		`{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"scope":{"essential":true}}}`)["PolicyId"].(string)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := "/organisations/" + oid + "/key-material/" + a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig","Description":"d"}`)["KeyMaterialID"].(string)
	_, att := a.multipart("POST", km+"/attachments", "a.txt", []byte("x"), "kept")
	attPath := km + "/attachments/" + att["KeyMaterialAttachmentID"].(string)
	deliveries := func() float64 { return a.must(200, "GET", hook+"/deliveries", "")["totalSize"].(float64) }
	for _, c := range []struct{ path, body string }{
		{"/organisations/" + oid, orgBody},
		{"/organisations/" + oid + "/contacts/" + cid, contactBody},
		{"/references/contact-types/Same", `{"Description":"d","Status":"Active"}`},
		// "": the resource as GET answers it, read-only members included.
		{"/references/identity-providers/kc", ""},
		{"/references/identity-providers/kc", `{"Issuer":"` + op.srv.URL + `","EmailDomains":["example.com"],"ClientId":"tf","ClientSecret":"s3cret"}`},
		{"/references/identity-providers/kc", `{"Issuer":"` + op.srv.URL + `","EmailDomains":["example.com"],"ClientId":"tf"}`},
		{policy, ""},
		{policy, `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{ "scope" : {"essential":true} }}`},
		{hook, ""},
		{hook, `{"Url":"https://8.8.8.8/h","Description":"all","SubjectTypes":["` + strings.Join(store.WebhookSubjectTypes, `","`) + `"]}`},
		{km, ""},
		{km, `{"Use":"sig","Description":"d"}`},
		{attPath, `{"Description":"kept"}`},
		{"/users/super/admin@example.com", `{"Status":"Active"}`},
	} {
		before := a.must(200, "GET", c.path, "")
		resp, _ := a.do("GET", c.path, "")
		etag := resp.Header.Get("ETag")
		body := c.body
		if body == "" {
			body = toJSON(t, before)
		}
		n, d := auditTotal(a), deliveries()
		cursor := a.must(200, "GET", "/changes?after=now", "")["nextCursor"].(string)
		got := a.must(200, "PUT", c.path, body)
		if auditTotal(a) != n {
			t.Errorf("PUT %s %s changing nothing wrote an audit record", c.path, body)
		}
		if feed := a.must(200, "GET", "/changes?after="+url.QueryEscape(cursor), "")["content"].([]any); len(feed) != 0 {
			t.Errorf("PUT %s changing nothing made a change-feed entry: %v", c.path, feed)
		}
		if deliveries() != d {
			t.Errorf("PUT %s changing nothing queued a webhook delivery", c.path)
		}
		if got["UpdatedOn"] != before["UpdatedOn"] || got["Status"] != before["Status"] {
			t.Errorf("PUT %s changing nothing moved UpdatedOn or Status: %v %v -> %v %v", c.path, before["UpdatedOn"], before["Status"], got["UpdatedOn"], got["Status"])
		}
		if resp, _ := a.do("GET", c.path, ""); resp.Header.Get("ETag") != etag {
			t.Errorf("PUT %s changing nothing changed the ETag", c.path)
		}
	}
	// The attachment's same file and description, sent again as multipart.
	n, etag := auditTotal(a), ""
	if resp, _ := a.do("GET", attPath, ""); resp != nil {
		etag = resp.Header.Get("ETag")
	}
	if resp, got := a.multipart("PUT", attPath, "a.txt", []byte("x"), "kept"); resp.StatusCode != 200 || auditTotal(a) != n || resp.Header.Get("ETag") != etag {
		t.Errorf("the same attachment again: %d %v, audit %v -> %v", resp.StatusCode, got, n, auditTotal(a))
	}
	if resp, _ := a.multipart("PUT", attPath, "a.txt", []byte("y"), "kept"); resp.StatusCode != 200 || auditTotal(a) != n+1 {
		t.Errorf("another file: %d, audit %v -> %v", resp.StatusCode, n, auditTotal(a))
	}
	// The client secret kept, and another one is a change, audited.
	if got := a.must(200, "GET", "/references/identity-providers/kc", ""); got["HasClientSecret"] != true {
		t.Errorf("the client secret was lost: %v", got)
	}
	n = auditTotal(a)
	a.must(200, "PUT", "/references/identity-providers/kc", `{"Issuer":"`+op.srv.URL+`","EmailDomains":["example.com"],"ClientId":"tf","ClientSecret":"other"}`)
	if auditTotal(a) != n+1 || !strings.Contains(a.must(200, "GET", "/audit?Subject=IdentityProvider", "")["content"].([]any)[0].(map[string]any)["Summary"].(string), "client secret replaced") {
		t.Errorf("a new client secret: audit %v -> %v %v", n, auditTotal(a), a.must(200, "GET", "/audit?Subject=IdentityProvider", "")["content"])
	}
	a.must(200, "PUT", "/organisations/"+oid, strings.Replace(orgBody, "Leeds", "York", 1))
	if got := a.must(200, "GET", "/audit?SubjectId="+oid, "")["content"].([]any)[0].(map[string]any); !strings.Contains(got["Summary"].(string), "City: Leeds -> York") {
		t.Fatalf("a real change: %v", got)
	}
}

// TestUnchangedConsoleSaveWritesNothing: the console's edit forms of an
// identity provider, a webhook, a role metadata policy and key material,
// saved as they are shown, answer the usual success and write no audit
// record (docs/design.md §4).
func TestUnchangedConsoleSaveWritesNothing(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	c := webtest.Browser() // signed in before a provider offers web sign-in
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	oid := a.must(201, "POST", "/organisations", org("Console Same"))["OrganisationId"].(string)
	a.must(201, "POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","ClientId":"tf","ClientSecret":"s3cret"}`)
	hook := "/references/webhooks/" + a.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","Description":"d","SubjectTypes":["Organisation","Contact"]}`)["WebhookId"].(string)
	setupDomains(t, a)
	policy := "/references/role-metadata-policies/" + a.must(201, "POST", "/references/role-metadata-policies",
		`{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"scope":{"essential":true}},"Status":"Inactive"}`)["PolicyId"].(string)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := "/organisations/" + oid + "/key-material/" + a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig","Description":"d"}`)["KeyMaterialID"].(string)
	for _, f := range []struct{ page, action, flash string }{
		{"/references/identity-providers/kc", "/references/identity-providers/kc", "Identity provider kc was saved."},
		{hook, hook, "saved (Active)"},
		{policy + "/edit", policy, "was saved"},
		{km, km, "was saved (Active)"},
	} {
		resp, err := c.Get(env.URL + f.page)
		if err != nil {
			t.Fatal(err)
		}
		form := browserForm(docOf(t, resp), f.action)
		if f.page == km {
			form.Set("Status", "Active") // the Edit form, not Revoke's
			form.Del("RevokeReason")
		}
		n := auditTotal(a)
		st, doc := postForm(t, c, env.URL+f.action, form)
		if msg := doc.Find("[data-testid=flash]").Text(); st != 200 || !strings.Contains(msg, f.flash) {
			t.Errorf("console save of %s as shown: %d %q", f.action, st, msg)
		}
		if auditTotal(a) != n {
			t.Errorf("console save of %s as shown wrote an audit record: %v", f.action, a.must(200, "GET", "/audit?size=1", "")["content"])
		}
	}
	if got := a.must(200, "GET", policy, ""); got["Status"] != "Inactive" {
		t.Errorf("policy Status after the console save: %v", got["Status"])
	}
	if got := a.must(200, "GET", "/references/identity-providers/kc", ""); got["HasClientSecret"] != true {
		t.Errorf("the client secret was lost: %v", got)
	}
}
