package web_test

// An outside review of access control and bad input on the API's newer
// parts (docs/design.md §3, §4, §12, §15, §16): authorisation domains,
// roles and authorities, authority claims, the change feed, webhooks,
// identity providers and their group mappings, the federation keys.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web/webtest"
)

// publicAPI are the /api routes that take no credentials.
var publicAPI = map[string]bool{
	"/api/participants": true, "/api/releases": true, "/api/releases/{version}/openapi.yaml": true, "/api/keystore/ssa.jwks": true,
}

// snapshot is what a Super User reads of everything the walked routes
// could change, the audit log's size first.
func snapshot(t *testing.T, su *api, orgs ...string) string {
	t.Helper()
	var b strings.Builder
	audit := su.must(200, "GET", "/audit?size=1", "")
	fmt.Fprintf(&b, "audit %v\n", audit["totalSize"])
	paths := []string{"/references/authorisation-domains", "/references/authorisation-domains/Payments/roles", "/references/authorities",
		"/references/webhooks", "/references/identity-providers", "/references/signing-keys", "/references/signing-keys/federation",
		"/references/role-metadata-policies", "/references/flags", "/references/contact-types", "/users/super", "/users/data-administrators",
		"/organisations?size=200"}
	for _, o := range orgs {
		paths = append(paths, "/organisations/"+o, "/organisations/"+o+"/authority-claims", "/organisations/"+o+"/softwarestatements", "/organisations/"+o+"/contacts")
	}
	for _, p := range paths {
		r, m := su.do("GET", p, "")
		fmt.Fprintf(&b, "%s %d %s\n", p, r.StatusCode, mustMarshal(m))
	}
	return b.String()
}

// walkAPI lists the administrator routes of /api (method, pattern).
func walkAPI(t *testing.T, env *webtest.Env) [][2]string {
	t.Helper()
	var routes [][2]string
	chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(route, "/")
		if strings.HasPrefix(route, "/api/") && !publicAPI[route] {
			routes = append(routes, [2]string{method, route})
		}
		return nil
	})
	sort.Slice(routes, func(i, j int) bool { return routes[i][1]+routes[i][0] < routes[j][1]+routes[j][0] })
	if len(routes) < 80 {
		t.Fatalf("only %d routes: the walk missed the API", len(routes))
	}
	return routes
}

