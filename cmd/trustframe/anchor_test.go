package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAnchorCommandReloadsOnSIGHUP: the real command serves the file, takes
// a new file on SIGHUP, and keeps the old one when the new one is bad.
func TestAnchorCommandReloadsOnSIGHUP(t *testing.T) {
	dir := t.TempDir()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	os.WriteFile(filepath.Join(dir, "k.pem"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	cfg := filepath.Join(dir, "anchor.yaml")
	write := func(subs ...string) {
		body := "entity_id: https://link.example.org\nkeys: [{file: k.pem, alg: ES256}]\nsubordinates:\n"
		for _, s := range subs {
			body += "  - {entity_id: " + s + ", jwks_uri: " + s + "/jwks, entity_types: [federation_entity]}\n"
		}
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("https://fed-a.example.org")

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"anchor", "--config", cfg, "--addr", "127.0.0.1:0"}, func(string) string { return "" }, nil, pw, io.Discard)
		pw.Close()
	}()
	defer func() {
		cancel()
		<-done
	}()
	var base string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
	}
	go io.Copy(io.Discard, pr)
	list := func() []string {
		resp, err := http.Get(base + "/list")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var l []string
		json.NewDecoder(resp.Body).Decode(&l)
		return l
	}
	if l := list(); len(l) != 1 {
		t.Fatalf("list %v", l)
	}
	waitFor := func(n int) []string {
		var l []string
		for i := 0; i < 100; i++ {
			if l = list(); len(l) == n {
				return l
			}
			time.Sleep(20 * time.Millisecond)
		}
		return l
	}
	write("https://fed-a.example.org", "https://fed-b.example.org")
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	if l := waitFor(2); len(l) != 2 {
		t.Fatalf("after reload: %v", l)
	}
	os.WriteFile(cfg, []byte("entity_id: https://link.example.org\nkeys: [{file: missing.pem, alg: ES256}]\n"), 0o600)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	time.Sleep(300 * time.Millisecond)
	if l := list(); len(l) != 2 || !strings.Contains(strings.Join(l, " "), "fed-b") {
		t.Fatalf("a bad file replaced the good one: %v", l)
	}
}

func TestAnchorCommandRefusesABadFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "anchor.yaml")
	os.WriteFile(cfg, []byte("entity_id: https://link.example.org\nkeys: [{file: keys/none.pem, alg: PS256}]\n"), 0o600)
	err := run(context.Background(), []string{"anchor", "--config", cfg, "--addr", "127.0.0.1:0"}, func(string) string { return "" }, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), cfg) || !strings.Contains(err.Error(), "keys/none.pem") {
		t.Fatalf("%v", err)
	}
}

// anchor --addr that is not host:port is a usage error (exit 2) naming
// --addr, as serve's; it was "listen: listen tcp: address bad: missing
// port in address" with exit status 1.
func TestAnchorRefusesABadAddr(t *testing.T) {
	err := run(context.Background(), []string{"anchor", "--config", "../../docs/anchor.example.yaml", "--addr", "bad"}, func(string) string { return "" }, nil, io.Discard, io.Discard)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "--addr") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
}
