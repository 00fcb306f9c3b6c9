package web_test

import (
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/trustframe/trustframe/web/webtest"
)

// groupsOP is an OpenID Provider whose ID tokens and access tokens carry
// the person's e-mail and, when set, a groups claim (any JSON value, to
// send malformed ones too). Its sign-in page signs the next person in at
// once.
type groupsOP struct {
	srv *httptest.Server
	key *rsa.PrivateKey

	mu     sync.Mutex
	email  string // the next sign-in's e-mail
	groups any    // the next sign-in's groups claim (nil: absent)
	codes  map[string]map[string]any
}

// next sets who signs in next and their groups.
func (op *groupsOP) next(email string, groups any) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.email, op.groups = email, groups
}

func (op *groupsOP) serve(w http.ResponseWriter, r *http.Request) {
	base := op.srv.URL
	switch r.URL.Path {
	case "/.well-known/openid-configuration":
		json.NewEncoder(w).Encode(map[string]any{"issuer": base, "authorization_endpoint": base + "/auth", "token_endpoint": base + "/token",
			"jwks_uri": base + "/jwks", "id_token_signing_alg_values_supported": []string{"RS256"}})
	case "/jwks":
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &op.key.PublicKey, KeyID: "k", Algorithm: "RS256", Use: "sig"}}})
	case "/auth":
		q := r.URL.Query()
		code := "code-" + q.Get("state")
		op.mu.Lock()
		c := map[string]any{"nonce": q.Get("nonce"), "email": op.email, "sub": "sub-" + op.email}
		if op.groups != nil {
			c["groups"] = op.groups
		}
		op.codes[code] = c
		op.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+url.QueryEscape(code)+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	case "/token":
		r.ParseForm()
		clientID, _, ok := r.BasicAuth()
		if !ok {
			clientID = r.PostForm.Get("client_id")
		}
		op.mu.Lock()
		c := op.codes[r.PostForm.Get("code")]
		op.mu.Unlock()
		if c == nil {
			w.WriteHeader(400)
			return
		}
		c["iss"], c["aud"], c["iat"], c["exp"] = base, clientID, time.Now().Unix(), time.Now().Add(time.Hour).Unix()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "opaque", "token_type": "Bearer", "id_token": op.sign("JWT", c), "expires_in": 3600})
	default:
		http.NotFound(w, r)
	}
}

func (op *groupsOP) sign(typ string, claims map[string]any) string {
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: op.key, KeyID: "k"}}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	s, _ := jwt.Signed(sig).Claims(claims).Serialize()
	return s
}