// TestReviewEveryAPIRouteRefusesWhoMayNot walks every administrator route
// of /api: without a token 401 with a challenge, a signed-in person who is
// no administrator 403, an Inactive Data Administrator 403, a Data
// Administrator 403 on Reference Data (but reads domains, roles and
// authorities); every refusal a problem+json, and all of them together
// change nothing a Super User can read, the audit log included.
func TestReviewEveryAPIRouteRefusesWhoMayNot(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	aid := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App"}`)["SoftwareStatementId"].(string)
	cid := grant(t, su, oid, auth, "Payments", "PISP")
	wh := su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	su.must(201, "POST", "/references/contact-types", `{"Name":"Escalation"}`)
	tmType := su.must(201, "POST", "/references/trust-mark-types", `{"Name":"Payment initiation","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP"}`)["Id"].(string)
	dana := newAPIWithInvite(t, env, su, "dana@example.com")
	gone := newAPIWithInvite(t, env, su, "gone@example.com")
	stranger := newAPI(t, env, "stranger@example.com")
	// First requests (an invitation's first use may record it) before the snapshot.
	dana.must(200, "GET", "/organisations", "")
	gone.must(200, "GET", "/organisations", "")
	su.must(200, "PUT", "/users/data-administrators/gone@example.com", `{"Status":"Inactive"}`)
	stranger.do("GET", "/organisations", "")
	anon := &api{t: t, base: env.URL}

	ids := map[string]string{"webhookID": wh, "deliveryID": "1", "domain": "Payments", "role": "PISP", "authorityID": auth, "claimID": cid,
		"orgID": oid, "appID": aid, "email": "admin@example.com", "name": "Escalation", "flagID": "00000000-0000-4000-8000-000000000001",
		"kid": "nope", "certType": "qseal", "kmID": "nope", "attID": "nope", "serverID": "nope", "contactID": "nope", "docID": "nope",
		"certID": "nope", "policyID": "nope", "typeID": tmType, "request": "MAMCAQA"}
	// Bodies a Super User could send with success, so that a refusal is
	// about who sends them.
	bodies := map[string]string{
		"POST /api/references/authorisation-domains":                      `{"Name":"Sneaky"}`,
		"PUT /api/references/authorisation-domains/{domain}":              `{"Description":"sneaky","Status":"Active"}`,
		"POST /api/references/authorisation-domains/{domain}/roles":       `{"Name":"SNEAKY","Type":"Federation"}`,
		"PUT /api/references/authorisation-domains/{domain}/roles/{role}": `{"Type":"Directory","Exclusive":true}`,
		"POST /api/references/authorities":                                `{"AuthorityName":"Sneaky","AuthorityCode":"SN","Country":"GB"}`,
		"PUT /api/references/authorities/{authorityID}":                   `{"AuthorityName":"Sneaky","AuthorityCode":"SN","Country":"GB","AuthorisationDomains":["Payments"]}`,
		"POST /api/references/webhooks":                                   `{"Url":"https://8.8.8.8/sneaky","SubjectTypes":["Organisation"]}`,
		"PUT /api/references/webhooks/{webhookID}":                        `{"Url":"https://8.8.8.8/sneaky","SubjectTypes":["Contact"]}`,
		"POST /api/references/identity-providers":                         `{"Name":"Sneaky","Issuer":"https://idp.invalid","EmailDomains":["*"],"GroupRoles":[{"Group":"g","Role":"SuperUser"}]}`,
		"PUT /api/references/identity-providers/{name}":                   `{"Issuer":"https://idp.invalid","EmailDomains":["*"]}`,
		"POST /api/references/contact-types":                              `{"Name":"Sneaky"}`,
		"PUT /api/references/contact-types/{name}":                        `{"Description":"sneaky","Status":"Inactive"}`,
		"POST /api/users/super":                                           `{"Email":"sneaky@example.com","Status":"Active"}`,
		"PUT /api/users/super/{email}":                                    `{"Status":"Inactive"}`,
		"POST /api/users/data-administrators":                             `{"Email":"sneaky@example.com"}`,
		"POST /api/references/trust-mark-types":                           `{"Name":"Sneaky","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP"}`,
		"PUT /api/references/trust-mark-types/{typeID}":                   `{"Name":"Sneaky","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP","Status":"Inactive"}`,
		"PUT /api/organisations/{orgID}/authority-claims/{claimID}":       `{"Status":"Inactive"}`,
		"POST /api/organisations/{orgID}/authority-claims":                `{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"AISP"}`,
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	before := snapshot(t, su, oid)
	var reads []string
	routes := walkAPI(t, env)
	for _, rt := range routes {
		method, route := rt[0], rt[1]
		path := param.ReplaceAllStringFunc(route, func(m string) string {
			v, ok := ids[m[1:len(m)-1]]
			if !ok {
				t.Fatalf("no id for %s in %s", m, route)
			}
			return v
		})
		path = strings.TrimPrefix(path, "/api")
		body := bodies[method+" "+route]
		if body == "" && (method == "POST" || method == "PUT") {
			body = `{}`
		}
		callers := []struct {
			name string
			a    *api
			want int
		}{{"no token", anon, 401}, {"no administrator", stranger, 403}, {"Inactive Data Administrator", gone, 403}}
		if superOnly(method, route) {
			callers = append(callers, struct {
				name string
				a    *api
				want int
			}{"Data Administrator", dana, 403})
		}
		for _, c := range callers {
			var resp *http.Response
			var m map[string]any
			if c.a == anon {
				resp, m = anonDo(t, env.URL, method, path, body)
			} else {
				resp, m = c.a.do(method, path, body)
			}
			if resp.StatusCode != c.want || resp.Header.Get("Content-Type") != "application/problem+json" || len(m["errors"].([]any)) == 0 {
				t.Errorf("%s %s as %s: %d %s %v, want %d problem+json", method, path, c.name, resp.StatusCode, resp.Header.Get("Content-Type"), m, c.want)
			}
			if c.want == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s %s without a token: no Bearer challenge", method, path)
			}
		}
		if method == "GET" && !superOnly(method, route) {
			reads = append(reads, path)
		}
	}
	if after := snapshot(t, su, oid); after != before {
		t.Fatalf("refused requests changed something:\nbefore %s\nafter  %s", before, after)
	}
	// A Data Administrator reads what is not kept from them (some reads,
	// exports and SSAs, are audited: after the comparison).
	for _, path := range reads {
		if resp, m := dana.do("GET", path, ""); resp.StatusCode == 401 || resp.StatusCode == 403 {
			t.Errorf("GET %s as Data Administrator: %d %v", path, resp.StatusCode, m)
		}
	}
}

