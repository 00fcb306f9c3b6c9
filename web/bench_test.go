package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
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
