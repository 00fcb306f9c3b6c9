package web_test

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filippo.io/mldsa"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

func fetchKeyset(t *testing.T, base string) (string, []ssa.JWK) {
	t.Helper()
	resp, err := http.Get(base + "/keystore/ssa.jwks")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/jwk-set+json" || !strings.Contains(resp.Header.Get("Cache-Control"), "max-age") {
		t.Fatalf("keyset: %d %v", resp.StatusCode, resp.Header)
	}
	var set struct{ Keys []ssa.JWK }
	json.Unmarshal(b, &set)
	return string(b), set.Keys
}

func TestSSASigningAlgs(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, a)
	path := "/organisations/" + oid + "/softwarestatements/" + aid + "/assertion"
	raw, keys := fetchKeyset(t, env.URL)
	for _, m := range []string{`"priv"`, `"d"`, `"p"`, `"q"`, `"dp"`, `"dq"`, `"qi"`} {
		if strings.Contains(raw, m) {
			t.Fatalf("the keyset holds %s", m)
		}
	}
	byKid := map[string]ssa.JWK{}
	for _, k := range keys {
		byKid[k.Kid] = k
	}
	if len(keys) != 4 {
		t.Fatalf("%d keys published", len(keys))
	}
	jtis := map[string]bool{}
	for _, tc := range []struct{ query, alg string }{{"", "PS256"}, {"?signingAlg=PS256", "PS256"}, {"?signingAlg=ML-DSA-44", "ML-DSA-44"}, {"?signingAlg=ML-DSA-65", "ML-DSA-65"}, {"?signingAlg=ML-DSA-87", "ML-DSA-87"}} {
		t.Run("alg "+tc.alg+" "+tc.query, func(t *testing.T) {
			resp, tok := getRaw(t, a, path+tc.query)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/jwt" {
				t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), tok)
			}
			h, c := jwtParts(t, tok)
			if h["alg"] != tc.alg || h["typ"] != "JWT" || h["kid"] == nil {
				t.Fatalf("header %v", h)
			}
			key, ok := byKid[h["kid"].(string)]
			if !ok || key.Alg != tc.alg {
				t.Fatalf("kid %v not in the keyset for %s", h["kid"], tc.alg)
			}
			if _, err := ssa.Verify(tok, key); err != nil {
				t.Fatal(err)
			}
			iat := c["iat"].(float64)
			if iat < float64(time.Now().Add(-time.Minute).Unix()) || iat > float64(time.Now().Add(time.Minute).Unix()) {
				t.Fatalf("iat %v is not now in seconds", iat)
			}
			want := map[string]any{"iss": env.URL, "software_id": aid, "software_client_name": "Payments", "software_status": "Active",
				"org_id": oid, "org_name": "Acme", "org_status": "Active", "backchannel_client_notification_endpoint": "https://tpp.example/ciba",
				"backchannel_token_delivery_mode": "ping",
				// The directory's CA is on in tests: the application's own keystores.
				"software_jwks_uri":                    env.URL + "/keystore/" + oid + "/" + aid + "/application.jwks",
				"software_jwks_transport_uri":          env.URL + "/keystore/" + oid + "/" + aid + "/transport.jwks",
				"software_jwks_inactive_uri":           env.URL + "/keystore/" + oid + "/" + aid + "/inactive/application.jwks",
				"software_jwks_transport_inactive_uri": env.URL + "/keystore/" + oid + "/" + aid + "/inactive/transport.jwks"}
			for k, v := range want {
				if c[k] != v {
					t.Errorf("claim %s = %v, want %v", k, c[k], v)
				}
			}
			if c["software_redirect_uris"].([]any)[0] != "https://tpp.example/cb" || c["software_roles"].([]any)[0] != "PISP" || c["software_origin_uris"].([]any)[0] != "https://tpp.example" {
				t.Errorf("lists %v %v %v", c["software_redirect_uris"], c["software_roles"], c["software_origin_uris"])
			}
			jti := c["jti"].(string)
			if jti == "" || jtis[jti] {
				t.Fatalf("jti %q not unique", jti)
			}
			jtis[jti] = true
			// Cross-implementation checks.
			if tc.alg == "PS256" {
				verifyWithGoJose(t, env.URL, tok)
			} else {
				verifyWithFilippo(t, tok, key)
			}
			recs, _, _ := env.DB.ListAudit(context.Background(), store.AuditFilter{Action: "ssa_issued", SubjectID: aid, KeyID: key.Kid})
			found := false
			for _, r := range recs {
				found = found || strings.Contains(r.Summary, jti) && strings.Contains(r.Summary, tc.alg)
			}
			if !found {
				t.Fatal("the SSA is not in the audit log")
			}
		})
	}
	for _, bad := range []string{"?signingAlg=ps256", "?signingAlg=ml-dsa-65", "?signingAlg=ES256", "?signingAlg=", "?signingAlg=none", "?signingAlg=PS256&signingAlg=ML-DSA-44"} {
		resp, body := getRaw(t, a, path+bad)
		var prob struct {
			Errors  []struct{ Code, Field string } `json:"errors"`
			Enabled []string                       `json:"enabledAlgorithms"`
		}
		json.Unmarshal([]byte(body), &prob)
		if resp.StatusCode != 400 || len(prob.Errors) == 0 || prob.Errors[0].Field != "signingAlg" ||
			strings.Join(prob.Enabled, ",") != "PS256,ML-DSA-44,ML-DSA-65,ML-DSA-87" {
			t.Errorf("%s: %d %s", bad, resp.StatusCode, body)
		}
		if bad != "?signingAlg=PS256&signingAlg=ML-DSA-44" && prob.Errors[0].Code != "unsupported_signing_alg" {
			t.Errorf("%s: code %s", bad, prob.Errors[0].Code)
		}
		// An empty value is called empty ("signingAlg  is not enabled" before).
		if bad == "?signingAlg=" && (!strings.Contains(body, "signingAlg is empty") || strings.Contains(body, "  ")) {
			t.Errorf("%s: %s", bad, body)
		}
	}
}