func anonDo(t *testing.T, base, method, path, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, base+"/api"+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp, m
}

var _ = context.Background
var _ = store.NewID
var _ sync.Mutex

// TestReviewClaimOfAnotherOrganisation: a claim is reached only under its
// own organisation's path. Another organisation's claim id under A's path
// is a 404 for every method, and changes nothing of either organisation.
func TestReviewClaimOfAnotherOrganisation(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	dana := newAPIWithInvite(t, env, su, "dana@example.com")
	a := su.must(201, "POST", "/organisations", org("Alpha"))["OrganisationId"].(string)
	b := su.must(201, "POST", "/organisations", org("Beta"))["OrganisationId"].(string)
	claimB := grant(t, su, b, auth, "Payments", "PISP")
	before := snapshot(t, su, a, b)
	for _, c := range []struct{ method, body string }{
		{"GET", ""},
		{"PUT", `{"Status":"Inactive"}`},
		{"PUT", `{"Status":"Inactive","OrganisationId":"` + a + `"}`},
		{"PUT", `{"ClaimId":"` + claimB + `","OrganisationId":"` + b + `","Status":"Active","RegistrationId":"HIJACK"}`},
	} {
		for _, who := range []*api{dana, su} {
			r, m := who.do(c.method, "/organisations/"+a+"/authority-claims/"+claimB, c.body)
			if r.StatusCode != 404 || r.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s B's claim under A %s: %d %v, want 404", c.method, c.body, r.StatusCode, m)
			}
		}
	}
	// DELETE is never allowed, whoever's claim it names.
	if r, _ := dana.do("DELETE", "/organisations/"+a+"/authority-claims/"+claimB, ""); r.StatusCode != 405 {
		t.Errorf("DELETE: %d", r.StatusCode)
	}
	// A's list does not show B's claims; a create under A naming B in
	// the body makes A's claim, not B's.
	if l := dana.must(200, "GET", "/organisations/"+a+"/authority-claims", "")["list"].([]any); len(l) != 0 {
		t.Fatalf("A's list holds %v", l)
	}
	if after := snapshot(t, su, a, b); after != before {
		t.Fatalf("refused requests changed something:\nbefore %s\nafter  %s", before, after)
	}
	c := dana.must(201, "POST", "/organisations/"+a+"/authority-claims", `{"OrganisationId":"`+b+`","AuthorityId":"`+auth+`","AuthorisationDomain":"Payments","Role":"AISP"}`)
	if c["OrganisationId"] != a {
		t.Fatalf("a claim posted under A belongs to %v", c["OrganisationId"])
	}
	if l := su.must(200, "GET", "/organisations/"+b+"/authority-claims", "")["list"].([]any); len(l) != 1 {
		t.Fatalf("B's claims: %v", l)
	}
}

