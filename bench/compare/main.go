// Command compare measures trustframe against the floor (bench/floor) on
// the same machine, interleaving the two (floor, trustframe, floor, …) so
// that both see the same background load, and prints the ratios of issue
// 19's table. bench/compare.sh starts both servers and runs it.
//
//	compare --floor http://127.0.0.1:8091 --trustframe http://127.0.0.1:8090 [--duration 2s --rounds 3]
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/PuerkitoBio/goquery"
)

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}, Timeout: 30 * time.Second}

func main() {
	floor := flag.String("floor", "http://127.0.0.1:8091", "the floor program")
	tf := flag.String("trustframe", "http://127.0.0.1:8090", "trustframe (with the development identity provider)")
	email := flag.String("email", "admin@example.com", "the Super User to sign in as")
	duration := flag.Duration("duration", 2*time.Second, "length of one measurement run")
	rounds := flag.Int("rounds", 3, "floor/trustframe pairs per measure")
	only := flag.String("only", "all", "which measures: reads (point read, first page), participants, soak, or all (not soak); token prints a Bearer token")
	soakFor := flag.Duration("soak", 3*time.Minute, "with --only soak: how long reads and writes run together")
	pid := flag.Int("pid", 0, "with --only soak: trustframe's process id, to sample its RSS")
	flag.Parse()

	tok, err := token(*tf, *email)
	if err != nil {
		log.Fatal("token: ", err)
	}
	if *only == "token" { // for measuring by hand: curl -H "Authorization: Bearer $(compare --only token)"
		fmt.Println(tok)
		return
	}
	auth := http.Header{"Authorization": {"Bearer " + tok}}
	ids, err := orgIDs(*floor)
	if err != nil || len(ids) == 0 {
		log.Fatalf("organisation ids from the floor: %v (%d)", err, len(ids))
	}
	pick := func() string { return ids[rand.IntN(len(ids))] }

	if *only != "participants" && *only != "soak" {
		fmt.Printf("| measure | floor | trustframe | ratio | goal |\n|---|---|---|---|---|\n")
	}
	pair := func(name, goal string, conns int, floorPath, tfPath func() string) {
		var f, t result
		for range *rounds {
			f.add(load(*floor, nil, conns, *duration, floorPath))
			t.add(load(*tf, auth, conns, *duration, tfPath))
		}
		fmt.Printf("| %s | %s | %s | %.2f | %s |\n", name, f, t, t.rate()/f.rate(), goal)
	}
	if *only == "participants" {
		participants(*tf, auth, ids, *duration, *rounds)
		return
	}
	if *only == "soak" {
		soak(*tf, auth, ids, *soakFor, *pid)
		return
	}
	pair("point read `GET /api/organisations/{id}`, 16 connections", "≥ 0.6", 16,
		func() string { return "/api/organisations/" + pick() }, func() string { return "/api/organisations/" + pick() })
	pair("first page `GET /api/organisations?size=20`, 16 connections", "—", 16,
		func() string { return "/api/organisations?size=20" }, func() string { return "/api/organisations?size=20" })
	if *only == "all" {
		participants(*tf, auth, ids, *duration, *rounds)
	}
}

