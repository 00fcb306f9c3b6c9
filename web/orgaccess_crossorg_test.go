package web_test

// An Organisation Administrator of A against organisation B, beyond the
// access matrix (docs/design.md §19): A's organisation in the
// path, B's resources below it.

import (
	"crypto/x509/pkix"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

type crossOrgIDs map[string]string

// crossOrg makes an organisation with one of everything an Organisation
// Administrator reaches under it.
func crossOrg(t *testing.T, p pkiSetup, su *api, auth, name, issuerURL string) crossOrgIDs {
	t.Helper()
	oid := su.must(201, "POST", "/organisations", `{"OrganisationName":"`+name+`","LegalEntityName":"`+name+` Ltd","RegistrationNumber":"REG-`+name+`","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	aid := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App of `+name+`","RedirectUri":["https://x.example/cb"]}`)["SoftwareStatementId"].(string)
	cid := grant(t, su, oid, auth, "Payments", "PISP")
	contact := su.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Business","LastName":"Ops","EmailAddress":"ops@`+strings.ToLower(name)+`.example"}`)["ContactId"].(string)
	sid := su.must(201, "POST", "/organisations/"+oid+"/authorisationservers", `{"CustomerFriendlyName":"AS of `+name+`","Issuer":"`+issuerURL+`"}`)["AuthorisationServerId"].(string)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: mustKey(t, "p256").Public(), KeyID: "k-" + name, Use: "sig", Algorithm: "ES256"})
	km := su.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig","Description":"km of `+name+`","SoftwareStatementId":"`+aid+`"}`)["KeyMaterialID"].(string)
	_, att := su.multipart("POST", "/organisations/"+oid+"/key-material/"+km+"/attachments", "secret-"+name+".txt", []byte("secret of "+name), "att of "+name)
	attID, _ := att["KeyMaterialAttachmentID"].(string)
	doc := su.must(201, "POST", "/organisations/"+oid+"/documents", `{"DocumentType":"Licence","DocumentExpiryDate":"2099-01-01"}`)
	docID, _ := doc["DocumentId"].(string)
	cert := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements/"+aid+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-03-01","CertificationExpirationDate":"2027-03-01","CertificationURI":"https://openid.net/certification/acme"}`)
	certID, _ := cert["CertificationId"].(string)
	der := mustCSR(t, mustKey(t, "p256"), pkix.Name{})
	req, _ := http.NewRequest("POST", p.env.URL+"/api/organisations/"+oid+"/softwarestatements/"+aid+"/certificates/transport", strings.NewReader(csrPEM(der)))
	req.Header.Set("Content-Type", "application/x-pem-file")
	req.Header.Set("Authorization", "Bearer "+su.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var issued map[string]any
	json.NewDecoder(resp.Body).Decode(&issued)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("issue: %d %v", resp.StatusCode, issued)
	}
	return crossOrgIDs{"orgID": oid, "appID": aid, "claimID": cid, "contactID": contact, "serverID": sid, "kmID": km, "attID": attID,
		"docID": docID, "certID": certID, "kid": issued["kid"].(string), "name": name}
}

func TestOrgAdminReachesNothingOfBUnderA(t *testing.T) {
	p := startPKI(t, true, nil)
	env, su := p.env, p.a
	auth := setupDomains(t, su)
	a := crossOrg(t, p, su, auth, "Alpha", discoveryServer(t, func(self string) string { return self }))
	b := crossOrg(t, p, su, auth, "Betazed", discoveryServer(t, func(self string) string { return self }))
	mustInviteOrgAdmin(t, env, "olga@alpha.example", a["orgID"])
	mustInviteOrgAdmin(t, env, "bert@bz.example", b["orgID"])
	b["email"] = "bert@bz.example"
	for k, v := range b {
		if v == "" {
			t.Fatalf("no %s for B", k)
		}
	}
	olga := newAPI(t, env, "olga@alpha.example")
	browser := webtest.Browser()
	if resp := webtest.SignIn(t, browser, env.URL, "olga@alpha.example"); resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	noFollow := *browser
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	snap := func() string {
		var sb strings.Builder
		o := b["orgID"]
		for _, pth := range []string{"", "/contacts", "/softwarestatements", "/softwarestatements/" + b["appID"], "/authorisationservers", "/key-material",
			"/key-material/" + b["kmID"] + "/attachments", "/certificates", "/documents", "/authority-claims", "/administrators",
			"/softwarestatements/" + b["appID"] + "/certifications", "/softwarestatements/" + b["appID"] + "/certificates"} {
			r, m := su.do("GET", "/organisations/"+o+pth, "")
			sb.WriteString(pth + " " + r.Status + " " + mustMarshal(m) + "\n")
		}
		return sb.String()
	}
	before := snap()

	jsonBodies := []string{`{}`,
		`{"ContactType":"Business","LastName":"Pwned","EmailAddress":"p@pwn.example"}`,
		`{"ClientName":"Pwned","RedirectUri":["https://pwn.example/cb"]}`,
		`{"CustomerFriendlyName":"Pwned","Issuer":"` + a["serverID"] + `"}`,
		`{"Status":"Inactive"}`, `{"Status":"Suspended"}`, `{"RevokeReason":"keycompromise"}`,
		`{"Status":"Revoked","RevokeReason":"keyCompromise","Description":"Pwned","Use":"sig"}`, `{"Description":"Pwned"}`,
	}
	forms := []url.Values{{"x": {"1"}}, {"ContactType": {"Business"}, "LastName": {"Pwned"}, "EmailAddress": {"p@pwn.example"}},
		{"ClientName": {"Pwned"}, "RedirectUri": {"https://pwn.example/cb"}}, {"Status": {"Inactive"}}, {"Status": {"Suspended"}},
		{"RevokeReason": {"keycompromise"}}, {"Description": {"Pwned"}}}

	leak := regexp.MustCompile(regexp.QuoteMeta(b["orgID"]) + "|Betazed|betazed|secret of")
	param := regexp.MustCompile(`\{([^}]+)\}`)
	var routes [][2]string
	chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.Contains(route, "/organisations/{orgID}/") && !strings.HasPrefix(route, "/keystore") {
			routes = append(routes, [2]string{method, strings.TrimSuffix(route, "/")})
		}
		return nil
	})
	sort.Slice(routes, func(i, j int) bool { return routes[i][1]+routes[i][0] < routes[j][1]+routes[j][0] })
	for _, rt := range routes {
		method, route := rt[0], rt[1]
		if !strings.Contains(strings.TrimPrefix(route, "/api"), "{") {
			continue
		}
		sub := strings.SplitN(route, "{orgID}", 2)[1]
		if !param.MatchString(sub) {
			continue // nothing of B's in the path
		}
		path := param.ReplaceAllStringFunc(route, func(m string) string {
			name := m[1 : len(m)-1]
			if name == "orgID" {
				return a["orgID"]
			}
			if name == "certType" {
				return "transport"
			}
			if v, ok := b[name]; ok {
				return url.PathEscape(v)
			}
			t.Fatalf("no id for %s", name)
			return ""
		})
		check := func(code int, body, what string) {
			if code < 300 && method != "GET" || code < 300 && strings.Contains(path, b["appID"]) && code == 200 || leak.MatchString(body) {
				t.Errorf("%s %s %s: %d %.300s", method, path, what, code, body)
			}
		}
		if strings.HasPrefix(route, "/api/") {
			bodies := []string{""}
			if method == "POST" || method == "PUT" {
				bodies = jsonBodies
			}
			for _, body := range bodies {
				resp, m := olga.do(method, strings.TrimPrefix(path, "/api"), body)
				check(resp.StatusCode, mustMarshal(m), body)
			}
			continue
		}
		for _, hx := range []bool{false, true} {
			fs := []url.Values{nil}
			if method == "POST" {
				fs = forms
			}
			for _, f := range fs {
				var req *http.Request
				if f != nil {
					req, _ = http.NewRequest(method, env.URL+path, strings.NewReader(f.Encode()))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				} else {
					req, _ = http.NewRequest(method, env.URL+path, nil)
				}
				req.Header.Set("Accept", "text/html")
				if hx {
					req.Header.Set("HX-Request", "true")
				}
				resp, err := noFollow.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				check(resp.StatusCode, string(raw)+" "+resp.Header.Get("Location")+resp.Header.Get("HX-Redirect"), f.Encode())
			}
		}
	}
	if len(routes) < 60 {
		t.Fatalf("only %d routes", len(routes))
	}
	if after := snap(); after != before {
		t.Fatalf("B changed:\n%s\n%s", before, after)
	}
}

// crossOrgSetup is A and B with everything, Olga administering A (token and
// signed-in browser, redirects not followed).
type crossOrgSetup struct {
	p      pkiSetup
	su     *api
	a, b   crossOrgIDs
	olga   *api
	client *http.Client
	leak   *regexp.Regexp
}

func startCrossOrg(t *testing.T) crossOrgSetup {
	p := startPKI(t, true, nil)
	auth := setupDomains(t, p.a)
	a := crossOrg(t, p, p.a, auth, "Alpha", discoveryServer(t, func(self string) string { return self }))
	b := crossOrg(t, p, p.a, auth, "Betazed", discoveryServer(t, func(self string) string { return self }))
	mustInviteOrgAdmin(t, p.env, "olga@alpha.example", a["orgID"])
	mustInviteOrgAdmin(t, p.env, "bert@bz.example", b["orgID"])
	browser := webtest.Browser()
	if resp := webtest.SignIn(t, browser, p.env.URL, "olga@alpha.example"); resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	noFollow := *browser
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return crossOrgSetup{p: p, su: p.a, a: a, b: b, olga: newAPI(t, p.env, "olga@alpha.example"), client: &noFollow,
		leak: regexp.MustCompile(regexp.QuoteMeta(b["orgID"]) + "|Betazed|betazed|secret of|" + regexp.QuoteMeta(b["appID"]) + "|" + regexp.QuoteMeta(b["kmID"]) +
			"|" + regexp.QuoteMeta(b["serverID"]) + "|" + regexp.QuoteMeta(b["contactID"]) + "|bert@bz")}
}

// page gets path in Olga's browser (hdr: name, value pairs).
func (s crossOrgSetup) page(t *testing.T, path string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.p.env.URL+path, nil)
	req.Header.Set("Accept", "text/html")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location") + resp.Header.Get("HX-Redirect") + " " + string(raw)
}

func TestOrgAdminSearchFindsNothingOfB(t *testing.T) {
	s := startCrossOrg(t)
	b := s.b
	for _, q := range []string{"Betazed", "App of Betazed", "AS of", "Ops", "ops@betazed.example", "REG-Betazed", b["orgID"], b["appID"], b["serverID"],
		b["kmID"], b["kid"], b["kid"][:6], "k-Betazed", "k-Be", b["contactID"], "bert@bz.example", b["docID"], b["certID"]} {
		for _, find := range []string{"", "&find=1"} {
			for _, hx := range [][]string{nil, {"HX-Request", "true"}, {"HX-Request", "true", "HX-Boosted", "true"}} {
				code, body := s.page(t, "/organisations?q="+url.QueryEscape(q)+find, hx...)
				if m := s.leak.FindString(strings.ReplaceAll(body, url.QueryEscape(q), "")); m != "" && !strings.Contains(q, m) {
					t.Errorf("search %q%s %v: %d leaks %q: %.300s", q, find, hx, code, m, body)
				}
				if strings.Contains(body, "Betazed") && !strings.Contains(q, "Betazed") {
					t.Errorf("search %q: %s", q, body)
				}
			}
		}
		r, m := s.olga.do("GET", "/organisations?q="+url.QueryEscape(q), "")
		if s.leak.MatchString(strings.ReplaceAll(mustMarshal(m), q, "")) || r.StatusCode != 200 || m["totalSize"] != float64(0) {
			t.Errorf("API search %q: %d %v", q, r.StatusCode, m)
		}
	}
}

func TestOrgAdminPagesNameNoReferenceData(t *testing.T) {
	s := startCrossOrg(t)
	su, a := s.su, s.a
	su.must(201, "POST", "/references/flags", `{"Name":"WatchlistOrgFlag","Type":"Organisation"}`)
	su.must(201, "POST", "/references/flags", `{"Name":"WatchlistAppFlag","Type":"Software_Statement"}`)
	su.must(201, "POST", "/references/flags", `{"Name":"WatchlistASFlag","Type":"Authorisation_Server"}`)
	su.must(201, "POST", "/references/authorisation-domains", `{"Name":"HiddenDomain"}`)
	su.must(201, "POST", "/references/authorisation-domains/HiddenDomain/roles", `{"Name":"HIDDENROLE","Type":"Federation"}`)
	secret := regexp.MustCompile(`Watchlist\w+|HiddenDomain|HIDDENROLE`)
	o := "/organisations/" + a["orgID"]
	for _, p := range []string{"/organisations", "/organisations?q=zzz", o, o + "/softwarestatements", o + "/softwarestatements/new", o + "/softwarestatements/" + a["appID"],
		o + "/softwarestatements/" + a["appID"] + "/edit", o + "/authorisationservers/new", o + "/authorisationservers/" + a["serverID"] + "/edit",
		o + "/contacts/new", o + "/certificates/new", o + "/key-material/new", o + "/authority-claims", o + "/administrators", o + "/administrators/new",
		"/audit?OrganisationId=" + a["orgID"], "/audit?OrganisationId=" + a["orgID"] + "&From=nonsense", "/api-reference", "/nothing-here"} {
		code, body := s.page(t, p)
		if m := secret.FindAllString(body, -1); m != nil {
			t.Errorf("GET %s: %d names %v", p, code, m)
		}
	}
	for _, p := range []string{"/organisations?Flag=WatchlistOrgFlag", "/organisations?AuthorisationDomain=HiddenDomain", "/organisations?AuthorisationDomain=NoSuchDomain",
		"/organisations?Role=HIDDENROLE", "/organisations?Role=NOSUCHROLE"} {
		r, m := s.olga.do("GET", p, "")
		t.Logf("%s: %d %.200s", p, r.StatusCode, mustMarshal(m))
	}
}