// TestReviewClaimsNeedActiveReferences: an Active claim cannot be made
// (nor made Active again) on an Inactive authority, domain or role: 422 on
// the field, nothing stored, nothing audited.
func TestReviewClaimsNeedActiveReferences(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	dana := newAPIWithInvite(t, env, su, "dana@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	path := "/organisations/" + oid + "/authority-claims"
	old := grant(t, dana, oid, auth, "Payments", "AISP")
	dana.must(200, "PUT", path+"/"+old, `{"Status":"Inactive"}`)
	su.must(201, "POST", "/references/authorisation-domains/Data/roles", `{"Name":"OLD","Type":"Federation","Status":"Inactive"}`)
	other := su.must(201, "POST", "/references/authorities", `{"AuthorityName":"Old Office","AuthorityCode":"OO","Country":"GB","AuthorisationDomains":["Payments","Data"],"Status":"Inactive"}`)["AuthorityId"].(string)
	su.must(201, "POST", "/references/authorities", `{"AuthorityName":"Data Office","AuthorityCode":"DO","Country":"GB","AuthorisationDomains":["Data"]}`)
	// The role AISP Inactive (only an Inactive claim names it: allowed).
	su.must(200, "PUT", "/references/authorisation-domains/Payments/roles/AISP", `{"Type":"Federation","Status":"Inactive"}`)
	before := snapshot(t, su, oid)
	for _, c := range []struct{ body, field string }{
		{`{"AuthorityId":"` + other + `","AuthorisationDomain":"Payments","Role":"PISP"}`, "AuthorityId"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"AISP"}`, "Role"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"` + strings.Repeat("R", 5000) + `"}`, "Role"},
		{`{"AuthorityId":"` + strings.Repeat("a", 100000) + `","AuthorisationDomain":"Payments","Role":"PISP"}`, "AuthorityId"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"PISP","RegistrationId":"\u0000"}`, "RegistrationId"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"PISP","Status":"active"}`, "Status"},
	} {
		r, m := dana.do("POST", path, c.body)
		if r.StatusCode != 422 || fieldsOf(m)[c.field] == "" {
			t.Errorf("%.120s: %d %v, want 422 on %s", c.body, r.StatusCode, m, c.field)
		}
	}
	// Making the Inactive claim on AISP Active again: the role is Inactive.
	if r, m := dana.do("PUT", path+"/"+old, `{"Status":"Active"}`); r.StatusCode != 422 || fieldsOf(m)["Role"] == "" {
		t.Errorf("reactivating a claim on an Inactive role: %d %v", r.StatusCode, m)
	}
	// Wrong types and shapes: 400 naming the field where there is one.
	for _, c := range []struct{ body, field string }{
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":["PISP"]}`, "Role"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"PISP","Exclusive":true}`, "Exclusive"},
		{`{"AuthorityId":"` + auth + `","AuthorisationDomain":"Payments","Role":"PISP","Status":null,"RegistrationId":12}`, "RegistrationId"},
	} {
		r, m := dana.do("POST", path, c.body)
		if r.StatusCode != 400 || fieldsOf(m)[c.field] == "" {
			t.Errorf("%s: %d %v, want 400 on %s", c.body, r.StatusCode, m, c.field)
		}
	}
	for _, body := range []string{`{"AuthorityId":`, `[{"AuthorityId":"x"}]`, `{"Role":"PISP"}{"Role":"AISP"}`, `"PISP"`} {
		if r, m := dana.do("POST", path, body); r.StatusCode != 400 {
			t.Errorf("%s: %d %v, want 400", body, r.StatusCode, m)
		}
	}
	if after := snapshot(t, su, oid); after != before {
		t.Fatalf("refused requests changed something:\nbefore %s\nafter  %s", before, after)
	}
}

