package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// soak runs mixed reads (8 connections: point read, first page, search,
// the public participants list and the federation list) and an
// administrator's writes (about 14 a second) together for d, and prints one
// row per interval: reads per second, their p99, writes per second and
// trustframe's resident memory (from /proc, when pid is given). The goal
// (docs/benchmarks.md "Soak"): read throughput and RSS stay flat, no errors.
func soak(tf string, auth http.Header, ids []string, d time.Duration, pid int) {
	interval := 10 * time.Second
	if d < 6*interval {
		interval = max(d/6, time.Second)
	}
	paths := []func() string{
		func() string { return "/api/organisations/" + ids[rand.IntN(len(ids))] },
		func() string { return "/api/organisations?size=20" },
		func() string {
			return "/api/organisations?size=20&q=" + []string{"acme", "bank", "capital", "trust"}[rand.IntN(4)]
		},
		func() string { return "/api/participants" },
		func() string { return "/federation/list" },
	}
	var n atomic.Int64
	mixed := func() string { return paths[int(n.Add(1))%len(paths)]() }

	// The same reads alone first: the rate the goal compares with.
	if resp, err := client.Get(tf + "/api/participants"); err == nil { // the first build, not measured
		resp.Body.Close()
	}
	alone := load(tf, auth, 8, max(interval, d/6), mixed)
	fmt.Printf("mixed reads alone: %s\n\n", alone)

	stop := make(chan struct{})
	var writes atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() { writer(tf, auth, ids, stop, &writes) })

	fmt.Printf("| at | reads/s | ÷ alone | p99 | failed | writes/s | RSS |\n|---|---|---|---|---|---|---|\n")
	var all result
	minRSS, maxRSS := 0, 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		w0, t0 := writes.Load(), time.Now()
		r := load(tf, auth, 8, interval, mixed)
		wps := float64(writes.Load()-w0) / time.Since(t0).Seconds()
		all.add(r)
		rss := rssMB(pid)
		if rss > 0 && (minRSS == 0 || rss < minRSS) {
			minRSS = rss
		}
		maxRSS = max(maxRSS, rss)
		fmt.Printf("| %s | %.0f | %.2f | %s | %d | %.1f | %d MB |\n", time.Since(end.Add(-d)).Round(time.Second), r.rate(), r.rate()/alone.rate(), p99(r), r.errs, wps, rss)
	}
	close(stop)
	wg.Wait()
	fmt.Printf("\nwith writes: %s (%.2f of alone, goal ≥ 0.7); RSS %d–%d MB\n", all, all.rate()/alone.rate(), minRSS, maxRSS)
}

func p99(r result) string {
	s := r.String()
	if i := strings.Index(s, "p99 "); i >= 0 {
		s = s[i+4:]
	}
	if i := strings.Index(s, " ("); i >= 0 {
		s = s[:i]
	}
	return s
}

// rssMB reads VmRSS of pid from /proc (0 when unknown).
func rssMB(pid int) int {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return kb / 1024
		}
	}
	return 0
}
