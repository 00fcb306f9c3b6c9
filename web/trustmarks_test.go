package web_test

import (
	"crypto/ecdsa"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// A trust mark's whole life through the real router and store
// (docs/design.md §17): a Role type, a subordinate entitled through its
// organisation's claim, the mark issued and checked against the published
// keys, its status active, listed and carried by resolve; then the claim
// ends: the mark is revoked (audited), not issued again, and stays revoked
// when the claim comes back.
func TestTrustMarkLifecycle(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.AllowPrivateWebhookURLs = true })
	a := newAPI(t, env, "admin@example.com")
	authority := setupDomains(t, a)
	oid := a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"A-1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	claim := grant(t, a, oid, authority, "Payments", "PISP")
	key := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pb, _ := json.Marshal(jose.JSONWebKey{Key: key.Public(), KeyID: "acme-sig-1"})
	kid := a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pb)+`,"Use":"sig"}`)["Kid"].(string)
	leaf := newSpecLeaf(t, key, kid)
	var ownMarks []map[string]any // what the leaf's own configuration carries
	leaf.claims = func(id string, now time.Time) map[string]any {
		c := map[string]any{"iss": id, "sub": id, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
			"jwks":            jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: kid}}},
			"authority_hints": []string{env.URL},
			"metadata":        map[string]any{"openid_relying_party": map[string]any{"client_name": "Acme RP"}}}
		if ownMarks != nil {
			c["trust_marks"] = ownMarks
		}
		return c
	}
	sub := leaf.srv.URL
	a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Acme RP","Status":"Active","Roles":["PISP"],"FederationEntityId":"`+sub+`"}`)
	tmType := a.must(201, "POST", "/references/trust-mark-types", `{"Name":"Payment initiation","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP"}`)["TrustMarkType"].(string)

	_, _, ec := fedGet(t, env, "/.well-known/openid-federation")
	config := fedClaims(t, ec, "entity-statement+jwt", nil)
	var keys jose.JSONWebKeySet
	_ = json.Unmarshal(fedJSON(config["jwks"]), &keys)
	if issuers, _ := config["trust_mark_issuers"].(map[string]any); issuers == nil || issuers[tmType] == nil {
		t.Fatalf("trust_mark_issuers: %v", config["trust_mark_issuers"])
	}

	issuePath := "/federation/trust-mark?trust_mark_type=" + url.QueryEscape(tmType) + "&sub=" + url.QueryEscape(sub)
	code, ctype, mark := fedGet(t, env, issuePath)
	if code != 200 || ctype != "application/trust-mark+jwt" {
		t.Fatalf("issue: %d %s %s", code, ctype, mark)
	}
	c := fedClaims(t, mark, "trust-mark+jwt", &keys)
	iat, exp := c["iat"].(float64), c["exp"].(float64)
	if c["iss"] != env.URL || c["sub"] != sub || c["trust_mark_type"] != tmType || c["jti"] == "" || exp-iat != (24*time.Hour).Seconds() {
		t.Fatalf("mark claims: %v", c)
	}

	status := func(want string) {
		t.Helper()
		code, ctype, _, body := fedPostForm(t, env.URL, "/federation/trust-mark-status", url.Values{"trust_mark": {mark}})
		if code != 200 || ctype != "application/trust-mark-status-response+jwt" {
			t.Fatalf("status: %d %s %s", code, ctype, body)
		}
		if s := fedClaims(t, body, "trust-mark-status-response+jwt", &keys); s["status"] != want || s["trust_mark"] != mark || s["iss"] != env.URL {
			t.Fatalf("status %v, want %s", s, want)
		}
	}
	status("active")
	if _, _, body := fedGet(t, env, "/federation/trust-marked-entities?trust_mark_type="+url.QueryEscape(tmType)); !strings.Contains(body, sub) {
		t.Fatalf("trust-marked entities: %s", body)
	}
	if _, _, body := fedGet(t, env, "/federation/list?trust_marked=true&trust_mark_type="+url.QueryEscape(tmType)); !strings.Contains(body, sub) {
		t.Fatalf("list of the trust-marked: %s", body)
	}
	ownMarks = []map[string]any{{"trust_mark_type": tmType, "trust_mark": mark}}
	_, _, resolved := fedGet(t, env, resolvePath(env, sub))
	if r := fedClaims(t, resolved, "resolve-response+jwt", &keys); !strings.Contains(string(fedJSON(r["trust_marks"])), mark) {
		t.Fatalf("resolve carries no trust mark: %v", r["trust_marks"])
	}

	// The claim ends: the mark lapses at once, is audited, in the change
	// feed and queued for a webhook of TrustMark, and no new one is issued.
	wh := createWebhook(t, env, a.token, `{"Url":"https://8.8.8.8/hook","SubjectTypes":["TrustMark"]}`)
	cursor := a.must(200, "GET", "/changes?after=now", "")["nextCursor"].(string)
	a.must(200, "PUT", "/organisations/"+oid+"/authority-claims/"+claim, `{"Status":"Inactive"}`)
	if feed := a.must(200, "GET", "/changes?after="+url.QueryEscape(cursor), ""); !strings.Contains(string(fedJSON(feed)), `"SubjectType":"TrustMark"`) {
		t.Fatalf("no TrustMark change in the feed: %v", feed)
	}
	if dl := a.must(200, "GET", "/references/webhooks/"+wh.WebhookID+"/deliveries", ""); !strings.Contains(string(fedJSON(dl)), "trust_mark_revoke") {
		t.Fatalf("no TrustMark delivery: %v", dl)
	}
	status("revoked")
	if log := a.must(200, "GET", "/audit?Subject=TrustMark", ""); !strings.Contains(string(fedJSON(log)), "trust_mark_revoke") {
		t.Fatalf("no trust_mark_revoke in the audit log: %v", log)
	}
	if code, _, _ := fedGet(t, env, issuePath); code != 404 {
		t.Fatalf("issued while not entitled: %d", code)
	}
	ownMarks = []map[string]any{{"trust_mark_type": tmType, "trust_mark": mark}}
	_, _, resolved = fedGet(t, env, resolvePath(env, sub))
	if r := fedClaims(t, resolved, "resolve-response+jwt", &keys); r["trust_marks"] != nil {
		t.Fatalf("resolve carries a revoked mark: %v", r["trust_marks"])
	}

	// The claim back: a new mark can be issued, the old one stays revoked.
	a.must(200, "PUT", "/organisations/"+oid+"/authority-claims/"+claim, `{"Status":"Active"}`)
	status("revoked")
	code, _, again := fedGet(t, env, issuePath)
	if code != 200 || again == mark {
		t.Fatalf("issue after the claim came back: %d", code)
	}
}

