package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestCopyDatabaseSameAnswers (issue 12): a 10,000-organisation SQLite
// directory, with every kind of child on a sample of organisations so
// that every table has rows, copied by `trustframe copy-database` into an
// empty PostgreSQL database, gives the same API answers on PostgreSQL as
// on SQLite: list pages (first, deep, last, past the end), totals, every
// sort, searches (accented words too), point reads of organisations and
// all their children, the public participants answer and keystores, the
// audit log, the change feed, and the reference data.
func TestCopyDatabaseSameAnswers(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("needs a PostgreSQL server (TRUSTFRAME_TEST_POSTGRES, set by .ci/test)")
	}
	if testing.Short() {
		t.Skip("seeds 10,000 organisations (-short)")
	}
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "trustframe.db")
	yes := true
	received := make(chan struct{}, 100)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
		select {
		case received <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(hook.Close)
	conf := func(c *web.Config) {
		c.AllowPrivateIssuerURLs = &yes
		c.AllowPrivateWebhookURLs = true
		c.ExpiryNoticeDays = 30
	}
	a := webtest.StartOn(t, dir, src, conf)

	start := time.Now()
	if err := a.DB.SeedDirectory(ctx, store.Audit{Actor: "seed"}, 10_000, 12); err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded 10,000 organisations in %s", time.Since(start).Round(time.Millisecond))
	// The token is made before the copy: signing in writes (sessions, the
	// audit log), and afterwards both databases must hold the same rows.
	api := newAPIClient(t, a)
	fillEveryTable(t, a, api, hook.URL, received)

	// Every table the copy moves has rows, so that every table is copied
	// and compared. dpop_proofs is an exception: it holds the jti of
	// DPoP proofs for their few minutes of validity, and no answer reads it;
	// client_assertions likewise, for applications' client assertions;
	// dev_idp_codes and dev_idp_key too: on SQLite the development identity
	// provider keeps its codes in memory and its key in the data directory
	// (docs/design.md §14).
	empty := emptyTables(t, src)
	if !slices.Equal(empty, []string{"client_assertions", "dev_idp_codes", "dev_idp_key", "dpop_proofs"}) {
		t.Fatalf("tables without rows before the copy: %v", empty)
	}

	pg := storetest.Path(t)
	var out bytes.Buffer
	start = time.Now()
	if err := run(ctx, []string{"copy-database", "--from", src, "--to", pg}, func(string) string { return "" }, nil, &out, io.Discard); err != nil {
		t.Fatalf("copy-database: %v\n%s", err, out.String())
	}
	took := time.Since(start)
	if !strings.Contains(out.String(), "organisations: 10006/10006 rows") || !strings.Contains(out.String(), "copied and verified") {
		t.Fatalf("copy-database said: %s", out.String())
	}
	t.Logf("copy-database of the 10,000-organisation directory took %s: %s", took.Round(time.Millisecond), lastLine(out.String()))

	// The same data directory (the KEK) and base URL (the issuer, links),
	// as after moving a deployment.
	b := webtest.StartOn(t, dir, pg, func(c *web.Config) { conf(c); c.BaseURL = a.URL })
	cmp := &answers{t: t, a: a.URL, b: b.URL, token: api.tok}
	cmp.compareAll()
	t.Logf("%d requests, the same answers from SQLite and PostgreSQL", cmp.n)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-2]
}

