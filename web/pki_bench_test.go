package web_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/sha512"
	"crypto/x509"
	"io"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"

	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web/webtest"
)

// BenchmarkPKIOCSP: the OCSP responder through the real server over
// loopback HTTP, 16 requests in flight on 16 connections (or
// TRUSTFRAME_BENCH_INFLIGHT), against one raw signature of the CA's key
// (ES384), one at a time and 16 in flight (docs/benchmarks.md).
func BenchmarkPKIOCSP(b *testing.B) {
	env := webtest.Start(b, nil)
	ctx := context.Background()
	o, err := env.DB.CreateOrganisation(ctx, store.Audit{Actor: "bench"}, store.Organisation{OrganisationName: "Bench Bank", RegistrationNumber: "B-1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ca := env.Server.PKI().CA
	var reqs [][]byte
	for i := range 200 {
		c, cert := issueFor(b, env, o.OrganisationID, "", pki.UseSeal)
		if i%2 == 1 {
			if err := env.DB.RevokeCertificate(ctx, store.Audit{Actor: "bench"}, o.OrganisationID, c.Kid, "superseded", nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		der, err := ocsp.CreateRequest(cert, ca.Cert, nil)
		if err != nil {
			b.Fatal(err)
		}
		reqs = append(reqs, der)
	}
	inFlight := parallelism() * runtime.GOMAXPROCS(0)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: inFlight, MaxConnsPerHost: inFlight}}
	post := func(der []byte) time.Duration {
		start := time.Now()
		resp, err := client.Post(env.URL+"/pki/ocsp", "application/ocsp-request", bytes.NewReader(der))
		if err != nil {
			b.Error(err)
			return 0
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if _, err := ocsp.ParseResponse(body, nil); err != nil {
			b.Errorf("OCSP answer: %v", err)
		}
		return d
	}
	report := func(b *testing.B, lat []time.Duration) {
		slices.Sort(lat)
		if len(lat) == 0 {
			return
		}
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
	b.Run("ocsp_one_at_a_time", func(b *testing.B) {
		lat := make([]time.Duration, b.N)
		for i := range b.N {
			lat[i] = post(reqs[i%len(reqs)])
		}
		report(b, lat)
	})
	b.Run("ocsp_parallel", func(b *testing.B) {
		b.SetParallelism(parallelism())
		lat := make(chan time.Duration, b.N)
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				lat <- post(reqs[i%len(reqs)])
				i++
			}
		})
		report(b, drain(lat))
	})
	// Every request about a serial never asked before: nothing signed
	// ahead, each answer (unknown) signed afresh.
	fresh := func() []byte {
		serial, _ := pki.Serial()
		der, err := ocsp.CreateRequest(&x509.Certificate{SerialNumber: serial}, ca.Cert, nil)
		if err != nil {
			b.Error(err)
		}
		return der
	}
	b.Run("ocsp_parallel_signed_afresh", func(b *testing.B) {
		b.SetParallelism(parallelism())
		lat := make(chan time.Duration, b.N)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				lat <- post(fresh())
			}
		})
		report(b, drain(lat))
	})
	digest := sha512.Sum384([]byte("tbsResponseData"))
	sign := func() time.Duration {
		start := time.Now()
		if _, err := ca.Key.Sign(rand.Reader, digest[:], crypto.SHA384); err != nil {
			b.Error(err)
		}
		return time.Since(start)
	}
	b.Run("raw_es384_sign", func(b *testing.B) {
		lat := make([]time.Duration, b.N)
		for i := range b.N {
			lat[i] = sign()
		}
		report(b, lat)
	})
	b.Run("raw_es384_sign_parallel", func(b *testing.B) {
		b.SetParallelism(parallelism())
		lat := make(chan time.Duration, b.N)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				lat <- sign()
			}
		})
		report(b, drain(lat))
	})
}