func verifyWithGoJose(t *testing.T, base, tok string) {
	t.Helper()
	resp, err := http.Get(base + "/keystore/ssa.jwks")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// go-jose does not know AKP keys: keep the RSA ones for it.
	var raw struct{ Keys []json.RawMessage }
	json.NewDecoder(resp.Body).Decode(&raw)
	var set jose.JSONWebKeySet
	for _, k := range raw.Keys {
		if strings.Contains(string(k), `"kty":"RSA"`) {
			var j jose.JSONWebKey
			if err := j.UnmarshalJSON(k); err != nil {
				t.Fatal(err)
			}
			set.Keys = append(set.Keys, j)
		}
	}
	jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.PS256})
	if err != nil {
		t.Fatal(err)
	}
	keys := set.Key(jws.Signatures[0].Header.KeyID)
	if len(keys) != 1 {
		t.Fatalf("go-jose finds %d keys for kid %s", len(keys), jws.Signatures[0].Header.KeyID)
	}
	if _, err := jws.Verify(keys[0]); err != nil {
		t.Fatalf("go-jose: %v", err)
	}
}

func verifyWithFilippo(t *testing.T, tok string, key ssa.JWK) {
	t.Helper()
	params := map[string]mldsa.Parameters{"ML-DSA-44": mldsa.MLDSA44(), "ML-DSA-65": mldsa.MLDSA65(), "ML-DSA-87": mldsa.MLDSA87()}[key.Alg]
	pb, _ := base64.RawURLEncoding.DecodeString(key.Pub)
	pub, err := mldsa.NewPublicKey(params, pb)
	if err != nil {
		t.Fatal(err)
	}
	p := strings.Split(tok, ".")
	sig, _ := base64.RawURLEncoding.DecodeString(p[2])
	if err := mldsa.Verify(pub, []byte(p[0]+"."+p[1]), sig, &mldsa.Options{}); err != nil {
		t.Fatalf("filippo.io/mldsa: %v", err)
	}
}

func TestSSADisabledAlgAndInactiveApplication(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.SSASigningAlgs = []string{"PS256", "ML-DSA-65"} })
	a := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, a)
	path := "/organisations/" + oid + "/softwarestatements/" + aid + "/assertion"
	resp, body := getRaw(t, a, path+"?signingAlg=ML-DSA-44")
	if resp.StatusCode != 400 || !strings.Contains(body, `"enabledAlgorithms":["PS256","ML-DSA-65"]`) || !strings.Contains(body, "unsupported_signing_alg") {
		t.Fatalf("disabled alg: %d %s", resp.StatusCode, body)
	}
	if _, keys := fetchKeyset(t, env.URL); len(keys) != 2 {
		t.Fatalf("keys of disabled algorithms published: %d", len(keys))
	}
	a.must(200, "PUT", "/organisations/"+oid+"/softwarestatements/"+aid, `{"ClientName":"Payments","Status":"Suspended"}`)
	resp, body = getRaw(t, a, path)
	if resp.StatusCode != 409 || !strings.Contains(body, "Suspended") {
		t.Fatalf("suspended application: %d %s", resp.StatusCode, body)
	}
	a.must(404, "GET", "/organisations/"+oid+"/softwarestatements/00000000-0000-4000-8000-000000000000/assertion", "")
	// A Data Administrator may issue SSAs but not rotate keys.
	dana := newAPIWithInvite(t, env, a, "dana@example.com")
	a.must(200, "PUT", "/organisations/"+oid+"/softwarestatements/"+aid, `{"ClientName":"Payments","Status":"Active"}`)
	if r, _ := getRaw(t, dana, path); r.StatusCode != 200 {
		t.Fatalf("data administrator SSA: %d", r.StatusCode)
	}
	dana.must(403, "POST", "/references/signing-keys", `{"alg":"PS256"}`)
}

