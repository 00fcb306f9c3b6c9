package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/trustframe/trustframe/web/webtest"
)

// Issue 14 point 4: the passwordless development identity provider does
// not start behind a public base URL unless asked to, and when asked it
// says so in the log and on every page, and issuer URLs must be public.
func TestDevIdPRefusedBehindAPublicBaseURL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errb bytes.Buffer
	err := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--base-url", "https://trust.example.com"},
		func(string) string { return "" }, nil, io.Discard, &errb)
	if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "--dev-idp-allow-remote") || !strings.Contains(err.Error(), "--oidc-issuer") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "trustframe.db")); err == nil {
		t.Fatal("a database was made before the refusal")
	}

	// Asked for: it runs, loudly.
	ctx, cancel = context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var log webtest.LogBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--base-url", "https://trust.example.com", "--dev-idp-allow-remote"},
			func(string) string { return "" }, nil, pw, &log)
		pw.Close()
	}()
	defer func() {
		cancel()
		<-done
	}()
	addr := regexp.MustCompile(`listening on https://trust\.example\.com`)
	lines := bufio.NewScanner(pr)
	started := false
	for lines.Scan() && !started {
		started = addr.MatchString(lines.Text())
	}
	if !started {
		t.Fatalf("did not start: %s", log.String())
	}
	go io.Copy(io.Discard, pr)
	if l := log.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "anyone who reaches it can sign in as anyone") {
		t.Fatalf("log: %s", l)
	}
	// The listener's own address, as a proxy on this host would call it.
	var base string
	for _, l := range strings.Split(log.String(), "\n") {
		if m := regexp.MustCompile(`listen=(\S+)`).FindStringSubmatch(l); m != nil {
			base = "http://" + m[1]
		}
	}
	if base == "" {
		t.Fatalf("no listen address in the log: %s", log.String())
	}
	_, challenge := webtest.PKCE()
	signInPage := "/dev/idp/authorize?" + url.Values{"response_type": {"code"}, "client_id": {"trustframe-cli"},
		"redirect_uri": {"http://127.0.0.1:53682/callback"}, "scope": {"openid email"}, "state": {"state-1234567890"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}}.Encode()
	for _, p := range []string{"/", signInPage, "/no-such-page"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := goquery.NewDocumentFromReader(resp.Body)
		resp.Body.Close()
		if !strings.Contains(doc.Find(`[data-testid=remote-dev-idp-banner]`).Text(), "anyone") {
			t.Fatalf("%s: no warning banner (%d)", p, resp.StatusCode)
		}
	}
	// Private issuer URLs are refused by default now.
	tok := webtest.Token(t, base, "admin@example.com", nil)
	req, _ := http.NewRequest("POST", base+"/api/references/identity-providers",
		strings.NewReader(`{"Name":"inside","EmailDomains":["example.com"],"Issuer":"https://127.0.0.1:1"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 422 || !strings.Contains(string(b), "not public") {
		t.Fatalf("private issuer: %d %s", resp.StatusCode, b)
	}
}
