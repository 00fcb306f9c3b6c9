// Command diskprobe measures, on the disk the service will run on, what
// bounds SSA issuance with requests in flight (docs/benchmarks.md, "SSA
// issuance with requests in flight"): an SSA is handed out only once its
// audit record is durable, so each request waits for a commit, and a
// commit waits for the disk's flush. Run it in the data directory's file
// system to see what the deployment will give:
//
//	go run ./bench/diskprobe --dir /var/lib/trustframe/probe --n 2000
//
// It prints, p50/p90/p99 and a rate for each:
//   - a 4 KiB write over a block already there, then fdatasync;
//   - a 4 KiB write that grows the file, then fdatasync;
//   - one audit record committed alone through the store (trustframe's
//     schema and settings: WAL, synchronous=FULL, the audit indexes),
//     what an SSA waits for with one request in flight;
//   - records committed by 4 writers at once (group commit: one
//     transaction and one flush for every record waiting);
//   - one ML-DSA-65 signature of an SSA-sized input, the CPU side.
//
// The files it makes under --dir are removed at the end.
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/cloudflare/circl/sign/mldsa/mldsa65"

	"github.com/trustframe/trustframe/store"
)

func main() {
	dir := flag.String("dir", "", "a new directory on the disk to measure (made, then removed)")
	n := flag.Int("n", 2000, "operations per measure")
	flag.Parse()
	if *dir == "" {
		log.Fatal("diskprobe: --dir is required")
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(*dir)
	fmt.Printf("%-44s %10s %10s %10s %10s\n", "measure", "p50", "p90", "p99", "per second")
	report("4 KiB overwrite + fdatasync", syncs(filepath.Join(*dir, "overwrite"), *n, true), 1)
	report("4 KiB append + fdatasync", syncs(filepath.Join(*dir, "append"), *n, false), 1)
	one, four, err := commits(filepath.Join(*dir, "trustframe.db"), *n)
	if err != nil {
		log.Fatal(err)
	}
	report("audit record, committed alone", one, 1)
	report("audit records, 4 writers (group commit)", four, 4)
	report("ML-DSA-65 signature (one core)", signs(*n), 1)
}

// report prints the percentiles of ds and the rate they make with conc
// operations at a time.
func report(name string, ds []time.Duration, conc int) {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	at := func(q float64) time.Duration { return ds[int(float64(len(ds)-1)*q)].Round(time.Microsecond) }
	rate := float64(conc) * float64(len(ds)) / sum.Seconds()
	fmt.Printf("%-44s %10v %10v %10v %10.0f\n", name, at(0.5), at(0.9), at(0.99), rate)
}

func syncs(path string, n int, over bool) []time.Duration {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	if over {
		if _, err := f.Write(make([]byte, 4096*n)); err != nil {
			log.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			log.Fatal(err)
		}
	}
	ds := make([]time.Duration, 0, n)
	for i := range n {
		start := time.Now()
		if _, err := f.WriteAt(block, int64(i)*4096); err != nil {
			log.Fatal(err)
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			log.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	return ds
}

// commits writes SSA-like audit records through the store: n one at a
// time, then n by four writers at once.
func commits(path string, n int) (one, four []time.Duration, err error) {
	ctx := context.Background()
	db, err := store.Open(ctx, path, nil)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	rec := func(i int) store.AuditRecord {
		return store.AuditRecord{Actor: "probe@example.org", Action: "ssa_issued", SubjectType: "Application",
			SubjectID: fmt.Sprintf("0000%04d-aaaa-4bbb-8ccc-000000000000", i%50), OrganisationID: fmt.Sprintf("1111%04d-aaaa-4bbb-8ccc-000000000000", i%50),
			Summary: "SSA signed with ML-DSA-65; jti 6a1f0c9e8d7b4a3f2e1d0c9b8a7f6e5d"}
	}
	for i := range n { // a log that is not empty
		if err := db.RecordEvent(ctx, rec(i)); err != nil {
			return nil, nil, err
		}
	}
	for i := range n {
		start := time.Now()
		if err := db.RecordEvent(ctx, rec(i)); err != nil {
			return nil, nil, err
		}
		one = append(one, time.Since(start))
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var first error
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				start := time.Now()
				err := db.RecordEvent(ctx, rec(i))
				mu.Lock()
				four = append(four, time.Since(start))
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return one, four, first
}

func signs(n int) []time.Duration {
	_, key, err := mldsa65.GenerateKey(rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	msg := make([]byte, 1200) // about an SSA's signing input
	ds := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if _, err := key.Sign(rand.Reader, msg, nil); err != nil {
			log.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	return ds
}