// TestReviewExclusiveClaimRace: many writers at once add an Exclusive
// role and ordinary roles to one organisation; the Exclusive rule holds
// at the end (docs/design.md §12: checked inside the write transaction)
// and no writer gets a 5xx.
func TestReviewExclusiveClaimRace(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	for round := 0; round < 5; round++ {
		oid := su.must(201, "POST", "/organisations", org(fmt.Sprintf("Race%d", round)))["OrganisationId"].(string)
		path := "/organisations/" + oid + "/authority-claims"
		var wg sync.WaitGroup
		codes := make(chan int, 6)
		for _, role := range []string{"EXCL", "PISP", "AISP", "EXCL", "PISP", "AISP"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, _ := su.do("POST", path, `{"AuthorityId":"`+auth+`","AuthorisationDomain":"Payments","Role":"`+role+`"}`)
				codes <- r.StatusCode
			}()
		}
		wg.Wait()
		close(codes)
		for c := range codes {
			if c != 201 && c != 409 {
				t.Errorf("round %d: a writer got %d", round, c)
			}
		}
		var active []string
		for _, c := range su.must(200, "GET", path, "")["list"].([]any) {
			if m := c.(map[string]any); m["Status"] == "Active" {
				active = append(active, m["Role"].(string))
			}
		}
		sort.Strings(active)
		ok := strings.Join(active, ",") == "EXCL" || strings.Join(active, ",") == "AISP,PISP" || strings.Join(active, ",") == "PISP" || strings.Join(active, ",") == "AISP"
		if !ok {
			t.Fatalf("round %d: the organisation holds %v at once", round, active)
		}
	}
}

// TestReviewDeliveryOfAnotherWebhook: a delivery is reached only under its
// own webhook: redelivering webhook A's delivery under B's path is a 404
// and queues nothing; ids that are no delivery are 404s.
func TestReviewDeliveryOfAnotherWebhook(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	a := su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/a","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	b := su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/b","SubjectTypes":["Contact"]}`)["WebhookId"].(string)
	su.must(201, "POST", "/organisations", org("Acme"))
	ds := su.must(200, "GET", "/references/webhooks/"+a+"/deliveries", "")["content"].([]any)
	if len(ds) != 1 {
		t.Fatalf("A's deliveries: %v", ds)
	}
	did := fmt.Sprint(ds[0].(map[string]any)["DeliveryId"])
	before := snapshot(t, su)
	for _, p := range []string{"/references/webhooks/" + b + "/deliveries/" + did + "/redeliver", "/references/webhooks/" + a + "/deliveries/0/redeliver",
		"/references/webhooks/" + a + "/deliveries/-1/redeliver", "/references/webhooks/" + a + "/deliveries/99999999999999999999/redeliver",
		"/references/webhooks/" + a + "/deliveries/1e3/redeliver"} {
		if r, m := su.do("POST", p, ""); r.StatusCode != 404 || r.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("POST %s: %d %v, want 404", p, r.StatusCode, m)
		}
	}
	if l := su.must(200, "GET", "/references/webhooks/"+b+"/deliveries", "")["content"].([]any); len(l) != 0 {
		t.Fatalf("B's deliveries: %v", l)
	}
	if after := snapshot(t, su); after != before {
		t.Fatalf("refused requests changed something:\nbefore %s\nafter  %s", before, after)
	}
	su.must(202, "POST", "/references/webhooks/"+a+"/deliveries/"+did+"/redeliver", "")
}