// accessToken is an access token for the API (audience "automation") of
// email with groups (nil: no groups claim).
func (op *groupsOP) accessToken(email string, groups any) string {
	c := map[string]any{"iss": op.srv.URL, "aud": "automation", "sub": "sub-" + email, "email": email, "jti": randomID(),
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	if groups != nil {
		c["groups"] = groups
	}
	return op.sign("at+jwt", c)
}

// auditOf lists "Action SubjectType SubjectId" of the audit records with
// this action.
func auditOf(t *testing.T, admin *api, action string) []string {
	t.Helper()
	_, m := admin.do("GET", "/audit?Action="+action+"&size=100", "")
	var out []string
	list, _ := m["content"].([]any)
	for _, r := range list {
		rec := r.(map[string]any)
		out = append(out, rec["Actor"].(string)+"|"+rec["SubjectType"].(string)+"|"+rec["SubjectId"].(string)+"|"+rec["Summary"].(string))
	}
	return out
}

// API tokens: the first call with a mapped group creates the administrator
// (group_grant), a token without it ends the grant at that request
// (group_revoke), the group coming back restores it; the API says how each
// is an administrator; the e-mail domain rule holds, and another provider's
// token with the same group name grants nothing, nor carries the role
// Corp's group made.
func TestGroupGrantAndRevokeThroughAPITokens(t *testing.T) {
	op, other := newGroupsOP(t), newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	bindGroups(t, admin, op, "Corp", `[{"Group":"tf-data","Role":"DataAdministrator"},{"Group":"tf-ops","Role":"SuperUser"}]`)
	bindGroups(t, admin, other, "Other", `[]`)
	orgs := env.URL + "/api/organisations"

	if st, b := status(t, op.accessToken("nina@example.com", []any{"staff", "tf-data"}), orgs); st != 200 {
		t.Fatalf("first call with a mapped group: %d %s", st, b)
	}
	got := admin.must(200, "GET", "/users/data-administrators/nina@example.com", "")
	if got["Status"] != "Active" || got["GrantedBy"] != "group" || got["Group"] != "tf-data" || got["IdentityProvider"] != "Corp" {
		t.Fatalf("granted record: %v", got)
	}
	if a := auditOf(t, admin, "group_grant"); len(a) != 1 || !strings.Contains(a[0], "identity provider Corp|DataAdministrator|nina@example.com|") || !strings.Contains(a[0], "tf-data") {
		t.Fatalf("group_grant audit: %q", a)
	}
	// Same token again: nothing more is written.
	if st, _ := status(t, op.accessToken("nina@example.com", []any{"tf-data"}), orgs); st != 200 || len(auditOf(t, admin, "group_grant")) != 1 {
		t.Fatalf("second call: %d %q", st, auditOf(t, admin, "group_grant"))
	}
	// Other grants say so too.
	admin.must(201, "POST", "/users/data-administrators", `{"Email":"ivy@example.com"}`)
	if m := admin.must(200, "GET", "/users/data-administrators/ivy@example.com", ""); m["GrantedBy"] != "invitation" || m["Group"] != nil {
		t.Fatalf("invited: %v", m)
	}
	if m := admin.must(200, "GET", "/users/super/admin@example.com", ""); m["GrantedBy"] != "super_user" {
		t.Fatalf("super user: %v", m)
	}

	// The group is gone from the token: refused at that request.
	if st, _ := status(t, op.accessToken("nina@example.com", []any{"staff"}), orgs); st != 403 {
		t.Fatalf("without the group: %d", st)
	}
	if m := admin.must(200, "GET", "/users/data-administrators/nina@example.com", ""); m["Status"] != "Inactive" || m["GrantedBy"] != "group" {
		t.Fatalf("revoked record: %v", m)
	}
	if a := auditOf(t, admin, "group_revoke"); len(a) != 1 || !strings.Contains(a[0], "DataAdministrator|nina@example.com|") {
		t.Fatalf("group_revoke audit: %q", a)
	}
	// No groups claim at all is no group either; back with it, restored.
	if st, _ := status(t, op.accessToken("nina@example.com", nil), orgs); st != 403 {
		t.Fatalf("no groups claim: %d", st)
	}
	if st, _ := status(t, op.accessToken("nina@example.com", []any{"tf-data"}), orgs); st != 200 {
		t.Fatalf("group back: %d", st)
	}

	// Domain rule: a mapped group does not help an e-mail outside EmailDomains.
	if st, b := status(t, op.accessToken("eve@elsewhere.org", []any{"tf-ops"}), orgs); st != 401 || !strings.Contains(b, "may not vouch") {
		t.Fatalf("other domain: %d %s", st, b)
	}
	// Another provider's token with the same group name grants nothing and
	// leaves Corp's grant alone.
	if st, _ := status(t, other.accessToken("olga@example.com", []any{"tf-ops", "tf-data"}), orgs); st != 403 {
		t.Fatalf("same group name at another provider: %d", st)
	}
	admin.must(404, "GET", "/users/super/olga@example.com", "")
	if st, _ := status(t, other.accessToken("nina@example.com", nil), orgs); st != 403 {
		t.Fatalf("Corp's grant through Other's token: %d", st)
	}
	if m := admin.must(200, "GET", "/users/data-administrators/nina@example.com", ""); m["Status"] != "Active" {
		t.Fatalf("Other's token changed Corp's grant: %v", m)
	}
	// A SuperUser mapping makes a Super User, shown so on the API.
	if st, _ := status(t, op.accessToken("sam@example.com", []any{"tf-ops"}), env.URL+"/api/users/super"); st != 200 {
		t.Fatalf("super user by group: %d", st)
	}
	if m := admin.must(200, "GET", "/users/super/sam@example.com", ""); m["GrantedBy"] != "group" || m["Group"] != "tf-ops" || m["IdentityProvider"] != "Corp" {
		t.Fatalf("super user record: %v", m)
	}
	// Bad groups claims are refused with the reason, never a 5xx.
	many := make([]any, 1001)
	for i := range many {
		many[i] = "g"
	}
	for name, g := range map[string]any{"a string": "tf-data", "numbers": []any{1, 2}, "an object": map[string]any{"tf-data": true}, "huge": many} {
		if st, b := status(t, op.accessToken("nina@example.com", g), orgs); st != 401 || !strings.Contains(b, "groups claim") {
			t.Fatalf("%s: %d %s", name, st, b)
		}
	}
}

// Records made by invitation or by a Super User are never touched by
// groups; an Inactive record a Super User set stays Inactive whatever the
// groups say; and the last Active Super User is kept when their group
// disappears (audited as refused).
func TestGroupsLeaveOtherRecordsAndKeepTheLastSuperUser(t *testing.T) {
	op := newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	bindGroups(t, admin, op, "Corp", `[{"Group":"tf-data","Role":"DataAdministrator"},{"Group":"tf-ops","Role":"SuperUser"}]`)
	orgs := env.URL + "/api/organisations"

	// Invited Data Administrator and the bootstrap Super User, without groups.
	admin.must(201, "POST", "/users/data-administrators", `{"Email":"ivy@example.com"}`)
	if st, _ := status(t, op.accessToken("ivy@example.com", nil), orgs); st != 200 {
		t.Fatalf("invited without groups: %d", st)
	}
	if st, _ := status(t, op.accessToken("admin@example.com", []any{"tf-data"}), env.URL+"/api/users/super"); st != 200 {
		t.Fatalf("super user without the SuperUser group: %d", st)
	}
	if m := admin.must(200, "GET", "/users/data-administrators/ivy@example.com", ""); m["Status"] != "Invited" || m["GrantedBy"] != "invitation" {
		t.Fatalf("invited record: %v", m)
	}
	// admin@example.com is a Super User by creation; the group made them a
	// Data Administrator besides, which is a record of its own.
	if m := admin.must(200, "GET", "/users/super/admin@example.com", ""); m["Status"] != "Active" || m["GrantedBy"] != "super_user" {
		t.Fatalf("super user record: %v", m)
	}

	// Inactive set by a Super User stays Inactive.
	if st, _ := status(t, op.accessToken("nina@example.com", []any{"tf-data"}), orgs); st != 200 {
		t.Fatalf("grant: %d", st)
	}
	admin.must(200, "PUT", "/users/data-administrators/nina@example.com", `{"Status":"Inactive"}`)
	if st, _ := status(t, op.accessToken("nina@example.com", []any{"tf-data"}), orgs); st != 403 {
		t.Fatalf("Inactive by a Super User, group present: %d", st)
	}
	if st, _ := status(t, op.accessToken("nina@example.com", nil), orgs); st != 403 {
		t.Fatalf("Inactive, group gone: %d", st)
	}
	if st, _ := status(t, op.accessToken("nina@example.com", []any{"tf-data"}), orgs); st != 403 {
		t.Fatalf("Inactive by a Super User, group back: %d", st)
	}
	if m := admin.must(200, "GET", "/users/data-administrators/nina@example.com", ""); m["Status"] != "Inactive" {
		t.Fatalf("record: %v", m)
	}
	// Revoked by its group, then set Inactive by a Super User as well: the
	// group coming back no longer restores it.
	if st, _ := status(t, op.accessToken("rob@example.com", []any{"tf-data"}), orgs); st != 200 {
		t.Fatalf("rob: %d", st)
	}
	if st, _ := status(t, op.accessToken("rob@example.com", nil), orgs); st != 403 {
		t.Fatalf("rob revoked: %d", st)
	}
	admin.must(200, "PUT", "/users/data-administrators/rob@example.com", `{"Status":"Inactive"}`)
	// Taking the record over from the groups is a change, and audited.
	if a := auditOf(t, admin, "status"); len(a) == 0 || !strings.Contains(a[0], "DataAdministrator|rob@example.com|Status: Inactive (kept; set by a Super User now") {
		t.Fatalf("take-over not audited: %q", a)
	}
	// Sent again, it changes nothing and writes nothing.
	before := len(auditOf(t, admin, "status"))
	admin.must(200, "PUT", "/users/data-administrators/rob@example.com", `{"Status":"Inactive"}`)
	if after := len(auditOf(t, admin, "status")); after != before {
		t.Fatalf("an unchanged status PUT wrote %d audit records", after-before)
	}
	if st, _ := status(t, op.accessToken("rob@example.com", []any{"tf-data"}), orgs); st != 403 {
		t.Fatalf("rob set Inactive by a Super User after the revocation, group back: %d", st)
	}

	// Last Active Super User: sam by group, admin set Inactive.
	sam := op.accessToken("sam@example.com", []any{"tf-ops"})
	if st, _ := status(t, sam, env.URL+"/api/users/super"); st != 200 {
		t.Fatalf("sam: %d", st)
	}
	if r, b := do(t, "PUT", env.URL+"/api/users/super/admin@example.com", sam, `{"Status":"Inactive"}`); r.StatusCode != 200 {
		t.Fatalf("deactivate admin: %d %s", r.StatusCode, b)
	}
	for range 2 {
		if st, b := status(t, op.accessToken("sam@example.com", []any{}), env.URL+"/api/users/super"); st != 200 {
			t.Fatalf("last Super User without the group: %d %s", st, b)
		}
	}
	// admin@example.com is a Data Administrator through Corp's group only:
	// it reads the audit with a token of Corp.
	corpAdmin := &api{t: t, base: env.URL, token: op.accessToken("admin@example.com", []any{"tf-data"})}
	refused := auditOf(t, corpAdmin, "group_revoke_refused")
	if len(refused) != 1 || !strings.Contains(refused[0], "SuperUser|sam@example.com|") || !strings.Contains(refused[0], "last Active Super User") {
		t.Fatalf("refusal audit (once): %q", refused)
	}
	// With another Active Super User, the revocation is applied.
	if r, _ := do(t, "PUT", env.URL+"/api/users/super/admin@example.com", sam, `{"Status":"Active"}`); r.StatusCode != 200 {
		t.Fatalf("reactivate admin: %d", r.StatusCode)
	}
	if st, _ := status(t, op.accessToken("sam@example.com", []any{}), env.URL+"/api/users/super"); st != 403 {
		t.Fatalf("group gone with another Super User: %d", st)
	}
	if a := auditOf(t, admin, "group_revoke"); len(a) != 2 || !strings.Contains(a[0], "SuperUser|sam@example.com|") {
		t.Fatalf("group_revoke: %q", a)
	}
}

// Web sign-in through the provider: a mapped group in the ID token signs a
// new person in as a Data Administrator; without it, the next sign-in is
// refused; a malformed groups claim is refused with the reason.
func TestGroupGrantAndRevokeAtWebSignIn(t *testing.T) {
	op := newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	bindGroups(t, admin, op, "Corp", `[{"Group":"tf-data","Role":"DataAdministrator"}]`)
	signIn := func() (int, string) {
		c := webtest.Browser()
		resp, err := c.Get(env.URL + "/login?via=Corp&return_to=/organisations")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	op.next("nina@example.com", []any{"tf-data"})
	if st, b := signIn(); st != 200 || !strings.Contains(b, "nina@example.com") {
		t.Fatalf("sign-in with the group: %d %s", st, b)
	}
	if a := auditOf(t, admin, "group_grant"); len(a) != 1 {
		t.Fatalf("grant: %q", a)
	}
	op.next("nina@example.com", []any{"other"})
	if st, b := signIn(); st != 403 || !strings.Contains(b, "not an active administrator") {
		t.Fatalf("sign-in without the group: %d %s", st, b)
	}
	if a := auditOf(t, admin, "group_revoke"); len(a) != 1 {
		t.Fatalf("revoke: %q", a)
	}
	op.next("nina@example.com", "tf-data")
	if st, b := signIn(); st != 400 || !strings.Contains(b, "groups claim is not an array of strings") {
		t.Fatalf("malformed groups: %d %s", st, b)
	}
}

// Removing a mapping from the binding ends what it granted at once; a
// token still listing another group mapped to the role brings the record
// back through that group (audited).
func TestGroupMappingChangesTakeEffect(t *testing.T) {
	op := newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	bindGroups(t, admin, op, "Corp", `[{"Group":"a","Role":"DataAdministrator"},{"Group":"b","Role":"DataAdministrator"}]`)
	orgs := env.URL + "/api/organisations"
	tok := op.accessToken("nina@example.com", []any{"a", "b"})
	if st, _ := status(t, tok, orgs); st != 200 {
		t.Fatalf("grant: %d", st)
	}
	if m := admin.must(200, "GET", "/users/data-administrators/nina@example.com", ""); m["Group"] != "a" {
		t.Fatalf("first mapping names the grant: %v", m)
	}
	idp := `{"Name":"Corp","EmailDomains":["example.com"],"Issuer":"` + op.srv.URL + `","Audience":"automation","ClientId":"console","GroupRoles":`
	admin.must(200, "PUT", "/references/identity-providers/Corp", idp+`[{"Group":"b","Role":"DataAdministrator"}]}`)
	if m := admin.must(200, "GET", "/users/data-administrators/nina@example.com", ""); m["Status"] != "Inactive" {
		t.Fatalf("mapping a removed: %v", m)
	}
	if st, _ := status(t, tok, orgs); st != 200 {
		t.Fatalf("still granted by b: %d", st)
	}
	if m := admin.must(200, "GET", "/users/data-administrators/nina@example.com", ""); m["Group"] != "b" || m["Status"] != "Active" {
		t.Fatalf("back through b: %v", m)
	}
	if a := auditOf(t, admin, "group_grant"); len(a) != 2 || !strings.Contains(a[0], "Inactive -> Active (via group b") {
		t.Fatalf("audit: %q", a)
	}
	admin.must(200, "PUT", "/references/identity-providers/Corp", idp+`[]}`)
	if st, _ := status(t, tok, orgs); st != 403 {
		t.Fatalf("mapping removed: %d", st)
	}
	if a := auditOf(t, admin, "group_revoke"); len(a) != 2 {
		t.Fatalf("revoke: %q", a)
	}
}

// TestGroupGrantChecksTheEmailAsAnAddress: the e-mail of a bound
// provider's token is checked as an ordinary address before anything is
// granted: admin@example.com@partner.example (within partner.example by
// its last @) is refused with the reason, and a look-alike of an ASCII
// address (fullwidth, Kelvin sign) is granted nothing by a mapped group.
// Neither becomes an administrator.
func TestGroupGrantChecksTheEmailAsAnAddress(t *testing.T) {
	op := newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	admin.must(201, "POST", "/references/identity-providers", `{"Name":"Partner","EmailDomains":["partner.example","example.com"],"Issuer":"`+op.srv.URL+
		`","Audience":"automation","GroupRoles":[{"Group":"ops","Role":"SuperUser"}]}`)
	supers := env.URL + "/api/users/super"
	if st, b := status(t, op.accessToken("admin@example.com@partner.example", []any{"ops"}), supers); st != 401 || !strings.Contains(b, "not an ordinary e-mail address") {
		t.Fatalf("two @: %d %s", st, b)
	}
	for _, email := range []string{"ａdmin@example.com", "\u212Aate@example.com"} {
		if st, b := status(t, op.accessToken(email, []any{"ops"}), supers); st != 403 {
			t.Fatalf("%q with the SuperUser group: %d %s", email, st, b)
		}
	}
	if m := admin.must(200, "GET", "/users/super", ""); len(m["list"].([]any)) != 1 || len(auditOf(t, admin, "group_grant")) != 0 {
		t.Fatalf("a group made a Super User: %v %q", m, auditOf(t, admin, "group_grant"))
	}
}

// TestProviderChangesRevokeWhatItsGroupsMade: a change of the binding
// ends at once — in the transaction that saves it, audited group_revoke by
// the Super User who made it — every grant it no longer backs: a group
// mapped to another role, an e-mail domain no longer vouched for, the
// provider set Inactive. A grant it still backs is left alone.
func TestProviderChangesRevokeWhatItsGroupsMade(t *testing.T) {
	op := newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	idp := func(status, domains, mappings string) string {
		return `{"Name":"Corp","Status":"` + status + `","EmailDomains":` + domains + `,"Issuer":"` + op.srv.URL + `","Audience":"automation","GroupRoles":` + mappings + `}`
	}
	admin.must(201, "POST", "/references/identity-providers", idp("Active", `["example.com","partner.example"]`,
		`[{"Group":"ops","Role":"SuperUser"},{"Group":"data","Role":"DataAdministrator"},{"Group":"keep","Role":"DataAdministrator"}]`))
	for email, group := range map[string]string{"sam@example.com": "ops", "dan@partner.example": "data", "kim@example.com": "keep"} {
		if st, b := status(t, op.accessToken(email, []any{group}), env.URL+"/api/organisations"); st != 200 {
			t.Fatalf("%s: %d %s", email, st, b)
		}
	}
	statusOf := func(path string) any { return admin.must(200, "GET", path, "")["Status"] }
	lastRevoke := func() string {
		a := auditOf(t, admin, "group_revoke")
		if len(a) == 0 {
			return ""
		}
		return a[0]
	}

	// ops now makes Data Administrators: sam's Super User record ends.
	admin.must(200, "PUT", "/references/identity-providers/Corp", idp("Active", `["example.com","partner.example"]`,
		`[{"Group":"ops","Role":"DataAdministrator"},{"Group":"data","Role":"DataAdministrator"},{"Group":"keep","Role":"DataAdministrator"}]`))
	if st := statusOf("/users/super/sam@example.com"); st != "Inactive" {
		t.Fatalf("group mapped to another role: sam is %v", st)
	}
	if a := lastRevoke(); !strings.Contains(a, "admin@example.com|SuperUser|sam@example.com|") || !strings.Contains(a, "group ops of identity provider Corp is no longer mapped to SuperUser") {
		t.Fatalf("audit: %q", a)
	}
	if statusOf("/users/data-administrators/dan@partner.example") != "Active" || statusOf("/users/data-administrators/kim@example.com") != "Active" {
		t.Fatal("a grant still backed was ended")
	}
	// partner.example is dropped: dan's grant ends.
	admin.must(200, "PUT", "/references/identity-providers/Corp", idp("Active", `["example.com"]`,
		`[{"Group":"data","Role":"DataAdministrator"},{"Group":"keep","Role":"DataAdministrator"}]`))
	if st := statusOf("/users/data-administrators/dan@partner.example"); st != "Inactive" {
		t.Fatalf("domain narrowed: dan is %v", st)
	}
	if a := lastRevoke(); !strings.Contains(a, "DataAdministrator|dan@partner.example|") || !strings.Contains(a, "no longer vouches for e-mails of partner.example") {
		t.Fatalf("audit: %q", a)
	}
	// Corp set Inactive: everything it made ends.
	admin.must(200, "PUT", "/references/identity-providers/Corp", idp("Inactive", `["example.com"]`,
		`[{"Group":"data","Role":"DataAdministrator"},{"Group":"keep","Role":"DataAdministrator"}]`))
	if st := statusOf("/users/data-administrators/kim@example.com"); st != "Inactive" {
		t.Fatalf("provider Inactive: kim is %v", st)
	}
	if a := lastRevoke(); !strings.Contains(a, "kim@example.com|") || !strings.Contains(a, "identity provider Corp is Inactive") {
		t.Fatalf("audit: %q", a)
	}
	if a := auditOf(t, admin, "group_revoke"); len(a) != 3 {
		t.Fatalf("group_revoke records: %q", a)
	}
}

// TestProviderChangeKeepsTheLastSuperUser: a change of the binding that
// would end the last Active Super User (made by its group) is refused with
// 409 and changes nothing: the Super User making it can make another
// Super User first (docs/decisions.md).
func TestProviderChangeKeepsTheLastSuperUser(t *testing.T) {
	op := newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	bindGroups(t, admin, op, "Corp", `[{"Group":"ops","Role":"SuperUser"}]`)
	sam := &api{t: t, base: env.URL, token: op.accessToken("sam@example.com", []any{"ops"})}
	sam.must(200, "PUT", "/users/super/admin@example.com", `{"Status":"Inactive"}`)
	r, m := sam.do("PUT", "/references/identity-providers/Corp", `{"Name":"Corp","Status":"Inactive","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","Audience":"automation","ClientId":"console","GroupRoles":[{"Group":"ops","Role":"SuperUser"}]}`)
	if r.StatusCode != 409 || !strings.Contains(m["detail"].(string), "no Active Super User") {
		t.Fatalf("last Super User: %d %v", r.StatusCode, m)
	}
	if p := sam.must(200, "GET", "/references/identity-providers/Corp", ""); p["Status"] != "Active" {
		t.Fatalf("the provider changed: %v", p)
	}
	if u := sam.must(200, "GET", "/users/super/sam@example.com", ""); u["Status"] != "Active" {
		t.Fatalf("sam: %v", u)
	}
	if a := auditOf(t, sam, "group_revoke"); len(a) != 0 {
		t.Fatalf("group_revoke written: %q", a)
	}
}

// TestGroupMadeRoleHonouredOnlyThroughItsProvider: a role Corp's group
// made is the person's only at requests Corp authenticated: not in a
// session of the sign-in issuer, not with a token of the sign-in issuer or
// of another bound provider. A session opened through Corp loses it at its
// next request once a change of Corp ends it.
func TestGroupMadeRoleHonouredOnlyThroughItsProvider(t *testing.T) {
	op, other := newGroupsOP(t), newGroupsOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	bindGroups(t, admin, op, "Corp", `[{"Group":"data","Role":"DataAdministrator"}]`)
	bindGroups(t, admin, other, "Other", `[]`)
	get := func(c *http.Client) int {
		t.Helper()
		resp, err := c.Get(env.URL + "/organisations")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	corp := webtest.Browser()
	op.next("nina@example.com", []any{"data"})
	if resp, err := corp.Get(env.URL + "/login?via=Corp&return_to=/organisations"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("sign-in through Corp: %v %v", resp, err)
	}
	if st := get(corp); st != 200 {
		t.Fatalf("Corp's session: %d", st)
	}
	// The same person through the sign-in issuer: a session and a token.
	dev := webtest.Browser()
	resp := webtest.SignInAt(t, dev, env.URL+"/login?via=default&login_hint=nina@example.com", "nina@example.com")
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("sign-in issuer's session: %d", resp.StatusCode)
	}
	if st, _ := status(t, webtest.Token(t, env.URL, "nina@example.com", nil).AccessToken, env.URL+"/api/organisations"); st != 403 {
		t.Fatalf("sign-in issuer's token: %d", st)
	}
	if st, _ := status(t, other.accessToken("nina@example.com", nil), env.URL+"/api/organisations"); st != 403 {
		t.Fatalf("Other's token: %d", st)
	}
	// The mapping goes: Corp's open session loses the role at once.
	admin.must(200, "PUT", "/references/identity-providers/Corp", `{"Name":"Corp","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`","Audience":"automation","ClientId":"console","GroupRoles":[]}`)
	if st := get(corp); st != 403 {
		t.Fatalf("Corp's session after the mapping went: %d", st)
	}
}