// A repeated trust mark request (answered from the directory's cache of
// marks) is dropped the moment the entitlement lapses: the next request is
// refused and the mark's status is revoked.
func TestTrustMarkRepeatDroppedAfterALapse(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	authority := setupDomains(t, a)
	oid := a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"A-1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	claim := grant(t, a, oid, authority, "Payments", "PISP")
	const sub = "https://rp.acme.example.com"
	a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Acme RP","Status":"Active","Roles":["PISP"],"FederationEntityId":"`+sub+`"}`)
	tmType := a.must(201, "POST", "/references/trust-mark-types", `{"Name":"Payment initiation","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP"}`)["TrustMarkType"].(string)
	issuePath := "/federation/trust-mark?trust_mark_type=" + url.QueryEscape(tmType) + "&sub=" + url.QueryEscape(sub)
	code, _, mark := fedGet(t, env, issuePath)
	if code != 200 {
		t.Fatalf("issue: %d %s", code, mark)
	}
	for i := 0; i < 3; i++ {
		if code, _, again := fedGet(t, env, issuePath); code != 200 || again != mark {
			t.Fatalf("repeat %d: %d, same mark %v", i, code, again == mark)
		}
	}
	a.must(200, "PUT", "/organisations/"+oid+"/authority-claims/"+claim, `{"Status":"Inactive"}`)
	if code, _, body := fedGet(t, env, issuePath); code != 404 {
		t.Fatalf("issued after the lapse: %d %s", code, body)
	}
	_, _, _, body := fedPostForm(t, env.URL, "/federation/trust-mark-status", url.Values{"trust_mark": {mark}})
	if s := claimsOfJWT(body); s["status"] != "revoked" {
		t.Fatalf("status after the lapse: %v", s)
	}
}

func claimsOfJWT(tok string) map[string]any {
	jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil
	}
	var c map[string]any
	_ = json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c)
	return c
}

// A new mark (a subject not in the cache of marks) after a write that
// ends its entitlement is refused at once: the type, the federation key
// and any index kept between requests are dropped with the write, and
// nothing is answered from what was read before it.
func TestTrustMarkNewRefusedRightAfterALapse(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	authority := setupDomains(t, a)
	oid := a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"A-1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	claim := grant(t, a, oid, authority, "Payments", "PISP")
	subs := []string{"https://rp1.acme.example.com", "https://rp2.acme.example.com", "https://rp3.acme.example.com", "https://rp4.acme.example.com"}
	for i, sub := range subs {
		a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Acme RP `+strconv.Itoa(i)+`","Status":"Active","Roles":["PISP"],"FederationEntityId":"`+sub+`"}`)
	}
	created := a.must(201, "POST", "/references/trust-mark-types", `{"Name":"Payment initiation","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP"}`)
	tmType, typeID := created["TrustMarkType"].(string), created["Id"].(string)
	issue := func(sub string) int {
		code, _, _ := fedGet(t, env, "/federation/trust-mark?trust_mark_type="+url.QueryEscape(tmType)+"&sub="+url.QueryEscape(sub))
		return code
	}
	if c := issue(subs[0]); c != 200 {
		t.Fatalf("first mark: %d", c)
	}
	a.must(200, "PUT", "/references/trust-mark-types/"+typeID, `{"Name":"Payment initiation","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","Status":"Inactive"}`)
	if c := issue(subs[1]); c != 404 {
		t.Fatalf("a new mark of a type made Inactive: %d", c)
	}
	a.must(200, "PUT", "/references/trust-mark-types/"+typeID, `{"Name":"Payment initiation","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","Status":"Active"}`)
	if c := issue(subs[1]); c != 200 {
		t.Fatalf("the type Active again: %d", c)
	}
	a.must(200, "PUT", "/organisations/"+oid+"/authority-claims/"+claim, `{"Status":"Inactive"}`)
	for _, sub := range subs[2:] {
		if c := issue(sub); c != 404 {
			t.Fatalf("a new mark after the claim lapsed: %d", c)
		}
	}
}
