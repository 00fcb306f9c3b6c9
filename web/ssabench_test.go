package web_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/web/webtest"
)

// BenchmarkSSA measures SSA issuance per algorithm through the HTTP handler
// (token check, lookups, claims, signature, audit record) and the raw
// signature of the same key size on the same machine; it reports the
// median of each and the median overhead per SSA.
func BenchmarkSSA(b *testing.B) {
	env := webtest.Start(b, nil)
	tok := webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken
	a := &api{t: &testing.T{}, base: env.URL, token: tok}
	oid := mustJSON(b, a, "POST", "/organisations", `{"OrganisationName":"Bench","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	aid := mustJSON(b, a, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Bench app","RedirectUri":["https://app.example/cb"]}`)["SoftwareStatementId"].(string)
	for _, alg := range ssa.AllAlgs {
		var handlerMedian, rawMedian time.Duration
		b.Run(alg+"/handler", func(b *testing.B) {
			path := env.URL + "/api/organisations/" + oid + "/softwarestatements/" + aid + "/assertion?signingAlg=" + alg
			lat := make([]time.Duration, b.N)
			runtime.GC()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest("GET", path, nil)
				req.Header.Set("Authorization", "Bearer "+tok)
				rec := httptest.NewRecorder()
				start := time.Now()
				env.Server.ServeHTTP(rec, req)
				lat[i] = time.Since(start)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code, rec.Body.String())
				}
			}
			handlerMedian = median(lat)
			b.ReportMetric(float64(handlerMedian.Microseconds()), "p50-µs")
		})
		b.Run(alg+"/raw", func(b *testing.B) {
			k, err := ssa.GenerateKey(alg, 2048)
			if err != nil {
				b.Fatal(err)
			}
			input := []byte("eyJhbGciOiJQUzI1NiJ9." + string(make([]byte, 700)))
			lat := make([]time.Duration, b.N)
			runtime.GC()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := k.Sign(input, false); err != nil {
					b.Fatal(err)
				}
				lat[i] = time.Since(start)
			}
			rawMedian = median(lat)
			b.ReportMetric(float64(rawMedian.Microseconds()), "p50-µs")
			if handlerMedian > 0 {
				b.ReportMetric(float64((handlerMedian - rawMedian).Microseconds()), "overhead-µs")
				b.ReportMetric(float64(handlerMedian)/float64(rawMedian), "handler/raw")
			}
		})
	}
}