// participants measures the public participants list alone, then while an
// administrator writes (trustframe only: the floor has no such list).
func participants(tf string, auth http.Header, ids []string, duration time.Duration, rounds int) {
	var alone, busy result
	part := func() string { return "/api/participants" }
	if resp, err := client.Get(tf + "/api/participants"); err == nil { // the first build, not measured
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range rounds {
		alone.add(load(tf, nil, 8, duration, part))
		stop := make(chan struct{})
		var writes atomic.Int64
		var wg sync.WaitGroup
		t0 := time.Now()
		wg.Go(func() { writer(tf, auth, ids, stop, &writes) })
		busy.add(load(tf, nil, 8, duration, part))
		close(stop)
		wg.Wait()
		busy.note = fmt.Sprintf("%.0f writes/s", float64(writes.Load())/time.Since(t0).Seconds())
	}
	fmt.Printf("| public `/api/participants`, 8 connections: alone → while an administrator writes (%s) | — | %s → %s | %.2f | ≥ 0.8 |\n",
		busy.note, alone, busy, busy.rate()/alone.rate())
}

// result sums the runs of one side of a measure.
type result struct {
	n    int
	secs float64
	lat  []time.Duration
	errs int
	note string
}

func (r *result) add(o result) {
	r.n += o.n
	r.secs += o.secs
	r.lat = append(r.lat, o.lat...)
	r.errs += o.errs
}

func (r result) rate() float64 { return float64(r.n) / r.secs }

func (r result) String() string {
	sort.Slice(r.lat, func(i, j int) bool { return r.lat[i] < r.lat[j] })
	p99 := time.Duration(0)
	if len(r.lat) > 0 {
		p99 = r.lat[len(r.lat)*99/100]
	}
	s := fmt.Sprintf("%.0f req/s, p99 %.1f ms", r.rate(), float64(p99.Microseconds())/1000)
	if r.errs > 0 {
		s += fmt.Sprintf(" (%d failed)", r.errs)
	}
	return s
}

// load sends GETs from conns connections for d and measures them.
func load(base string, hdr http.Header, conns int, d time.Duration, path func() string) result {
	var mu sync.Mutex
	var res result
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			var lat []time.Duration
			errs := 0
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest("GET", base+path(), nil)
				for k, v := range hdr {
					req.Header[k] = v
				}
				req.Header.Set("Accept-Encoding", "gzip")
				t0 := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err != nil || resp.StatusCode != 200 {
					errs++
					continue
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			res.lat = append(res.lat, lat...)
			res.errs += errs
			mu.Unlock()
		})
	}
	wg.Wait()
	res.n, res.secs = len(res.lat), time.Since(start).Seconds()
	return res
}

// writer renames organisations through the API, about 14 a second, until stop.
func writer(base string, auth http.Header, ids []string, stop chan struct{}, n *atomic.Int64) {
	tick := time.NewTicker(time.Second / 14)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		id := ids[i%len(ids)]
		req, _ := http.NewRequest("GET", base+"/api/organisations/"+id, nil)
		req.Header = auth.Clone()
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		var o map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&o)
		resp.Body.Close()
		name, _ := o["OrganisationName"].(string)
		o["OrganisationName"] = strings.TrimSuffix(name, " (renamed)") + map[bool]string{true: " (renamed)"}[!strings.HasSuffix(name, " (renamed)")]
		b, _ := json.Marshal(o)
		req, _ = http.NewRequest("PUT", base+"/api/organisations/"+id, bytes.NewReader(b))
		req.Header = auth.Clone()
		req.Header.Set("Content-Type", "application/json")
		if resp, err := client.Do(req); err == nil {
			if resp.StatusCode == 200 {
				n.Add(1)
			}
			resp.Body.Close()
		}
	}
}

func orgIDs(floor string) ([]string, error) {
	resp, err := client.Get(floor + "/api/organisations?size=1000")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var page struct {
		Content []struct {
			OrganisationID string `json:"OrganisationId"`
		} `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		return nil, err
	}
	var ids []string
	for _, o := range page.Content {
		ids = append(ids, o.OrganisationID)
	}
	return ids, nil
}

// token signs in at the development identity provider with the public
// client trustframe-cli (code flow with PKCE), as a person would.
func token(base, email string) (string, error) {
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	verifier := fmt.Sprintf("compare-%d-pkce-verifier-0123456789abcdefghij", time.Now().UnixNano())
	challenge := s256(verifier)
	redirect := "http://127.0.0.1:53682/callback"
	q := url.Values{"response_type": {"code"}, "client_id": {"trustframe-cli"}, "redirect_uri": {redirect},
		"scope": {"openid email"}, "state": {"state-0123456789"}, "code_challenge": {challenge},
		"code_challenge_method": {"S256"}, "login_hint": {email}}
	resp, err := noRedirect.Get(base + "/dev/idp/authorize?" + q.Encode())
	if err != nil {
		return "", err
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if err != nil {
		return "", err
	}
	form := url.Values{}
	doc.Find("form input").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		val, _ := s.Attr("value")
		form.Set(name, val)
	})
	form.Set("email", email)
	resp, err = noRedirect.PostForm(base+"/dev/idp/authorize", form)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		return "", fmt.Errorf("authorize: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, err = client.PostForm(base+"/dev/idp/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"redirect_uri": {redirect}, "client_id": {"trustframe-cli"}, "code_verifier": {verifier}})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || tr.AccessToken == "" {
		return "", fmt.Errorf("token: %d %v", resp.StatusCode, err)
	}
	return tr.AccessToken, nil
}

func init() { log.SetOutput(os.Stderr) }

func s256(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
