package web_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web/webtest"
)

// fedBenchDir is a directory seeded with n organisations whose application
// is a federation subordinate: a FederationEntityId, sig key material, and
// policies on the seeded roles (docs/design.md §13). Kept between runs.
func fedBenchDir(b *testing.B, n int) string {
	dir := filepath.Join(os.TempDir(), "trustframe-fedbench-"+strconv.Itoa(n))
	marker := filepath.Join(dir, "seeded")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "trustframe.db")
	db, err := store.Open(context.Background(), path, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := db.SeedDirectory(context.Background(), store.Audit{Actor: "bench"}, n, 1); err != nil {
		b.Fatal(err)
	}
	db.Close()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwk, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey, KeyID: "bench", Use: "sig"})
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for _, q := range []string{
		`UPDATE software_statements SET federation_entity_id = 'https://rp-' || software_statement_id || '.example.org'`,
		`INSERT INTO key_material(key_material_id, organisation_id, kid, use, public_jwk, status, revoke_reason, description, created_on, updated_on, revoked_on)
			SELECT 'km-' || organisation_id, organisation_id, 'kid-' || organisation_id, 'sig', '` + string(jwk) + `', 'Active', '', '', '` + now + `', '` + now + `', NULL FROM organisations`,
		`INSERT INTO role_metadata_policies(policy_id, authorisation_domain, role, entity_type, policy, description, status, created_on, updated_on) VALUES
			('p1', 'Open Finance', 'AISP', 'openid_relying_party', '{"grant_types":{"subset_of":["authorization_code","refresh_token"]},"token_endpoint_auth_method":{"one_of":["private_key_jwt","tls_client_auth"]}}', '', 'Active', '` + now + `', '` + now + `'),
			('p2', 'Open Finance', 'PISP', 'openid_relying_party', '{"grant_types":{"subset_of":["authorization_code"]},"contacts":{"add":["ops@pisp.example"]}}', '', 'Active', '` + now + `', '` + now + `')`,
	} {
		if _, err := raw.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	os.WriteFile(marker, nil, 0o600)
	return dir
}

// BenchmarkFederation measures /federation/fetch (one statement signed per
// request, against the raw ES256 signature of the same claims) and
// /federation/list at 100,000 organisations through the real router; it
// reports p50 and p99 in microseconds.
func BenchmarkFederation(b *testing.B) {
	n := benchOrgs()
	env := webtest.StartIn(b, fedBenchDir(b, n), nil)
	raw, err := sql.Open("sqlite", filepath.Join(fedBenchDir(b, n), "trustframe.db"))
	if err != nil {
		b.Fatal(err)
	}
	rows, err := raw.Query(`SELECT s.federation_entity_id FROM software_statements s JOIN organisations o USING (organisation_id) WHERE o.status = 'Active' LIMIT 5000`)
	if err != nil {
		b.Fatal(err)
	}
	var subs []string
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		subs = append(subs, s)
	}
	rows.Close()
	raw.Close()
	one := func(path string) (time.Duration, *httptest.ResponseRecorder) {
		req := httptest.NewRequest("GET", env.URL+path, nil)
		rec := httptest.NewRecorder()
		start := time.Now()
		env.Server.ServeHTTP(rec, req)
		d := time.Since(start)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		return d, rec
	}
	report := func(b *testing.B, lat []time.Duration) {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
	var claims map[string]any
	b.Run("fetch", func(b *testing.B) {
		_, rec := one("/federation/fetch?sub=" + url.QueryEscape(subs[0]))
		jws, _ := jose.ParseSignedCompact(rec.Body.String(), []jose.SignatureAlgorithm{jose.ES256})
		_ = json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claims)
		lat := make([]time.Duration, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			lat[i], _ = one("/federation/fetch?sub=" + url.QueryEscape(subs[i%len(subs)]))
		}
		b.StopTimer()
		report(b, lat)
	})
	b.Run("raw_es256_sign", func(b *testing.B) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k, KeyID: "x"}}, (&jose.SignerOptions{}).WithType("entity-statement+jwt"))
		payload, _ := json.Marshal(claims)
		lat := make([]time.Duration, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			jws, err := signer.Sign(payload)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = jws.CompactSerialize()
			lat[i] = time.Since(start)
		}
		b.StopTimer()
		report(b, lat)
	})
	// The first list after a change of the store pays the build.
	b.Run("list_after_change", func(b *testing.B) {
		lat := make([]time.Duration, b.N)
		for i := 0; i < b.N; i++ {
			if err := env.DB.SetKEKCheck(context.Background(), []byte("x")); err != nil { // a write that changes nothing
				b.Fatal(err)
			}
			lat[i], _ = one("/federation/list")
		}
		report(b, lat)
	})
	for _, path := range []string{"/federation/list", "/federation/list?entity_type=openid_relying_party", "/federation/list?entity_type=openid_provider"} {
		b.Run(fmt.Sprintf("list%s", path[len("/federation/list"):]), func(b *testing.B) {
			_, rec := one(path)
			var ids []string
			_ = json.Unmarshal(rec.Body.Bytes(), &ids)
			b.ReportMetric(float64(len(ids)), "entities")
			lat := make([]time.Duration, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				lat[i], _ = one(path)
			}
			b.StopTimer()
			report(b, lat)
		})
	}
}