// TestReviewReferenceNamesAreAddressable: a domain or role name is one
// path segment of its URL (docs/design.md §12); whatever name the API
// accepts, its Location answers it. "." and ".." are no name a URL can
// carry (clients and proxies remove them as dot segments, RFC 3986 §5.2.4).
func TestReviewReferenceNamesAreAddressable(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	for _, name := range []string{"Open Banking", "Paiements-é", "a+b", "a;b", "a&b=c", "x.y", "🙂"} {
		r, m := su.do("POST", "/references/authorisation-domains", `{"Name":`+mustMarshal(name)+`}`)
		if r.StatusCode != 201 {
			t.Errorf("create %q: %d %v", name, r.StatusCode, m)
			continue
		}
		loc := strings.TrimPrefix(r.Header.Get("Location"), "/api")
		if got := su.must(200, "GET", loc, ""); got["Name"] != name {
			t.Errorf("%q at %s: %v", name, loc, got)
		}
		r, m = su.do("POST", loc+"/roles", `{"Name":`+mustMarshal(name)+`,"Type":"Federation"}`)
		if r.StatusCode != 201 {
			t.Errorf("create role %q: %d %v", name, r.StatusCode, m)
			continue
		}
		rloc := strings.TrimPrefix(r.Header.Get("Location"), "/api")
		if got := su.must(200, "GET", rloc, ""); got["Name"] != name || got["AuthorisationDomain"] != name {
			t.Errorf("role %q at %s: %v", name, rloc, got)
		}
	}
	su.must(201, "POST", "/references/authorisation-domains", `{"Name":"Payments"}`)
	before := snapshot(t, su)
	for _, name := range []string{".", ".."} {
		if r, m := su.do("POST", "/references/authorisation-domains", `{"Name":"`+name+`"}`); r.StatusCode != 422 || fieldsOf(m)["Name"] == "" {
			t.Errorf("domain %q: %d %v, want 422 on Name", name, r.StatusCode, m)
		}
		if r, m := su.do("POST", "/references/authorisation-domains/Payments/roles", `{"Name":"`+name+`","Type":"Federation"}`); r.StatusCode != 422 || fieldsOf(m)["Name"] == "" {
			t.Errorf("role %q: %d %v, want 422 on Name", name, r.StatusCode, m)
		}
		if r, m := su.do("POST", "/references/contact-types", `{"Name":"`+name+`"}`); r.StatusCode != 422 || fieldsOf(m)["Name"] == "" {
			t.Errorf("contact type %q: %d %v, want 422 on Name", name, r.StatusCode, m)
		}
		if r, m := su.do("POST", "/references/identity-providers", `{"Name":"`+name+`","Issuer":"https://idp.invalid","EmailDomains":["example.com"]}`); r.StatusCode != 422 || fieldsOf(m)["Name"] == "" {
			t.Errorf("identity provider %q: %d %v, want 422 on Name", name, r.StatusCode, m)
		}
	}
	if after := snapshot(t, su); after != before {
		t.Fatalf("refused requests changed something:\nbefore %s\nafter  %s", before, after)
	}
}

// TestReviewSigningKeyKindsStayApart: the SSA keys' retire takes only SSA
// keys: the federation key's kid under it is a 404 and the federation
// keeps signing; unknown kids are 404s; rotation takes only a known alg.
func TestReviewSigningKeyKindsStayApart(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	fed := su.must(200, "GET", "/references/signing-keys/federation", "")["list"].([]any)
	if len(fed) != 1 {
		t.Fatalf("federation keys: %v", fed)
	}
	fedKid := fed[0].(map[string]any)["kid"].(string)
	before := snapshot(t, su)
	for _, kid := range []string{fedKid, "nope", strings.Repeat("k", 5000)} {
		if r, m := su.do("POST", "/references/signing-keys/"+kid+"/retire", ""); r.StatusCode != 404 {
			t.Errorf("retire %.40s: %d %v, want 404", kid, r.StatusCode, m)
		}
	}
	for _, body := range []string{`{"alg":"none"}`, `{"alg":"HS256"}`, `{"alg":""}`, `{}`} {
		if r, m := su.do("POST", "/references/signing-keys", body); r.StatusCode != 422 || fieldsOf(m)["alg"] == "" {
			t.Errorf("rotate %s: %d %v, want 422 on alg", body, r.StatusCode, m)
		}
	}
	if r, m := su.do("POST", "/references/signing-keys", `{"alg":1}`); r.StatusCode != 400 {
		t.Errorf("rotate with a number: %d %v", r.StatusCode, m)
	}
	if after := snapshot(t, su); after != before {
		t.Fatalf("refused requests changed something:\nbefore %s\nafter  %s", before, after)
	}
	resp, err := http.Get(env.URL + "/.well-known/openid-federation")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("entity configuration: %d", resp.StatusCode)
	}
}

