package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store/storetest"
	"github.com/trustframe/trustframe/web/webtest"
)

// BenchmarkServeProcessesReads measures the throughput of authenticated
// reads (GET /api/organisations/{id} with a Bearer token, 1,000 seeded
// organisations read in turn) from concurrent clients against one
// `trustframe serve` process, and round-robin across two processes on the
// same PostgreSQL database, set up as TestTwoServeProcessesOnPostgres
// does. It reports req/s and the p50 and p99 latencies
// (docs/benchmarks.md, "On PostgreSQL beside SQLite").
func BenchmarkServeProcessesReads(b *testing.B) {
	if !storetest.Postgres() {
		b.Skip("several instances share a PostgreSQL database (TRUSTFRAME_TEST_POSTGRES)")
	}
	database := storetest.Path(b)
	dirA, dirB := b.TempDir(), b.TempDir()
	if err := run(context.Background(), []string{"seed", "--data-dir", dirA, "--database", database, "--organisations", "1000"},
		func(string) string { return "" }, nil, io.Discard, io.Discard); err != nil {
		b.Fatal(err)
	}
	procA := startServeProcess(b, "--data-dir", dirA, "--database", database)
	copyFile(b, filepath.Join(dirA, "kek.key"), filepath.Join(dirB, "kek.key"))
	copyFile(b, filepath.Join(dirA, "dev-idp-key.pem"), filepath.Join(dirB, "dev-idp-key.pem"))
	procB := startServeProcess(b, "--data-dir", dirB, "--database", database, "--base-url", procA.base)
	bases := []string{procA.listen, procB.listen}
	token := webtest.Token(b, procA.base, "admin@example.com", nil).AccessToken
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}
	get := func(url string) (int, []byte, error) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, body, err
	}
	var ids []string
	for page := range 5 {
		status, body, err := get(fmt.Sprintf("%s/api/organisations?size=200&page=%d", bases[0], page))
		if err != nil || status != 200 {
			b.Fatalf("list: %d %v", status, err)
		}
		var m struct {
			Content []struct{ OrganisationId string }
		}
		json.Unmarshal(body, &m)
		for _, o := range m.Content {
			ids = append(ids, o.OrganisationId)
		}
	}
	if len(ids) != 1000 {
		b.Fatalf("%d organisations listed, want 1000", len(ids))
	}
	// Warm both: the token verified, the statements prepared, connections open.
	for i := range 400 {
		if status, body, err := get(bases[i%2] + "/api/organisations/" + ids[i]); err != nil || status != 200 {
			b.Fatalf("warm-up: %d %v %s", status, err, body)
		}
	}
	for _, instances := range []int{1, 2} {
		for _, clients := range []int{4, 16} {
			b.Run(fmt.Sprintf("instances=%d/clients=%d", instances, clients), func(b *testing.B) {
				lat := make([]time.Duration, b.N)
				cpu0 := cpuTime(b, procA) + cpuTime(b, procB)
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for range clients {
					wg.Go(func() {
						for {
							i := int(next.Add(1) - 1)
							if i >= b.N {
								return
							}
							t0 := time.Now()
							status, body, err := get(bases[i%instances] + "/api/organisations/" + ids[(i/instances)%len(ids)])
							lat[i] = time.Since(t0)
							if err != nil || status != 200 {
								b.Errorf("read %d: %d %v %s", i, status, err, body)
								return
							}
						}
					})
				}
				wg.Wait()
				took := time.Since(start)
				b.StopTimer()
				cpu := cpuTime(b, procA) + cpuTime(b, procB) - cpu0
				slices.Sort(lat)
				b.ReportMetric(float64(b.N)/took.Seconds(), "req/s")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99_ms")
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "server_cpu_µs/op")
				b.ReportMetric(0, "ns/op") // the rate above is the figure; ns/op of a concurrent run misleads
			})
		}
	}
}

// cpuTime is the CPU time (user and system) a server process has used so
// far, from /proc (clock ticks of 10 ms).
func cpuTime(b *testing.B, c *child) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command name (which may hold spaces): utime and
	// stime are the 14th and 15th of the whole line.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