// TestSSAOnlyForAnActiveOrganisation: the directory signs an SSA only for an
// Active application of an Active organisation: one Pending approval or
// Withdrawn is not vouched for, whatever its application's status
// (docs/design.md §6).
func TestSSAOnlyForAnActiveOrganisation(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, a)
	path := "/organisations/" + oid + "/softwarestatements/" + aid + "/assertion"
	browser := webtest.Browser()
	webtest.SignIn(t, browser, env.URL, "admin@example.com").Body.Close()
	if pr, _ := browser.Get(env.URL + "/organisations/" + oid + "/softwarestatements/" + aid); docOf(t, pr).Find("[data-testid=ssa-refused]").Length() != 0 {
		t.Fatal("the application page of an Active organisation says no SSA can be generated")
	}
	for _, st := range []string{"Pending", "Withdrawn"} {
		a.must(200, "PUT", "/organisations/"+oid, strings.TrimSuffix(org("Acme"), "}")+`,"Status":"`+st+`"}`)
		resp, body := getRaw(t, a, path)
		if resp.StatusCode != 409 || !strings.Contains(body, `"organisation_not_active"`) || !strings.Contains(body, st) {
			t.Fatalf("organisation %s: %d %s", st, resp.StatusCode, body)
		}
		// The application page says so beside a disabled button.
		pr, err := browser.Get(env.URL + "/organisations/" + oid + "/softwarestatements/" + aid)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, pr)
		btn := doc.Find("[data-testid=generate-ssa]")
		note := doc.Find("[data-testid=ssa-refused]").Text()
		if _, disabled := btn.Attr("disabled"); !disabled || !strings.Contains(note, "organisation is "+st) {
			t.Fatalf("application page of a %s organisation: button disabled %v, note %q", st, disabled, note)
		}
		if st == "Withdrawn" {
			break
		}
		a.must(200, "PUT", "/organisations/"+oid, strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Active"}`)
		if resp, body := getRaw(t, a, path); resp.StatusCode != 200 {
			t.Fatalf("organisation Active again after %s: %d %s", st, resp.StatusCode, body)
		}
	}
	recs, _, err := env.DB.ListAudit(context.Background(), store.AuditFilter{Action: "ssa_issued", Size: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d SSAs recorded, want the one issued while the organisation was Active", len(recs))
	}
}

func TestSigningKeyRotationAndRetirement(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, a)
	path := "/organisations/" + oid + "/softwarestatements/" + aid + "/assertion?signingAlg=ML-DSA-44"
	_, old := getRaw(t, a, path)
	oh, _ := jwtParts(t, old)
	nk := a.must(201, "POST", "/references/signing-keys", `{"alg":"ML-DSA-44"}`)
	if nk["kty"] != "AKP" || nk["kid"] == oh["kid"] || nk["priv"] != nil {
		t.Fatalf("rotate: %v", nk)
	}
	_, fresh := getRaw(t, a, path)
	fh, _ := jwtParts(t, fresh)
	if fh["kid"] != nk["kid"] {
		t.Fatalf("the new key does not sign: %v", fh["kid"])
	}
	_, keys := fetchKeyset(t, env.URL)
	kids := map[string]bool{}
	for _, k := range keys {
		kids[k.Kid] = true
	}
	if !kids[oh["kid"].(string)] || !kids[nk["kid"].(string)] {
		t.Fatal("the older key must stay published until retired")
	}
	if r, _ := a.do("POST", "/references/signing-keys/"+oh["kid"].(string)+"/retire", ""); r.StatusCode != 204 {
		t.Fatalf("retire: %d", r.StatusCode)
	}
	_, keys = fetchKeyset(t, env.URL)
	for _, k := range keys {
		if k.Kid == oh["kid"] {
			t.Fatal("a retired key is published")
		}
	}
	a.must(409, "POST", "/references/signing-keys/"+oh["kid"].(string)+"/retire", "")
	a.must(409, "POST", "/references/signing-keys/"+nk["kid"].(string)+"/retire", "")
	a.must(404, "POST", "/references/signing-keys/nope/retire", "")
	a.must(422, "POST", "/references/signing-keys", `{"alg":"ES256"}`)
}

