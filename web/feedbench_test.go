package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// BenchmarkChangeFeed measures how many changes per second GET /api/changes
// serves to one reader reading pages of limit=1000 over HTTP (a log of
// 5,000 changes, read from its start again and again).
func BenchmarkChangeFeed(b *testing.B) {
	env := webtest.Start(b, nil)
	tok := webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken
	ctx := context.Background()
	for i := range 5_000 {
		if err := env.DB.RecordEvent(ctx, store.AuditRecord{Actor: "bench", Action: "update", SubjectType: "Organisation", SubjectID: fmt.Sprint(i)}); err != nil {
			b.Fatal(err)
		}
	}
	client := &http.Client{}
	read := func(after string) (changePage, error) {
		req, _ := http.NewRequest("GET", env.URL+"/api/changes?limit=1000&after="+url.QueryEscape(after), nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := client.Do(req)
		if err != nil {
			return changePage{}, err
		}
		defer resp.Body.Close()
		var p changePage
		err = json.NewDecoder(resp.Body).Decode(&p)
		return p, err
	}
	b.ResetTimer()
	changes, cursor := 0, ""
	for i := 0; i < b.N; i++ {
		p, err := read(cursor)
		if err != nil {
			b.Fatal(err)
		}
		changes += len(p.Content)
		cursor = p.NextCursor
		if len(p.Content) == 0 {
			cursor = ""
		}
	}
	b.ReportMetric(float64(changes)/b.Elapsed().Seconds(), "changes/s")
}

// BenchmarkWebhookLatency measures the time from a change's commit (the
// store's write returned) to its receipt by a webhook receiver on this
// machine, one change at a time, and reports the median and the 99th
// percentile.
func BenchmarkWebhookLatency(b *testing.B) {
	env := webtest.Start(b, func(c *web.Config) { c.AllowPrivateWebhookURLs = true })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { env.Server.DeliverWebhooks(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	got := make(chan time.Time, 1)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got <- time.Now()
	}))
	defer rc.Close()
	tok := webtest.Token(b, env.URL, "admin@example.com", nil).AccessToken
	req, _ := http.NewRequest("POST", env.URL+"/api/references/webhooks",
		strings.NewReader(`{"Url":"`+rc.URL+`/hook","SubjectTypes":["Organisation"]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 201 {
		b.Fatal(err, resp)
	}
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := env.DB.RecordEvent(ctx, store.AuditRecord{Actor: "bench", Action: "update", SubjectType: "Organisation", SubjectID: fmt.Sprint(i)}); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		select {
		case at := <-got:
			mu.Lock()
			lat = append(lat, at.Sub(committed))
			mu.Unlock()
		case <-time.After(10 * time.Second):
			b.Fatal("not delivered")
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
