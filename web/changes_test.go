package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// getChanges reads one answer of the feed (usable from any goroutine).
func getChanges(base, tok, query string) (int, changePage, string, error) {
	req, _ := http.NewRequest(http.MethodGet, base+"/api/changes?"+query, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := (&http.Client{Timeout: 90 * time.Second}).Do(req)
	if err != nil {
		return 0, changePage{}, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var p changePage
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &p); err != nil {
			return resp.StatusCode, p, string(b), err
		}
	}
	return resp.StatusCode, p, string(b), nil
}

// TestChangeFeedUnderConcurrentWriters: 50 writers change the directory at
// once through the API, and 25 more fetch software statement assertions
// (whose audit records the store writes by group commit), while a reader
// follows the feed with long polls; the reader sees every change exactly
// once, in commit (audit id) order, and nothing else.
func TestChangeFeedUnderConcurrentWriters(t *testing.T) {
	env := webtest.Start(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	ctx := context.Background()
	oid, aid := setupApp(t, newAPI(t, env, "admin@example.com"))
	assertion := env.URL + "/api/organisations/" + oid + "/softwarestatements/" + aid + "/assertion"
	_, start, body, err := getChanges(env.URL, tok, "after=now")
	if err != nil || start.NextCursor == "" {
		t.Fatalf("after=now: %v %s", err, body)
	}
	startID, _ := env.DB.LastChangeID(ctx)

	const writers, ssaWriters, each = 50, 25, 4
	var seen []store.Change
	followErr := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		cursor := start.NextCursor
		for {
			status, p, body, err := getChanges(env.URL, tok, "limit=7&wait=5&after="+url.QueryEscape(cursor))
			if err != nil || status != http.StatusOK {
				followErr <- fmt.Errorf("follow: %d %v %s", status, err, body)
				return
			}
			seen = append(seen, p.Content...)
			cursor = p.NextCursor
			select {
			case <-stop:
				if len(p.Content) == 0 {
					followErr <- nil
					return
				}
			default:
			}
		}
	}()

	var wg sync.WaitGroup
	errs := make(chan error, (writers+ssaWriters)*each)
	for w := range ssaWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				req, _ := http.NewRequest(http.MethodGet, assertion, nil)
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("assertion %d-%d: %d", w, i, resp.StatusCode)
				}
			}
		}()
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				req, _ := http.NewRequest(http.MethodPost, env.URL+"/api/users/super",
					strings.NewReader(fmt.Sprintf(`{"Email":"w%d-%d@example.com","Status":"Active"}`, w, i)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					errs <- fmt.Errorf("write %d-%d: %d", w, i, resp.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	close(stop)
	select {
	case err := <-followErr:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the follower did not catch up")
	}

	var want []store.AuditRecord
	if err := env.DB.EachAudit(ctx, store.AuditFilter{}, func(r store.AuditRecord) error {
		if r.ID > startID {
			want = append(want, r)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) < (writers+ssaWriters)*each {
		t.Fatalf("only %d audit records for %d writes", len(want), (writers+ssaWriters)*each)
	}
	issued := 0
	for _, r := range want {
		if r.Action == "ssa_issued" {
			issued++
		}
	}
	if issued != ssaWriters*each {
		t.Fatalf("%d ssa_issued records in the log, want %d", issued, ssaWriters*each)
	}
	if len(seen) != len(want) {
		t.Fatalf("the feed gave %d changes, the log holds %d", len(seen), len(want))
	}
	epoch, _ := env.DB.FeedEpoch(ctx)
	got := map[string]bool{}
	for i, c := range seen {
		if got[c.Cursor] {
			t.Fatalf("change %s seen twice", c.Cursor)
		}
		got[c.Cursor] = true
		if w := store.ChangeOf(epoch, want[i]); c != w {
			t.Fatalf("change %d: got %+v, want %+v (commit order)", i, c, w)
		}
	}
}

// TestChangeFeedLongPollWakesOnCommit: a waiting reader is answered as soon
// as a change commits, not at the end of its wait.
func TestChangeFeedLongPollWakesOnCommit(t *testing.T) {
	env := webtest.Start(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	_, head, _, _ := getChanges(env.URL, tok, "after=now")
	type answer struct {
		p    changePage
		took time.Duration
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		t0 := time.Now()
		status, p, body, err := getChanges(env.URL, tok, "wait=30&after="+url.QueryEscape(head.NextCursor))
		if err == nil && status != 200 {
			err = fmt.Errorf("%d %s", status, body)
		}
		done <- answer{p, time.Since(t0), err}
	}()
	time.Sleep(300 * time.Millisecond)
	resp, body := do(t, "POST", env.URL+"/api/users/super", tok, `{"Email":"late@example.com","Status":"Active"}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	a := <-done
	if a.err != nil {
		t.Fatal(a.err)
	}
	if len(a.p.Content) != 1 || a.p.Content[0].SubjectID != "late@example.com" || a.p.Content[0].Action != "create" || a.p.NextCursor != a.p.Content[0].Cursor {
		t.Fatalf("long poll answered %+v", a.p)
	}
	if a.took > 5*time.Second {
		t.Fatalf("the long poll took %s: it was not woken by the commit", a.took)
	}
	// Nothing new: the wait ends empty with the same cursor.
	t0 := time.Now()
	status, p, _, err := getChanges(env.URL, tok, "wait=1&after="+url.QueryEscape(a.p.NextCursor))
	if err != nil || status != 200 || len(p.Content) != 0 || p.NextCursor != a.p.NextCursor || time.Since(t0) < 900*time.Millisecond {
		t.Fatalf("empty wait: %d %+v %v after %s", status, p, err, time.Since(t0))
	}
}

// TestChangeFeedBadInput: every bad parameter is a problem body that says
// what to do, and a cursor this log cannot continue is 410.
func TestChangeFeedBadInput(t *testing.T) {
	env := webtest.Start(t, nil)
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	ctx := context.Background()
	epoch, _ := env.DB.FeedEpoch(ctx)
	last, _ := env.DB.LastChangeID(ctx)
	other := strings.Repeat("ab", 16)
	cases := []struct {
		name, query string
		status      int
		field, says string
	}{
		{"not base64", "after=%25%25%25", 400, "after", "leave it out"},
		{"base64 of something else", "after=" + "aGVsbG8", 400, "after", "nextCursor"},
		{"negative id", "after=" + store.EncodeCursor(epoch, 0)[:5] + "x", 400, "after", ""},
		{"another database", "after=" + store.EncodeCursor(other, 1), 410, "after", "after=now"},
		{"from the future", "after=" + store.EncodeCursor(epoch, last+1000), 410, "after", "GET /api/organisations"},
		{"limit zero", "limit=0", 422, "limit", "1 to 1000"},
		{"limit too big", "limit=1001", 422, "limit", "1 to 1000"},
		{"limit not a number", "limit=ten", 400, "limit", "whole number"},
		{"wait too long", "wait=61", 422, "wait", "0 to 60"},
		{"wait negative", "wait=-1", 422, "wait", "0 to 60"},
		{"wait not a number", "wait=1.5", 400, "wait", "whole number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, _, body, err := getChanges(env.URL, tok, c.query)
			if err != nil {
				t.Fatal(err)
			}
			var prob struct {
				Status int    `json:"status"`
				Detail string `json:"detail"`
				Errors []struct{ Field string }
			}
			_ = json.Unmarshal([]byte(body), &prob)
			if status != c.status || prob.Status != c.status || len(prob.Errors) == 0 || prob.Errors[0].Field != c.field || !strings.Contains(prob.Detail, c.says) {
				t.Fatalf("%s: %d %s", c.query, status, body)
			}
		})
	}
	// Limits that hold: limit=1 gives one change and a cursor that goes on.
	status, p, body, _ := getChanges(env.URL, tok, "limit=1")
	if status != 200 || len(p.Content) != 1 {
		t.Fatalf("limit=1: %d %s", status, body)
	}
	status, p2, body, _ := getChanges(env.URL, tok, "limit=1000&after="+url.QueryEscape(p.NextCursor))
	if status != 200 || (len(p2.Content) > 0 && p2.Content[0].Cursor == p.Content[0].Cursor) {
		t.Fatalf("after the first: %d %s", status, body)
	}
}

// TestChangeFeedAccess: every administrator reads the feed (as the audit
// log); without a token it is 401, and a person who is not an
// administrator is refused.
func TestChangeFeedAccess(t *testing.T) {
	env := webtest.Start(t, nil)
	su := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	resp, body := do(t, "POST", env.URL+"/api/users/data-administrators", su, `{"Email":"da@example.com"}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("invite: %d %s", resp.StatusCode, body)
	}
	da := webtest.Token(t, env.URL, "da@example.com", nil).AccessToken
	stranger := webtest.Token(t, env.URL, "stranger@example.com", nil).AccessToken
	for _, c := range []struct {
		who, tok string
		status   int
	}{{"super user", su, 200}, {"data administrator", da, 200}, {"no token", "", 401}, {"not an administrator", stranger, 403}} {
		resp, body := do(t, "GET", env.URL+"/api/changes", c.tok, "")
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %s", c.who, resp.StatusCode, body)
		}
	}
}

// TestChangesLongPollLimitPerPrincipal: an administrator holds at most
// the configured number of long polls at once, and the server at most its
// own number in all; past either a long poll is 429 rate_limited at once,
// with Retry-After and a problem body, while a read without wait still
// answers; polls that end free their places.
func TestChangesLongPollLimitPerPrincipal(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.MaxLongPollsPerAdmin, c.MaxLongPolls = 2, 3 })
	admin := newAPI(t, env, "admin@example.com")
	dana := newAPIWithInvite(t, env, admin, "dana@example.com")
	type answer struct {
		status int
		header http.Header
		body   string
	}
	answers := make(chan answer, 5)
	poll := func(a *api) {
		go func() {
			req, _ := http.NewRequest(http.MethodGet, env.URL+"/api/changes?wait=30&after=now", nil)
			req.Header.Set("Authorization", "Bearer "+a.token)
			resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
			if err != nil {
				answers <- answer{body: err.Error()}
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			answers <- answer{resp.StatusCode, resp.Header, string(b)}
		}()
	}
	// refusedAtOnce waits for the one poll of those sent that is refused;
	// the others are held.
	refusedAtOnce := func(what string) answer {
		t.Helper()
		select {
		case a := <-answers:
			if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" ||
				!strings.HasPrefix(a.header.Get("Content-Type"), "application/problem+json") || !strings.Contains(a.body, `"rate_limited"`) {
				t.Fatalf("%s: %d %v %s", what, a.status, a.header, a.body)
			}
			return a
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no long poll was refused", what)
			return answer{}
		}
	}
	for range 3 {
		poll(admin)
	}
	refusedAtOnce("three long polls of one administrator")
	admin.must(200, "GET", "/changes?after=now", "")
	for range 2 {
		poll(dana)
	}
	if a := refusedAtOnce("four long polls in all"); !strings.Contains(a.body, "3 in all") {
		t.Fatalf("the refusal does not name the limit: %s", a.body)
	}
	admin.must(201, "POST", "/organisations", org("Acme")) // answers the held polls
	for range 3 {
		if a := <-answers; a.status != http.StatusOK {
			t.Fatalf("a held long poll: %d %s", a.status, a.body)
		}
	}
	if r, m := admin.do("GET", "/changes?wait=1&after=now", ""); r.StatusCode != http.StatusOK {
		t.Fatalf("after the polls ended: %d %v", r.StatusCode, m)
	}
}
