package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// doctor passes a fresh embedded default with its warnings, and fails, by
// name, what would break a deployment.
func TestDoctor(t *testing.T) {
	_, dataDir := startProgram(t)
	out, err := runDoctor("--data-dir", dataDir)
	if err != nil {
		t.Fatalf("a fresh start: %v\n%s", err, out)
	}
	for _, want := range []string{"ok    database", "integrity ok", "ok    key-encryption key", "ok    SSA signing key ML-DSA-65", "ok    federation signing key",
		"ok    Super Users                1 Active", "warn  sign-in issuer", "development identity provider", "warn  SMTP", "0 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	other := filepath.Join(t.TempDir(), "other.key")
	os.WriteFile(other, []byte(strings.Repeat("ab", 32)+"\n"), 0o600)
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"no database":         {[]string{"--data-dir", t.TempDir()}, "FAIL  database"},
		"another KEK":         {[]string{"--data-dir", dataDir, "--kek-file", other}, "FAIL  key-encryption key"},
		"issuer unreachable":  {[]string{"--data-dir", dataDir, "--oidc-issuer", "http://" + dead, "--allow-private-issuer-urls", "true"}, "FAIL  sign-in issuer"},
		"SMTP unreachable":    {[]string{"--data-dir", dataDir, "--smtp-url", "smtp://" + dead}, "FAIL  SMTP"},
		"public http address": {[]string{"--data-dir", dataDir, "--base-url", "http://directory.example"}, "FAIL  base URL"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := runDoctor(c.args...)
			if exitCode(err) != 1 || !strings.Contains(out, c.want) {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// Issue 20: doctor warns when the sign-in issuer (or a bound identity
// provider) names no UserInfo endpoint, since tokens without the e-mail
// claim then cannot be used; with one, it says where the e-mail comes from.
func TestDoctorWarnsWithoutUserInfoEndpoint(t *testing.T) {
	_, dataDir := startProgram(t)
	for name, c := range map[string]struct {
		userinfo bool
		want     string
	}{
		"no UserInfo endpoint": {false, "warn  sign-in e-mail"},
		"a UserInfo endpoint":  {true, "ok    sign-in e-mail"},
	} {
		t.Run(name, func(t *testing.T) {
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				doc := map[string]any{"issuer": srv.URL, "jwks_uri": srv.URL + "/jwks"}
				if c.userinfo {
					doc["userinfo_endpoint"] = srv.URL + "/userinfo"
				}
				json.NewEncoder(w).Encode(doc)
			}))
			defer srv.Close()
			out, _ := runDoctor("--data-dir", dataDir, "--oidc-issuer", srv.URL, "--oidc-client-id", "console", "--allow-private-issuer-urls", "true")
			if !strings.Contains(out, c.want) {
				t.Fatalf("doctor output lacks %q:\n%s", c.want, out)
			}
			if !c.userinfo && (!strings.Contains(out, "no UserInfo endpoint") || !strings.Contains(out, "email claim")) {
				t.Fatalf("the warning does not say what to do:\n%s", out)
			}
		})
	}
}

// doctor fails, by name, a flag value serve would refuse to start with,
// and still checks the rest.
func TestDoctorNamesAFlagServeWouldRefuse(t *testing.T) {
	_, dataDir := startProgram(t)
	out, err := runDoctor("--data-dir", dataDir, "--log-format", "xml")
	if err == nil || !strings.Contains(out, "FAIL  flags") || !strings.Contains(out, "--log-format") || !strings.Contains(out, "ok    database") {
		t.Fatalf("doctor with --log-format xml: %v\n%s", err, out)
	}
}

// A database a newer release has migrated (a migration this binary does
// not know) is refused by serve and migrate, naming both migrations and
// what to do, and failed by doctor. All three took it as "ok" and served
// on a schema they do not know, e.g. after a release was rolled back.
func TestNewerDatabaseIsRefused(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	if err := run(context.Background(), []string{"migrate", "--data-dir", dataDir}, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dataDir, "trustframe.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (9999, '9999_from_the_future.sql', '2030-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	out, err := runDoctor("--data-dir", dataDir)
	if exitCode(err) != 1 || !strings.Contains(out, "FAIL  database") || !strings.Contains(out, "9999_from_the_future.sql") || !strings.Contains(out, "newer release") {
		t.Fatalf("doctor: %v\n%s", err, out)
	}
	for _, cmd := range [][]string{{"serve", "--addr", "127.0.0.1:0"}, {"migrate"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := run(ctx, append(cmd, "--data-dir", dataDir), func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{})
		cancel()
		if exitCode(err) != 1 || !strings.Contains(err.Error(), "9999_from_the_future.sql") || !strings.Contains(err.Error(), "newer release") {
			t.Fatalf("%v: exit %d: %v", cmd, exitCode(err), err)
		}
	}
}

// doctor's failure for another KEK says what to do, as serve's refusal
// does; it only said that the file was not the right one.
func TestDoctorAnotherKEKSaysWhatToDo(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	migrateDir(t, dataDir)
	if err := run(context.Background(), []string{"keys", "list", "--data-dir", dataDir}, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.key")
	os.WriteFile(other, []byte(strings.Repeat("ab", 32)+"\n"), 0o600)
	out, err := runDoctor("--data-dir", dataDir, "--kek-file", other)
	if exitCode(err) != 1 || !strings.Contains(out, "FAIL  key-encryption key") || !strings.Contains(out, "--kek-file") || !strings.Contains(out, "created with") {
		t.Fatalf("%v\n%s", err, out)
	}
}