// TestKeyRetiredBesideTheServerNeverSigns: a key retired by another process
// (the keys command beside the server) while the server still holds it as
// the current key — kept for up to a second — signs no SSA: the SSA's record
// commits only while its key is Active, and the server signs again with the
// key that is current now (docs/design.md §6).
func TestKeyRetiredBesideTheServerNeverSigns(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid, aid := setupApp(t, a)
	path := "/organisations/" + oid + "/softwarestatements/" + aid + "/assertion?signingAlg=PS256"
	_, first := getRaw(t, a, path)
	oh, _ := jwtParts(t, first)
	nk := a.must(201, "POST", "/references/signing-keys", `{"alg":"PS256"}`)["kid"].(string)
	_, second := getRaw(t, a, path)
	if h, _ := jwtParts(t, second); h["kid"] != nk {
		t.Fatalf("the rotated key does not sign: %v", h["kid"])
	}
	// Another process retires the key the server has just signed with.
	other, err := store.Open(context.Background(), webtest.Database(t, env.DataDir), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.RetireSigningKey(context.Background(), store.Audit{Actor: "cli@example.com"}, nk, func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	resp, third := getRaw(t, a, path)
	h, _ := jwtParts(t, third)
	if resp.StatusCode != 200 || h["kid"] != oh["kid"] {
		t.Fatalf("after the retirement beside the server: %d, kid %v, want the older key %v", resp.StatusCode, h["kid"], oh["kid"])
	}
	recs, _, err := env.DB.ListAudit(context.Background(), store.AuditFilter{Action: "ssa_issued", KeyID: nk, Size: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records of SSAs signed by the retired key, want the 1 signed before it was retired", len(recs))
	}
}

// TestWrongKEKIsRefused: a database started with one KEK refuses another,
// and nothing is lost or overwritten.
func TestWrongKEKIsRefused(t *testing.T) {
	dir := t.TempDir()
	kekA := filepath.Join(dir, "a.key")
	env := webtest.StartIn(t, dir, func(c *web.Config) { c.KEKFile = kekA })
	st, err := os.Stat(kekA)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("KEK file: %v %v", st, err)
	}
	before, _ := env.DB.ListSigningKeys(context.Background())
	env.HTTP.Close()

	db, err := store.Open(context.Background(), webtest.Database(t, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = web.NewServer(context.Background(), web.Config{BaseURL: "http://127.0.0.1:1", DataDir: dir, KEKFile: filepath.Join(dir, "b.key")}, db)
	if err == nil || !strings.Contains(err.Error(), "key-encryption key") || !strings.Contains(err.Error(), "b.key") {
		t.Fatalf("another KEK: %v", err)
	}
	after, _ := db.ListSigningKeys(context.Background())
	if len(after) != len(before) {
		t.Fatalf("keys changed: %d -> %d", len(before), len(after))
	}
	for i := range after {
		if string(after[i].PrivateEnc) != string(before[i].PrivateEnc) {
			t.Fatal("a key was overwritten")
		}
	}
	// The right KEK still opens them, and the keys are no plaintext.
	kek, _ := keyring.LoadOrCreateKEK(kekA)
	for _, k := range after {
		plain, err := kek.Open(k.PrivateEnc, []byte(k.Kid))
		if err != nil {
			t.Fatalf("key %s no longer opens: %v", k.Kid, err)
		}
		if strings.Contains(string(k.PrivateEnc), string(plain)) {
			t.Fatal("private key stored in the clear")
		}
	}
	if _, err := web.NewServer(context.Background(), web.Config{BaseURL: "http://127.0.0.1:1", DataDir: dir, KEKFile: kekA}, db); err != nil {
		t.Fatalf("the right KEK: %v", err)
	}
}

func TestSigningKeysPage(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/references/signing-keys")
	if doc.Find("[data-testid=key-row]").Length() != 4 || doc.Find("[data-testid=signing]").Length() != 4 {
		t.Fatalf("rows %d", doc.Find("[data-testid=key-row]").Length())
	}
	resp, err := c.PostForm(env.URL+"/references/signing-keys", map[string][]string{"alg": {"PS256"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if doc.Find("[data-testid=key-row]").Length() != 5 || doc.Find("[data-testid=signing]").Length() != 4 || !strings.Contains(doc.Find("[data-testid=flash]").Text(), "signs from now on") {
		t.Fatalf("after rotate: %d rows, flash %q", doc.Find("[data-testid=key-row]").Length(), doc.Find("[data-testid=flash]").Text())
	}
	resp, err = http.Get(env.URL + "/api/keystore/ssa.jwks")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("keyset under /api: %d", resp.StatusCode)
	}
}

// An SSA is handed out only once its audit record is durable: while another
// writer holds the database, the assertion is refused (503, no token) and
// nothing names it in the log; once the writer lets go, it is issued.
func TestSSAWithheldWhileItsAuditCannotCommit(t *testing.T) {
	if storetest.Postgres() {
		t.Skip("holds SQLite's write lock from a second connection; PostgreSQL's write lock is covered by store's group-commit tests")
	}
	dir := t.TempDir()
	env := webtest.StartWith(t, dir, webtest.Database(t, dir), nil, store.WithBusyTimeout(200*time.Millisecond))
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments","RedirectUri":["https://tpp.example/cb"]}`)["SoftwareStatementId"].(string)
	path := "/organisations/" + oid + "/softwarestatements/" + aid + "/assertion?signingAlg=ML-DSA-65"
	issued := func() int {
		recs, _, err := env.DB.ListAudit(context.Background(), store.AuditFilter{Action: "ssa_issued", SubjectID: aid})
		if err != nil {
			t.Fatal(err)
		}
		return len(recs)
	}

	other, err := sql.Open("sqlite", webtest.Database(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	resp, body := getRaw(t, a, path)
	if resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(body, "eyJ") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("assertion while the log cannot be written: %d %s (Retry-After %q), want 503 without a token", resp.StatusCode, body[:min(len(body), 200)], resp.Header.Get("Retry-After"))
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if n := issued(); n != 0 {
		t.Fatalf("%d ssa_issued records after a refused assertion, want 0", n)
	}
	if resp, body := getRaw(t, a, path); resp.StatusCode != 200 || !strings.HasPrefix(body, "eyJ") {
		t.Fatalf("assertion once the writer let go: %d %s", resp.StatusCode, body[:min(len(body), 200)])
	}
	if n := issued(); n != 1 {
		t.Fatalf("%d ssa_issued records, want 1", n)
	}
}

// TestSSARefusalLeadsToTheOrganisation: an application of a Pending
// organisation says no SSA can be generated now, with nothing to click:
// the organisation is set Active on its Details tab, which the message
// now links to.
func TestSSARefusalLeadsToTheOrganisation(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+oid+"/softwarestatements/"+app)
	refused := doc.Find("[data-testid=ssa-refused]")
	if !strings.Contains(refused.Text(), "Pending") || !strings.Contains(refused.Text(), "No SSA can be generated now. The organisation") {
		t.Fatalf("the refusal says %q", refused.Text())
	}
	if href, _ := refused.Find("a").Attr("href"); href != "/organisations/"+oid {
		t.Errorf("the refusal links to %q, want the organisation's Details", href)
	}
}

// TestSSAIsShownReadable: after Generate SSA the page shows what the SSA
// says, its header (alg, kid) and its claims as indented JSON, beside the
// token to copy: before, a reader had only the base64url token (several
// kilobytes for ML-DSA-65) and had to decode it elsewhere.
func TestSSAIsShownReadable(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Active"}`)["OrganisationId"].(string)
	aid := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, alg := range []string{"ML-DSA-65", "PS256"} {
		resp, err := c.Get(env.URL + "/organisations/" + oid + "/softwarestatements/" + aid + "/assertion?signingAlg=" + alg)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", alg, resp.StatusCode)
		}
		header := doc.Find("[data-testid=ssa-header]").Text()
		claims := doc.Find("[data-testid=ssa-claims]").Text()
		if !strings.Contains(header, `"alg": "`+alg+`"`) || !strings.Contains(header, `"kid": "`) {
			t.Errorf("%s: header shown as %q", alg, header)
		}
		if !strings.Contains(claims, `"software_client_name": "Payments app"`) || !strings.Contains(claims, `"org_name": "Acme"`) {
			t.Errorf("%s: claims shown as %q", alg, claims)
		}
	}
}
