package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web/webtest"
)

// benchDatabase returns the data directory and database of the list
// benchmarks: benchDir's SQLite file, or with TRUSTFRAME_BENCH_DATABASE set
// to a postgres:// URL that database, seeded once with n organisations
// (docs/benchmarks.md, "On PostgreSQL").
func benchDatabase(b *testing.B, n int) (dir, database string) {
	database = os.Getenv("TRUSTFRAME_BENCH_DATABASE")
	if database == "" {
		dir = benchDir(b, n)
		return dir, filepath.Join(dir, "trustframe.db")
	}
	// The key files stay beside the database between runs: its signing
	// keys are sealed with the KEK made on the first.
	dir = os.Getenv("TRUSTFRAME_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "trustframe-bench-pg-"+strconv.Itoa(n))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(context.Background(), database, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var have int
	if err := db.SQL().QueryRow(`SELECT COUNT(*) FROM organisations`).Scan(&have); err != nil {
		b.Fatal(err)
	}
	if have == 0 {
		if err := db.SeedDirectory(context.Background(), store.Audit{Actor: "bench"}, n, 1); err != nil {
			b.Fatal(err)
		}
		if _, err := db.SQL().Exec(`ANALYZE`); err != nil {
			b.Fatal(err)
		}
	} else if have != n {
		b.Fatalf("TRUSTFRAME_BENCH_DATABASE holds %d organisations, want %d (or none)", have, n)
	}
	return dir, database
}

// BenchmarkOrganisationList measures the organisation list at 100,000
// organisations through the real router: the API's first page, a deep
// page, a search, a sort, and the HTML list page, with one client and with
// 16 concurrent clients. It reports p50 and p99 in microseconds.
func BenchmarkOrganisationList(b *testing.B) {
	n := benchOrgs()
	dir, database := benchDatabase(b, n)
	env := webtest.StartOn(b, dir, database, nil)
	tok := webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken
	sess := webtest.Browser()
	webtest.SignIn(b, sess, env.URL, "admin@example.com").Body.Close()
	var cookie string
	for _, c := range sess.Jar.Cookies(mustURL(env.URL)) {
		if c.Name == "trustframe_session" {
			cookie = c.Name + "=" + c.Value
		}
	}
	lastPage := (n - 1) / 20
	cases := []struct{ name, path string }{
		{"first_page", "/api/organisations"},
		{"deep_page", fmt.Sprintf("/api/organisations?page=%d", lastPage)},
		{"middle_page", fmt.Sprintf("/api/organisations?page=%d", lastPage/2)},
		{"search", "/api/organisations?q=Harbour%20Crown"},
		{"sort_regno_desc", "/api/organisations?sort=RegistrationNumber,desc"},
		{"sort_regno_deep", fmt.Sprintf("/api/organisations?sort=RegistrationNumber,desc&page=%d", lastPage)},
		{"filter_status", "/api/organisations?Status=Pending"},
		{"html_page", "/organisations"},
		{"html_deep_page", fmt.Sprintf("/organisations?page=%d", lastPage)},
	}
	one := func(path string) time.Duration {
		req := httptest.NewRequest("GET", env.URL+path, nil)
		if path[:5] == "/api/" {
			req.Header.Set("Authorization", "Bearer "+tok)
		} else {
			req.Header.Set("Cookie", cookie)
		}
		rec := httptest.NewRecorder()
		start := time.Now()
		env.Server.ServeHTTP(rec, req)
		d := time.Since(start)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		return d
	}
	// The total stays right at this size, on the first page and the last.
	for _, path := range []string{"/api/organisations", fmt.Sprintf("/api/organisations?page=%d", lastPage)} {
		req := httptest.NewRequest("GET", env.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		env.Server.ServeHTTP(rec, req)
		var page struct {
			TotalSize        int `json:"totalSize"`
			NumberOfElements int `json:"numberOfElements"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || page.TotalSize != n || page.NumberOfElements == 0 {
			b.Fatalf("%s: total %d (want %d), %d items, %v", path, page.TotalSize, n, page.NumberOfElements, err)
		}
	}
	// The last page started building the page anchors in the background
	// (one pass over 100,000 index entries): done before anything is
	// timed, so the first row does not share the machine with it.
	env.DB.WaitBackground()
	for _, c := range cases {
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/clients=%d", c.name, clients), func(b *testing.B) {
				one(c.path) // warm
				lat := make([]time.Duration, b.N)
				b.ResetTimer()
				var wg sync.WaitGroup
				next := make(chan int, b.N)
				for i := 0; i < b.N; i++ {
					next <- i
				}
				close(next)
				for w := 0; w < clients; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range next {
							lat[i] = one(c.path)
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
	// The first deep page after an organisation write (issue 19: ≤ 5 ms):
	// each iteration renames an organisation of the middle of the list, so
	// that rows move across page anchors, then times the last page.
	b.Run("deep_page_after_write/clients=1", func(b *testing.B) {
		ctx := context.Background()
		list, _, err := env.DB.ListOrganisations(ctx, store.OrgFilter{Page: lastPage / 2, Size: 20})
		if err != nil || len(list) == 0 {
			b.Fatal(err)
		}
		deep := fmt.Sprintf("/api/organisations?page=%d", lastPage)
		one(deep) // anchors built
		lat := make([]time.Duration, b.N)
		b.ResetTimer()
		for i := range b.N {
			b.StopTimer()
			o := list[i%len(list)]
			o.OrganisationName = fmt.Sprintf("%s %d", list[i%len(list)].OrganisationName, i)
			if _, err := env.DB.UpdateOrganisation(ctx, store.Audit{Actor: "bench"}, o, nil, nil); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			lat[i] = one(deep)
		}
		b.StopTimer()
		for _, o := range list { // the names as they were
			if _, err := env.DB.UpdateOrganisation(ctx, store.Audit{Actor: "bench"}, o, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	})
}