// fillEveryTable adds, through the API, what the seed does not make:
// organisations with accented names, each with every kind of child
// (flags, certificates, key material and its attachments, documents,
// certifications), reference data, administrators, an identity provider,
// a role metadata policy, a webhook and its deliveries, an idempotent
// create, a browser session and the expiry notices.
func fillEveryTable(t *testing.T, env *webtest.Env, api *apiClient, hookURL string, received chan struct{}) {
	t.Helper()
	issuer := discoveryServer(t)
	wh := api.call("POST", "/references/webhooks", `{"Url":"`+hookURL+`/hook","SubjectTypes":["Organisation","Application"]}`, 201)
	orgFlag := api.call("POST", "/references/flags", `{"Name":"Sandbox","Type":"Organisation"}`, 201)["FlagId"].(string)
	asFlag := api.call("POST", "/references/flags", `{"Name":"Test AS","Type":"Authorisation_Server"}`, 201)["FlagId"].(string)
	appFlag := api.call("POST", "/references/flags", `{"Name":"Beta","Type":"Software_Statement"}`, 201)["FlagId"].(string)
	soon := time.Now().UTC().AddDate(0, 0, 10).Format("2006-01-02")
	var docID string
	for i, name := range []string{"Banco São Paulo", "Société Générale Crédit", "Zürich Kantonalbank", "Caixa Económica", "Ørsted Sparekasse"} {
		body := fmt.Sprintf(`{"OrganisationName":%q,"RegistrationNumber":"ACC-%d","CountryOfRegistration":"%s","Flags":["%s"]}`, name, i, []string{"BR", "FR", "DE", "PT", "DK"}[i], orgFlag)
		oid := api.call("POST", "/organisations", body, 201)["OrganisationId"].(string)
		base := "/organisations/" + oid
		api.call("POST", base+"/contacts", `{"ContactType":"Technical","FirstName":"José","LastName":"Müller","EmailAddress":"tech@acc`+fmt.Sprint(i)+`.example"}`, 201)
		api.call("POST", base+"/administrators", `{"Email":"it@acc`+fmt.Sprint(i)+`.example"}`, 201)
		srv := api.call("POST", base+"/authorisationservers", `{"CustomerFriendlyName":"AS `+name+`","Issuer":"`+discoveryServer(t)+`","Flags":["`+asFlag+`"]}`, 201)["AuthorisationServerId"].(string)
		app := api.call("POST", base+"/softwarestatements", `{"ClientName":"App `+name+`","RedirectUri":["https://app`+fmt.Sprint(i)+`.example/cb"],"Flags":["`+appFlag+`"]}`, 201)["SoftwareStatementId"].(string)
		api.call("POST", base+"/authority-claims", `{"AuthorityId":"5eed0000-0000-4000-8000-000000000003","AuthorisationDomain":"Open Finance","Role":"AISP","RegistrationId":"EBA-ACC-`+fmt.Sprint(i)+`"}`, 201)
		api.call("POST", base+"/softwarestatements/"+app+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01","CertificationExpirationDate":"2099-06-30"}`, 201)
		api.call("POST", base+"/authorisationservers/"+srv+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01"}`, 201)
		docID = api.call("POST", base+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"LIC-`+fmt.Sprint(i)+`","DocumentExpiryDate":"`+soon+`"}`, 201)["DocumentId"].(string)
		api.postPEM(base+"/certificates/qseal", webtest.ValidCert(t, "p256", fmt.Sprintf("seal%d.example", i)))
		k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
		pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
		km := api.call("POST", base+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig","Description":"signing"}`, 201)["KeyMaterialID"].(string)
		api.multipart(base+"/key-material/"+km+"/attachments", "policy.txt", []byte("key policy of "+name))
	}
	// An item of "Needs attention" acknowledged (the start page's button).
	if err := env.DB.Acknowledge(context.Background(), store.Audit{Actor: "admin@example.com"}, "Document", docID); err != nil {
		t.Fatal(err)
	}
	api.call("POST", "/users/super", `{"Email":"second@example.com","Status":"Active"}`, 201)
	api.call("POST", "/users/data-administrators", `{"Email":"dana@example.com"}`, 201)
	api.call("POST", "/references/identity-providers", `{"Name":"partner","EmailDomains":["partner.example"],"Issuer":"`+issuer+`"}`, 201)
	api.call("POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Open Finance","Role":"AISP","EntityType":"openid_relying_party","Policy":{"scope":{"essential":true}}}`, 201)
	// A trust mark type, and a mark as issued (docs/design.md §17): the
	// record is written directly, since issuing needs a live subordinate.
	tmt := api.call("POST", "/references/trust-mark-types", `{"Name":"Account information","Basis":"Role","AuthorisationDomain":"Open Finance","Role":"AISP"}`, 201)
	now := time.Now().UTC().Truncate(time.Second)
	if err := env.DB.RecordTrustMark(context.Background(), store.IssuedTrustMark{JTI: "copy-1", TypeID: tmt["Id"].(string), TrustMarkType: tmt["TrustMarkType"].(string),
		Subject: "https://rp.example", IssuedAt: now, ExpiresAt: now.Add(24 * time.Hour), JWT: "e30.e30.c2ln"}); err != nil {
		t.Fatal(err)
	}
	api.callWith("POST", "/organisations", `{"OrganisationName":"Idempotent Bank","RegistrationNumber":"IDEM-1","CountryOfRegistration":"GB"}`, 201, "Idempotency-Key", "copy-1")
	// A browser session, and a refresh token of the development identity
	// provider (the CLI's sign-in asks for one).
	webtest.SignIn(t, webtest.Browser(), env.URL, "admin@example.com").Body.Close()
	webtest.Token(t, env.URL, "dana@example.com", nil)
	if n, err := env.Server.SendExpiryNotices(context.Background()); err != nil || n == 0 {
		t.Fatalf("expiry notices: %d %v", n, err)
	}
	// Deliver the webhook's messages, then stop: nothing writes during the copy.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { env.Server.DeliverWebhooks(ctx); close(done) }()
	select {
	case <-received:
	case <-time.After(30 * time.Second):
		t.Error("no webhook delivery within 30 s")
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		l := api.call("GET", "/references/webhooks/"+wh["WebhookId"].(string)+"/deliveries", "", 200)
		if c, _ := l["content"].([]any); len(c) > 0 {
			break
		}
	}
	cancel()
	<-done
}

// emptyTables lists the tables of the SQLite file that copy-database
// copies and that have no rows.
func emptyTables(t *testing.T, file string) []string {
	t.Helper()
	raw, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// The tables copy-database copies: not SQLite's own, not the
	// migrations' bookkeeping, not the search index (FTS5, rebuilt on
	// PostgreSQL by its own index).
	rows, err := raw.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
		AND name NOT LIKE '%\_fts%' ESCAPE '\' AND name <> 'schema_migrations' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	var empty []string
	for _, n := range names {
		var c int
		if err := raw.QueryRow(`SELECT COUNT(*) FROM ` + n).Scan(&c); err != nil {
			t.Fatal(err)
		}
		if c == 0 {
			empty = append(empty, n)
		}
	}
	return empty
}

func (c *apiClient) callWith(method, path, body string, want int, header, value string) map[string]any {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.url+"/api"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.tok)
	req.Header.Set(header, value)
	return c.send(req, want)
}

func (c *apiClient) postPEM(path, pemText string) map[string]any {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.url+"/api"+path, strings.NewReader(pemText))
	req.Header.Set("Content-Type", "application/x-pem-file")
	req.Header.Set("Authorization", "Bearer "+c.tok)
	return c.send(req, 201)
}

func (c *apiClient) multipart(path, fileName string, content []byte) map[string]any {
	c.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", fileName)
	fw.Write(content)
	mw.Close()
	req, _ := http.NewRequest("POST", c.url+"/api"+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.tok)
	return c.send(req, 201)
}

func (c *apiClient) send(req *http.Request, want int) map[string]any {
	c.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		c.t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, b)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// compared are the headers that must be equal. Not among them: Date (the
// two answers are made at different instants), the headers that are the
// same by construction (Cache-Control, Vary, security headers), and
// Last-Modified, which only the public participants answer sends: it is
// when this process first built that body (participants/cache.go), not
// a time in the data, so two servers started at different instants differ;
// its ETag, the hash of the body, is compared.
var compared = []string{"Content-Type", "ETag", "Location", "Link", "Retry-After"}

// normalise removes from an answer what is computed from the clock at
// the instant of the request rather than read from the database:
// /api/expiring's Before (now plus the notice window).
func normalise(path string, body []byte) []byte {
	if !strings.HasPrefix(path, "/api/expiring") {
		return body
	}
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	delete(m, "Before")
	b, _ := json.Marshal(m)
	return b
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}
