package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// BenchmarkAPIRead measures the server time of an authenticated API read
// (GET /api/users/super) through the real router, with a Bearer token and
// with a DPoP-bound token and a fresh proof per request. Proofs are made
// before the timer starts: signing them is the client's cost.
func BenchmarkAPIRead(b *testing.B) {
	env := webtest.Start(b, nil)
	api := env.URL + "/api/users/super"
	b.Run("Bearer", func(b *testing.B) {
		tok := webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken
		runtime.GC()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req := httptest.NewRequest("GET", api, nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			rec := httptest.NewRecorder()
			env.Server.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Code, rec.Body.String())
			}
		}
	})
	b.Run("DPoP", func(b *testing.B) {
		key := newDPoPSignerB(b)
		p, _ := key.Proof("POST", env.URL+"/dev/idp/token", "", "")
		tok := webtest.Token(b, env.URL, "admin@example.com", http.Header{"Dpop": {p}}).AccessToken
		proofs := make([]string, b.N)
		for i := range proofs {
			proofs[i], _ = key.Proof("GET", api, tok, "")
		}
		runtime.GC() // the garbage of making proofs is not the server's
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req := httptest.NewRequest("GET", api, nil)
			req.Header.Set("Authorization", "DPoP "+tok)
			req.Header.Set("DPoP", proofs[i])
			rec := httptest.NewRecorder()
			env.Server.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Code, rec.Body.String())
			}
		}
	})
}

// BenchmarkAPIReadOverHTTP is the same read through a real loopback HTTP
// connection (client and server on this machine): what a caller sees.
func BenchmarkAPIReadOverHTTP(b *testing.B) {
	env := webtest.Start(b, nil)
	api := env.URL + "/api/users/super"
	client := &http.Client{}
	b.Run("Bearer", func(b *testing.B) {
		tok := webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken
		runtime.GC()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req, _ := http.NewRequest("GET", api, nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := client.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(err, resp.StatusCode)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("DPoP", func(b *testing.B) {
		key := newDPoPSignerB(b)
		p, _ := key.Proof("POST", env.URL+"/dev/idp/token", "", "")
		tok := webtest.Token(b, env.URL, "admin@example.com", http.Header{"Dpop": {p}}).AccessToken
		proofs := make([]string, b.N)
		for i := range proofs {
			proofs[i], _ = key.Proof("GET", api, tok, "")
		}
		runtime.GC()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req, _ := http.NewRequest("GET", api, nil)
			req.Header.Set("Authorization", "DPoP "+tok)
			req.Header.Set("DPoP", proofs[i])
			resp, err := client.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(err, resp.StatusCode)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// BenchmarkAPIReadDirectory is the same comparison on a typical directory
// read: a page of the organisation list (20 of 100,000, pages spread over
// the list) through the real router, server time only.
func BenchmarkAPIReadDirectory(b *testing.B) {
	env := webtest.StartIn(b, benchDir(b, benchOrgs()), nil)
	pages := benchOrgs() / 20
	target := func(i int) string {
		return env.URL + "/api/organisations?size=20&page=" + strconv.Itoa((i*7919)%pages)
	}
	serve := func(b *testing.B, i int, hdr http.Header) {
		req := httptest.NewRequest("GET", target(i), nil)
		for k, v := range hdr {
			req.Header[k] = v
		}
		rec := httptest.NewRecorder()
		env.Server.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
	b.Run("Bearer", func(b *testing.B) {
		tok := webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken
		hdr := http.Header{"Authorization": {"Bearer " + tok}}
		for i := 0; i < 200; i++ { // the page anchors, as a running server has them
			serve(b, i, hdr)
		}
		runtime.GC()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			serve(b, i, hdr)
		}
	})
	b.Run("DPoP", func(b *testing.B) {
		key := newDPoPSignerB(b)
		p, _ := key.Proof("POST", env.URL+"/dev/idp/token", "", "")
		tok := webtest.Token(b, env.URL, "admin@example.com", http.Header{"Dpop": {p}}).AccessToken
		proofs := make([]string, b.N+200)
		for i := range proofs {
			u, _ := url.Parse(target(i))
			proofs[i], _ = key.Proof("GET", u.Scheme+"://"+u.Host+u.Path, tok, "")
		}
		for i := 0; i < 200; i++ {
			serve(b, i, http.Header{"Authorization": {"DPoP " + tok}, "Dpop": {proofs[b.N+i]}})
		}
		runtime.GC()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			serve(b, i, http.Header{"Authorization": {"DPoP " + tok}, "Dpop": {proofs[i]}})
		}
	})
}

// BenchmarkAPIPointRead is the point read of bench/compare's "point read"
// (GET /api/organisations/{id}, Bearer) in process: its allocations and a
// CPU profile without the load generator's share.
func BenchmarkAPIPointRead(b *testing.B) {
	env := webtest.Start(b, nil)
	tok := webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken
	a := &api{t: &testing.T{}, base: env.URL, token: tok}
	var ids []string
	for i := range 50 {
		ids = append(ids, mustJSON(b, a, "POST", "/organisations", `{"OrganisationName":"Bench `+strconv.Itoa(i)+`","RegistrationNumber":"`+strconv.Itoa(i)+`","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string))
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("GET", env.URL+"/api/organisations/"+ids[i%len(ids)], nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		env.Server.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}
