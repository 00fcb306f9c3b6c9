package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web/webtest"
)

// A stop (SIGTERM) while a client long-polls the change feed answers the
// poll at once, empty with its cursor (the client asks again), and serve
// exits 0 promptly. The poll held the shutdown for its 15 seconds, serve
// then exited 1 with "shutdown: context deadline exceeded", and the client
// got its connection cut.
func TestServeStopAnswersLongPolls(t *testing.T) {
	cancel, out, done := startServe(t, false, "--addr", "127.0.0.1:0")
	base := said(t, out, "listening on ")
	tok := webtest.Token(t, base, "admin@example.com", nil).AccessToken
	get := func(query string) (*http.Response, map[string]any, error) {
		req, _ := http.NewRequest("GET", base+"/api/changes?"+query, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		var page map[string]any
		err = json.NewDecoder(resp.Body).Decode(&page)
		return resp, page, err
	}
	_, head, err := get("after=now")
	if err != nil {
		t.Fatal(err)
	}
	cursor, _ := head["nextCursor"].(string)
	type answer struct {
		status int
		page   map[string]any
		err    error
	}
	polled := make(chan answer, 1)
	go func() {
		resp, page, err := get("wait=60&after=" + url.QueryEscape(cursor))
		a := answer{page: page, err: err}
		if resp != nil {
			a.status = resp.StatusCode
		}
		polled <- a
	}()
	time.Sleep(500 * time.Millisecond) // the poll is waiting
	stopsPromptly(t, cancel, done)
	a := <-polled
	if a.err != nil || a.status != 200 || a.page["nextCursor"] != cursor {
		t.Fatalf("the long poll: %d %v %v", a.status, a.page, a.err)
	}
}

// A stop while a profile is being taken on the metrics listener (a 30 s
// CPU profile) does not wait for it: the public listener is drained and
// closed first, then the private one. The profile held the stop for 15
// seconds, during which the public listener still took new requests.
func TestServeStopDoesNotWaitForAProfile(t *testing.T) {
	cancel, out, done := startServe(t, false, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	metrics, _, _ := strings.Cut(said(t, out, "metrics on "), "/metrics")
	said(t, out, "listening on ")
	go func() {
		if resp, err := http.Get(metrics + "/debug/pprof/profile?seconds=30"); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	time.Sleep(500 * time.Millisecond) // the profile is being taken
	stopsPromptly(t, cancel, done)
}

// A second SIGTERM (or Ctrl-C) while serve waits for requests in flight
// ends the process at once; the first starts the graceful stop. The second
// was caught and ignored: the operator had to wait out the drain or use
// SIGKILL.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRunProcess$")
	cmd.Env = append(os.Environ(), "TRUSTFRAME_HELPER_SIGNALS=1",
		"TRUSTFRAME_HELPER_RUN_ARGS="+strings.Join([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, "\x1f"))
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	addr := said(t, out, "listening on http://")
	// A request in flight: its headers begun, never finished (the drain
	// waits for it until the 10 s header timeout).
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n"))
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	for i := 0; !strings.Contains(out.String(), "shutting down"); i++ {
		if i > 250 {
			t.Fatalf("no graceful stop began:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case <-exited:
		t.Fatalf("the first signal did not wait for the request in flight:\n%s", out.String())
	default:
	}
	t0 := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("the process did not end")
	}
	if took := time.Since(t0); took > 3*time.Second {
		t.Fatalf("the second signal took %s to end the process", took)
	}
}
