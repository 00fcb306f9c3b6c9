package web_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web/webtest"
)

// benchAppClient is an Active organisation with an application and a
// P-256 key bound to it, and the administrator's API client.
func benchAppClient(b *testing.B) (*webtest.Env, *appClient, *api) {
	env := webtest.Start(b, nil)
	su := &api{t: &testing.T{}, base: env.URL, token: webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken}
	oid := mustJSON(b, su, "POST", "/organisations", `{"OrganisationName":"Bench","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	aid := mustJSON(b, su, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Bench app"}`)["SoftwareStatementId"].(string)
	return env, newAppClientOf(b, env, su, oid, aid), su
}

// BenchmarkClientToken: a token request at /oauth/token through the real
// router (ES256 client assertion, no DPoP; assertions made before the
// timer), against what it cannot do without: one raw ES256 verification
// and one raw Ed25519 signature (docs/benchmarks.md).
func BenchmarkClientToken(b *testing.B) {
	env, c, _ := benchAppClient(b)
	var handler, raw time.Duration
	b.Run("handler", func(b *testing.B) {
		forms := make([]string, b.N)
		for i := range forms {
			forms[i] = c.form(nil).Encode()
		}
		lat := make([]time.Duration, b.N)
		runtime.GC()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req := httptest.NewRequest("POST", env.URL+"/oauth/token", strings.NewReader(forms[i]))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.RemoteAddr = "127.0.0.1:1234"
			rec := httptest.NewRecorder()
			start := time.Now()
			env.Server.ServeHTTP(rec, req)
			lat[i] = time.Since(start)
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Code, rec.Body.String())
			}
		}
		handler = median(lat)
		b.ReportMetric(float64(handler.Microseconds()), "p50-µs")
	})
	b.Run("raw", func(b *testing.B) {
		form, _ := url.ParseQuery(c.form(nil).Encode())
		jws := form.Get("client_assertion")
		input := jws[:strings.LastIndex(jws, ".")]
		sum := sha256.Sum256([]byte(input))
		sig, _ := ecdsa.SignASN1(rand.Reader, c.key, sum[:])
		_, edKey, _ := ed25519.GenerateKey(rand.Reader)
		token := []byte(strings.Repeat("x", 520)) // an access token's signing input
		lat := make([]time.Duration, b.N)
		runtime.GC()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			s := sha256.Sum256([]byte(input))
			if !ecdsa.VerifyASN1(&c.key.PublicKey, s[:], sig) {
				b.Fatal("no verify")
			}
			ed25519.Sign(edKey, token)
			lat[i] = time.Since(start)
		}
		raw = median(lat)
		b.ReportMetric(float64(raw.Microseconds()), "p50-µs")
	})
	if raw > 0 {
		b.Logf("token issuance p50 %s, raw verify + sign p50 %s: %.2f×", handler, raw, float64(handler)/float64(raw))
	}
}

// BenchmarkAppRead: GET /api/organisations/{id} with an application's
// token against the same read with an administrator's (Bearer both),
// interleaved request by request so that both see the same machine.
func BenchmarkAppRead(b *testing.B) {
	env, c, su := benchAppClient(b)
	path := env.URL + "/api/organisations/" + c.orgID
	tokens := [2]string{su.token, c.token()}
	var lat [2][]time.Duration
	for k := range lat {
		lat[k] = make([]time.Duration, b.N)
	}
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range tokens {
			k := (i + j) % 2 // each goes first half of the time
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Authorization", "Bearer "+tokens[k])
			rec := httptest.NewRecorder()
			start := time.Now()
			env.Server.ServeHTTP(rec, req)
			lat[k][i] = time.Since(start)
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Code, rec.Body.String())
			}
		}
	}
	admin, app := median(lat[0]), median(lat[1])
	b.ReportMetric(float64(admin.Nanoseconds())/1000, "admin-p50-µs")
	b.ReportMetric(float64(app.Nanoseconds())/1000, "app-p50-µs")
	b.ReportMetric(float64(app)/float64(admin), "app/admin")
}
