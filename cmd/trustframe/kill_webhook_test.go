package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestHelperServeProcess is not a test: TestKill9BetweenCommitAndDelivery
// and TestTwoServeProcessesOnPostgres run the test binary again as a server
// process through it (startServeProcess), so that the server can be killed
// with SIGKILL like a real one.
func TestHelperServeProcess(t *testing.T) {
	args := os.Getenv("TRUSTFRAME_HELPER_SERVE_ARGS")
	if args == "" {
		t.Skip("only run as a child process of startServeProcess")
	}
	err := run(context.Background(), strings.Split(args, "\x1f"), func(string) string { return "" }, strings.NewReader(""), os.Stdout, os.Stderr)
	if err != nil {
		os.Exit(2)
	}
	os.Exit(0)
}

// startChild runs `trustframe serve` in a process of its own and returns
// its URL and the process.
func startChild(t *testing.T, args ...string) (string, *exec.Cmd) {
	t.Helper()
	c := startServeProcess(t, args...)
	return c.base, c.cmd
}

// TestKill9BetweenCommitAndDelivery: a change commits, its delivery is in
// flight (the receiver has not answered), and the server is killed with
// SIGKILL. Started again on the same data, it delivers the change: the
// outbox row was written with the change, and the dead process's lease
// runs out.
func TestKill9BetweenCommitAndDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes (-short)")
	}
	type msg struct{ id, body, sigOK string }
	var mu sync.Mutex
	var got []msg
	var secret string
	first := make(chan struct{})
	var once sync.Once
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(r.Header.Get("webhook-id") + "." + r.Header.Get("webhook-timestamp") + "." + string(body)))
		ok := "bad"
		if r.Header.Get("webhook-signature") == "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)) {
			ok = "ok"
		}
		got = append(got, msg{r.Header.Get("webhook-id"), string(body), ok})
		n := len(got)
		mu.Unlock()
		if n == 1 {
			once.Do(func() { close(first) })
			<-r.Context().Done() // hang: the server is killed meanwhile
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(func() { rc.CloseClientConnections(); rc.Close() })

	dataDir := t.TempDir()
	args := []string{"--data-dir", dataDir, "--allow-private-webhook-urls", "--webhook-timeout", "2s"}
	base, proc := startChild(t, args...)
	tok := webtest.Token(t, base, "admin@example.com", nil).AccessToken
	call := func(base, method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, base+"/api"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, body := call(base, "POST", "/references/webhooks", `{"Url":"`+rc.URL+`/hook","SubjectTypes":["SuperUser"]}`)
	if status != 201 {
		t.Fatalf("create webhook: %d %s", status, body)
	}
	var wh struct{ WebhookId, Secret string }
	_ = json.Unmarshal([]byte(body), &wh)
	mu.Lock()
	secret = wh.Secret
	mu.Unlock()
	if status, body := call(base, "POST", "/users/super", `{"Email":"kill@example.com","Status":"Active"}`); status != 201 {
		t.Fatalf("change: %d %s", status, body)
	}
	select {
	case <-first:
	case <-time.After(15 * time.Second):
		t.Fatal("the first attempt never came")
	}
	if err := proc.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = proc.Wait()
	killedAt := time.Now()

	base2, _ := startChild(t, args...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the change was not delivered after the restart")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("delivered %s after the kill", time.Since(killedAt).Round(time.Millisecond))
	mu.Lock()
	a, b := got[0], got[1]
	mu.Unlock()
	if a.id != b.id || a.body != b.body || !strings.Contains(b.body, `"SubjectId":"kill@example.com"`) || a.sigOK != "ok" || b.sigOK != "ok" {
		t.Fatalf("after the restart: %+v, before: %+v", b, a)
	}
	// The log of the restarted server says Delivered.
	tok = webtest.Token(t, base2, "admin@example.com", nil).AccessToken
	deadline = time.Now().Add(10 * time.Second)
	for {
		status, body = call(base2, "GET", "/references/webhooks/"+wh.WebhookId+"/deliveries", "")
		if status == 200 && strings.Contains(body, `"Status":"Delivered"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery log: %d %s", status, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
