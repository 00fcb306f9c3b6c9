package web_test

import (
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/web/webtest"
)

// BenchmarkSSAInFlight measures SSA issuance through the real router with
// 1 and 4 requests in flight per core (b.SetParallelism): the audit rows of
// concurrent assertions are committed together, so throughput should grow
// with the requests in flight, not collapse on SQLite's one writer.
//
//	go test ./web -run '^$' -bench SSAInFlight -benchtime 2s
func BenchmarkSSAInFlight(b *testing.B) {
	env := webtest.Start(b, nil)
	tok := webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken
	a := &api{t: &testing.T{}, base: env.URL, token: tok}
	oid := mustJSON(b, a, "POST", "/organisations", `{"OrganisationName":"Bench","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	aid := mustJSON(b, a, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Bench app","RedirectUri":["https://app.example/cb"]}`)["SoftwareStatementId"].(string)
	for _, alg := range []string{ssa.PS256, ssa.MLDSA65} {
		for _, par := range []int{1, 2, 4} {
			b.Run(alg+"/inflight="+map[int]string{1: "1xcores", 2: "2xcores", 4: "4xcores"}[par], func(b *testing.B) {
				path := env.URL + "/api/organisations/" + oid + "/softwarestatements/" + aid + "/assertion?signingAlg=" + alg
				var mu sync.Mutex
				var lat []time.Duration
				b.SetParallelism(par)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					var mine []time.Duration
					defer func() { mu.Lock(); lat = append(lat, mine...); mu.Unlock() }()
					for pb.Next() {
						start := time.Now()
						req := httptest.NewRequest("GET", path, nil)
						req.Header.Set("Authorization", "Bearer "+tok)
						rec := httptest.NewRecorder()
						env.Server.ServeHTTP(rec, req)
						if rec.Code != http.StatusOK {
							b.Error(rec.Code, rec.Body.String())
							return
						}
						mine = append(mine, time.Since(start))
					}
				})
				b.StopTimer()
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				if len(lat) > 0 {
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
					b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "SSA/s")
				}
			})
		}
	}
}
