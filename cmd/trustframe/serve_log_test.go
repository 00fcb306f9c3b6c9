package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeWritesItsLogWhenItStops: serve gathers its log lines, and none
// is left behind: the "listening" line is out before the address is
// printed, and the access log and "shutting down" are out when serve
// returns, however long the gathering delay.
func TestServeWritesItsLogWhenItStops(t *testing.T) {
	defer func(d time.Duration) { logFlushAfter = d }(logFlushAfter)
	logFlushAfter = time.Hour // nothing is written by the timer in this test
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &lockedBuffer{} // cli_follow_test.go
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, func(string) string { return "" }, strings.NewReader(""), pw, stderr)
		pw.Close()
	}()
	urlRe := regexp.MustCompile(`listening on (http://\S+)`)
	var base string
	for lines := bufio.NewScanner(pr); base == "" && lines.Scan(); {
		if m := urlRe.FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatal("the program never said where it listens")
	}
	go io.Copy(io.Discard, pr)
	if !strings.Contains(stderr.String(), "msg=listening") {
		t.Fatalf("the address was printed before the listening line was written:\n%s", stderr.String())
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	log := stderr.String()
	for _, want := range []string{"path=/healthz status=200", `msg="shutting down"`} {
		if !strings.Contains(log, want) {
			t.Errorf("after serve returned, the log lacks %q:\n%s", want, log)
		}
	}
}

// On a stop (SIGTERM), the log's "shutting down" comes before the printed
// "trustframe stopped" where both go to one place (a terminal, the
// journal): it waited in the log's buffer and came after it.
func TestServeSaysShuttingDownBeforeStopped(t *testing.T) {
	defer func(d time.Duration) { logFlushAfter = d }(logFlushAfter)
	logFlushAfter = time.Hour                                          // the order may not hang on the timer
	cancel, both, done := startServe(t, true, "--addr", "127.0.0.1:0") // standard output and error, as a terminal shows them
	said(t, both, "listening on ")
	stopsPromptly(t, cancel, done)
	out := both.String()
	down, stopped := strings.Index(out, "shutting down"), strings.Index(out, "trustframe stopped")
	if down < 0 || stopped < 0 || down > stopped {
		t.Fatalf("\"shutting down\" at %d, \"trustframe stopped\" at %d:\n%s", down, stopped, out)
	}
}

// A --base-url given with its trailing slash is printed without a doubled
// one: "Open http://127.0.0.1:8080// and sign in" was printed.
func TestServePrintsTheBaseURLOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	both := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--base-url", "http://127.0.0.1:8080/", "--data-dir", t.TempDir()}, func(string) string { return "" }, strings.NewReader(""), both, io.Discard)
	}()
	for i := 0; !strings.Contains(both.String(), "sign in as"); i++ {
		if i > 500 {
			t.Fatalf("the program never said where to sign in:\n%s", both.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	if out := both.String(); strings.Contains(out, "8080//") || !strings.Contains(out, "Open http://127.0.0.1:8080/ and sign in") {
		t.Fatalf("%s", out)
	}
}