// TestReviewDuplicateCreatesAtOnce: the same reference item created by
// several requests at once is made once; the others get 409, none a 5xx.
// A role becoming Exclusive races claims that would break the rule.
func TestReviewDuplicateCreatesAtOnce(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	for _, c := range []struct{ path, body string }{
		{"/references/authorisation-domains", `{"Name":"Twice"}`},
		{"/references/authorisation-domains/Payments/roles", `{"Name":"TWICE","Type":"Federation"}`},
		{"/references/authorities", `{"AuthorityName":"Twice","AuthorityCode":"TW","Country":"GB"}`},
		{"/references/contact-types", `{"Name":"Twice"}`},
	} {
		var wg sync.WaitGroup
		codes := make(chan int, 6)
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, _ := su.do("POST", c.path, c.body)
				codes <- r.StatusCode
			}()
		}
		wg.Wait()
		close(codes)
		n := map[int]int{}
		for code := range codes {
			n[code]++
		}
		if n[201] != 1 || n[409] != 5 {
			t.Errorf("%s at once: %v, want one 201 and five 409", c.path, n)
		}
	}
	// Claims on PISP and AISP for one organisation racing PISP becoming
	// Exclusive: at the end no organisation holds an Exclusive role beside
	// another.
	for round := range 4 {
		x, y := fmt.Sprintf("X%d", round), fmt.Sprintf("Y%d", round)
		su.must(201, "POST", "/references/authorisation-domains/Payments/roles", `{"Name":"`+x+`","Type":"Federation"}`)
		su.must(201, "POST", "/references/authorisation-domains/Payments/roles", `{"Name":"`+y+`","Type":"Federation"}`)
		oid := su.must(201, "POST", "/organisations", org(fmt.Sprintf("Ex%d", round)))["OrganisationId"].(string)
		grant(t, su, oid, auth, "Payments", x)
		var wg sync.WaitGroup
		wg.Add(2)
		var c1, c2 int
		go func() {
			defer wg.Done()
			r, _ := su.do("POST", "/organisations/"+oid+"/authority-claims", `{"AuthorityId":"`+auth+`","AuthorisationDomain":"Payments","Role":"`+y+`"}`)
			c1 = r.StatusCode
		}()
		go func() {
			defer wg.Done()
			r, _ := su.do("PUT", "/references/authorisation-domains/Payments/roles/"+x, `{"Type":"Federation","Exclusive":true}`)
			c2 = r.StatusCode
		}()
		wg.Wait()
		if !(c1 == 201 && c2 == 409) && !(c1 == 409 && c2 == 200) {
			t.Fatalf("round %d: claim %d, Exclusive %d", round, c1, c2)
		}
	}
}

// TestReviewWrongMethods: a method a route does not take is a 405
// problem+json with the Allow header RFC 9110 §15.5.6 requires, and
// changes nothing.
func TestReviewWrongMethods(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	cid := grant(t, su, oid, auth, "Payments", "PISP")
	wh := su.must(201, "POST", "/references/webhooks", `{"Url":"https://8.8.8.8/h","SubjectTypes":["Organisation"]}`)["WebhookId"].(string)
	before := snapshot(t, su, oid)
	for _, c := range []struct{ method, path, allow string }{
		{"PATCH", "/references/authorisation-domains/Payments", "DELETE, GET, PUT"},
		{"POST", "/references/authorisation-domains/Payments", "DELETE, GET, PUT"},
		{"DELETE", "/references/authorisation-domains/Payments/roles", "GET, POST"},
		{"PATCH", "/references/authorities/" + auth, "DELETE, GET, PUT"},
		{"PATCH", "/organisations/" + oid + "/authority-claims/" + cid, "GET, PUT"},
		{"DELETE", "/organisations/" + oid + "/authority-claims/" + cid, "GET, PUT"},
		{"PUT", "/organisations/" + oid + "/authority-claims", "GET, POST"},
		{"POST", "/changes", "GET"},
		{"GET", "/references/webhooks/" + wh + "/rotate-secret", "POST"},
		{"PATCH", "/references/webhooks/" + wh, "DELETE, GET, PUT"},
		{"DELETE", "/references/identity-providers/x", "GET, PUT"},
		{"PUT", "/references/signing-keys/federation", "GET, POST"},
		{"PATCH", "/users/super/admin@example.com", "GET, PUT"},
		{"POST", "/users/data-administrators/dana@example.com", "GET, PUT"},
	} {
		r, m := su.do(c.method, c.path, `{}`)
		allow := strings.Split(strings.ReplaceAll(r.Header.Get("Allow"), " ", ""), ",")
		sort.Strings(allow)
		if r.StatusCode != 405 || r.Header.Get("Content-Type") != "application/problem+json" || len(m["errors"].([]any)) == 0 {
			t.Errorf("%s %s: %d %s %v, want a 405 problem", c.method, c.path, r.StatusCode, r.Header.Get("Content-Type"), m)
		}
		if got := strings.Join(allow, ", "); got != c.allow && got != strings.Replace(c.allow, "GET", "GET, HEAD", 1) {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, r.Header.Get("Allow"), c.allow)
		}
	}
	if after := snapshot(t, su, oid); after != before {
		t.Fatalf("refused requests changed something:\nbefore %s\nafter  %s", before, after)
	}
}

// TestReviewClaimStaleIfMatch: a claim's PUT with a stale If-Match is a
// 412 that changes nothing; with the current ETag it passes.
func TestReviewClaimStaleIfMatch(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	dana := newAPIWithInvite(t, env, su, "dana@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	path := "/organisations/" + oid + "/authority-claims/" + grant(t, dana, oid, auth, "Payments", "PISP")
	r, _ := dana.do("GET", path, "")
	etag := r.Header.Get("ETag")
	dana.must(200, "PUT", path, `{"RegistrationId":"R-2","Status":"Active"}`)
	before := snapshot(t, su, oid)
	if r, m := dana.do("PUT", path, `{"RegistrationId":"R-3","Status":"Inactive"}`, "If-Match", etag); r.StatusCode != 412 || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("stale If-Match: %d %v", r.StatusCode, m)
	}
	if after := snapshot(t, su, oid); after != before {
		t.Fatalf("a 412 changed something:\nbefore %s\nafter  %s", before, after)
	}
	r, _ = dana.do("GET", path, "")
	if r, m := dana.do("PUT", path, `{"RegistrationId":"R-3","Status":"Inactive"}`, "If-Match", r.Header.Get("ETag")); r.StatusCode != 200 || m["Status"] != "Inactive" {
		t.Fatalf("current If-Match: %d %v", r.StatusCode, m)
	}
}

// TestConsoleSuperUserRoutesRefuseDataAdministrators walks every console
// route of Reference Data (and the development outbox), every method, as
// a signed-in Data Administrator: each is 403 and changes nothing
// (docs/design.md §3). A route added later is walked too.
func TestConsoleSuperUserRoutesRefuseDataAdministrators(t *testing.T) {
	env := webtest.Start(t, nil)
	admin := webtest.Browser()
	webtest.SignIn(t, admin, env.URL, "admin@example.com").Body.Close()
	resp, err := admin.PostForm(env.URL+"/references/data-administrators", url.Values{"Email": {"dana@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	dana := webtest.Browser()
	webtest.SignIn(t, dana, env.URL, "dana@example.com").Body.Close()
	dana.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	param := regexp.MustCompile(`\{[^}]+\}`)
	walked := 0
	err = chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if !strings.HasPrefix(route, "/references") && route != "/dev/outbox" {
			return nil
		}
		u := env.URL + strings.TrimSuffix(param.ReplaceAllString(route, "x"), "/")
		req, _ := http.NewRequest(method, u, strings.NewReader(url.Values{"Email": {"mallory@example.com"}, "Status": {"Active"}, "Name": {"x"}}.Encode()))
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := dana.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s as a Data Administrator: %d", method, route, resp.StatusCode)
		}
		walked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("walked %d routes", walked)
	if walked < 50 {
		t.Fatalf("walked only %d routes", walked)
	}
	a := newAPI(t, env, "admin@example.com")
	if r, _ := a.do("GET", "/users/super/mallory@example.com", ""); r.StatusCode != http.StatusNotFound {
		t.Fatalf("a Data Administrator made a Super User: %d", r.StatusCode)
	}
}
