package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
)

func TestHelpListsEveryFlagWithItsEnvTwin(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"serve", "--help"}, func(string) string { return "" }, nil, &out, &errb)
	if err != nil {
		t.Fatalf("--help is not an error: %v", err)
	}
	for _, want := range []string{"--addr", "TRUSTFRAME_ADDR", "127.0.0.1:8080", "TRUSTFRAME_DATA_DIR", "TRUSTFRAME_BASE_URL",
		"TRUSTFRAME_OIDC_ISSUER", "TRUSTFRAME_BOOTSTRAP_SUPER_USER", "admin@example.com", "TRUSTFRAME_DEV_IDP_ALLOW_REMOTE", "TRUSTFRAME_SMTP_URL"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestEverySubcommandHelp: --help (and -h) on every subcommand prints one
// format on standard output (usage line, what it does, flags with their
// environment twins) and exits 0, with nothing on standard error.
func TestEverySubcommandHelp(t *testing.T) {
	for _, c := range commands {
		for _, flagName := range []string{"--help", "-h"} {
			var out, errb bytes.Buffer
			err := run(context.Background(), []string{c.name, flagName}, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
			if err != nil {
				t.Errorf("%s %s: err %v", c.name, flagName, err)
			}
			if errb.Len() != 0 {
				t.Errorf("%s %s wrote to stderr: %q", c.name, flagName, errb.String())
			}
			help := out.String()
			if !strings.HasPrefix(help, "Usage: trustframe "+c.name) || !strings.Contains(help, c.summary) {
				t.Errorf("%s %s: help %q", c.name, flagName, help)
			}
			if c.name != "version" && !strings.Contains(help, "(env TRUSTFRAME_") {
				t.Errorf("%s %s: no flags with env twins in %q", c.name, flagName, help)
			}
		}
	}
	// A subcommand of keys has its own flags.
	var out bytes.Buffer
	if err := run(context.Background(), []string{"keys", "rotate", "--help"}, func(string) string { return "" }, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "Usage: trustframe keys rotate [flags]") || !strings.Contains(out.String(), "TRUSTFRAME_ALG") {
		t.Errorf("keys rotate --help: %q", out.String())
	}
	// A wrong flag is still a usage error (exit 2) with the help on stderr.
	var errb bytes.Buffer
	err := run(context.Background(), []string{"backup", "--nope"}, func(string) string { return "" }, nil, io.Discard, &errb)
	if exitCode(err) != 2 || !strings.Contains(errb.String(), "Usage: trustframe backup") {
		t.Errorf("bad flag: exit %d, stderr %q", exitCode(err), errb.String())
	}
}

func TestVersionNamesTheCommit(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, func(string) string { return "" }, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"trustframe " + version, "module ", "commit ", "go1."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("version %q lacks %q", out.String(), want)
		}
	}
}

func TestEnvTwinsAndFlagsPrecedence(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"TRUSTFRAME_ADDR": "not-an-address", "TRUSTFRAME_DATA_DIR": dir}
	err := run(context.Background(), []string{"serve"}, func(k string) string { return env[k] }, nil, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "not-an-address") {
		t.Fatalf("env twin not used: %v", err)
	}
	env["TRUSTFRAME_RATE_LIMIT"] = "many"
	err = run(context.Background(), []string{"serve"}, func(k string) string { return env[k] }, nil, &bytes.Buffer{}, &bytes.Buffer{})
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "TRUSTFRAME_RATE_LIMIT") {
		t.Fatalf("bad env value: %v", err)
	}
}

func TestServeRefusesBadExpiryNoticeDays(t *testing.T) {
	for _, v := range []string{"-1", "366"} {
		err := run(context.Background(), []string{"serve", "--data-dir", t.TempDir(), "--expiry-notice-days", v}, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{})
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "--expiry-notice-days") {
			t.Errorf("%s: %v", v, err)
		}
	}
}

// TestServeRefusesUnknownLogFormat: --log-format is text or json (the
// README's words); anything else stops serve with a usage error before it
// touches the data directory, as every other bad flag value does (it was
// taken silently as text).
func TestServeRefusesUnknownLogFormat(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
	}{
		{args: []string{"--log-format", "xml"}},
		{args: []string{"--log-format", "JSON"}},
		{env: map[string]string{"TRUSTFRAME_LOG_FORMAT": "logfmt"}},
	} {
		dir := t.TempDir() + "/data"
		var stdout bytes.Buffer
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir}, c.args...)
		// A cancelled context: a serve that took the value would stop at once
		// (and fail here) rather than serve until the test times out.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := run(ctx, args, func(k string) string { return c.env[k] }, nil, &stdout, &bytes.Buffer{})
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "--log-format") || !strings.Contains(err.Error(), "text or json") {
			t.Fatalf("%v %v: exit %d: %v", c.args, c.env, exitCode(err), err)
		}
		if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
			t.Fatalf("%v %v: the data directory was made", c.args, c.env)
		}
	}
}

// TestServeRefusesOutOfRangeValues: a value serve cannot use is a usage
// error (exit 2) naming the flag, before the data directory is touched.
// Bad algorithms and RSA sizes stopped the start only after the database,
// KEK and SSA keys were made (exit 1); a zero or negative lifetime, window
// or rate limit was taken and served.
func TestServeRefusesOutOfRangeValues(t *testing.T) {
	for _, args := range [][]string{
		{"--ssa-signing-algs", "PS256,RS256"},
		{"--ssa-rsa-bits", "1024"},
		{"--federation-signing-alg", "RS999"},
		{"--federation-statement-lifetime", "0s"},
		{"--federation-statement-lifetime", "-1h"},
		{"--federation-key-prepublish", "-1h"},
		{"--dpop-window", "0s"},
		{"--dpop-skew", "-1s"},
		{"--rate-limit", "-5"},
		{"--api-rate-limit", "-1"},
		{"--max-long-polls", "0"},
		{"--api-token-types", ","},
	} {
		refusedBeforeAnythingIsMade(t, []string{"serve", "--addr", "127.0.0.1:0"}, args)
	}
}

// TestServeRefusesBadAddressesFirst: an --addr or --metrics-addr that is not
// host:port, a --base-url that is not http(s), or a --federation-entity-id
// that is not an http(s) URL without query or fragment (OpenID Federation's
// entity identifier), or a --kek-file in a directory that does not exist,
// is a usage error (exit 2) naming the flag before anything is made; the
// entity ID was taken and published as it was, and the KEK's directory
// was found missing only after the database had been made. They stopped the start only
// after the database (and, for --metrics-addr, the KEK, the signing keys
// and the bootstrap Super User) had been made, with exit status 1.
func TestServeRefusesBadAddressesFirst(t *testing.T) {
	for _, args := range [][]string{
		{"--metrics-addr", "bad"},
		{"--metrics-addr", "127.0.0.1:notaport"},
		{"--addr", "nonsense", "--dev-idp-allow-remote"},
		{"--base-url", "ftp://directory.example.org", "--dev-idp-allow-remote"},
		{"--base-url", "directory.example.org", "--oidc-issuer", "https://login.example.org", "--oidc-client-id", "tf"},
		{"--federation-entity-id", "https://directory.example.org/#anchor"},
		{"--federation-entity-id", "https://directory.example.org/?x=1"},
		{"--federation-entity-id", "directory.example.org"},
		{"--kek-file", filepath.Join(t.TempDir(), "missing", "kek.key")},
	} {
		refusedBeforeAnythingIsMade(t, []string{"serve", "--addr", "127.0.0.1:0"}, args)
	}
}

// TestServeRefusesLookAlikeBootstrapSuperUser: --bootstrap-super-user is
// checked as every administrator's e-mail (formats.ValidAdminEmail): an
// address with two @, or one that only looks like an ASCII one (fullwidth
// letters, the Kelvin sign), is a usage error before anything is made.
func TestServeRefusesLookAlikeBootstrapSuperUser(t *testing.T) {
	for _, email := range []string{"admin@example.com@partner.example", "ａdmin@example.com", "\u212Aate@example.com"} {
		refusedBeforeAnythingIsMade(t, []string{"serve", "--addr", "127.0.0.1:0"}, []string{"--bootstrap-super-user", email})
	}
}

// refusedBeforeAnythingIsMade runs cmd with a fresh --data-dir and args and
// checks a usage error (exit 2) naming args[0], with no data directory
// made. Its context is cancelled: a command that took the value stops at
// once and fails here.
func refusedBeforeAnythingIsMade(t *testing.T, cmd, args []string) {
	t.Helper()
	dir := t.TempDir() + "/data"
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := run(ctx, append(append(cmd, "--data-dir", dir), args...), func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), args[0]) {
		t.Errorf("%v %v: exit %d: %v", cmd, args, exitCode(err), err)
		return
	}
	if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
		t.Errorf("%v %v: the data directory was made", cmd, args)
	}
}

func TestUnknownCommand(t *testing.T) {
	err := run(context.Background(), []string{"frobnicate"}, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{})
	if exitCode(err) != 2 {
		t.Fatalf("%v", err)
	}
}

func TestServeEmbeddedDefaultAndMigrate(t *testing.T) {
	base, dataDir := startProgram(t)
	for _, p := range []string{"/healthz", "/readyz", "/dev/idp/.well-known/openid-configuration"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", p, resp.StatusCode)
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir, "trustframe.db")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dataDir, "dev-idp-key.pem")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("dev idp key: %v %v", st, err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"migrate", "--data-dir", dataDir}, func(string) string { return "" }, nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "is at migration 00") || !strings.Contains(out.String(), "applied") {
		t.Fatalf("migrate: %s", out.String())
	}
}

// keys on a directory without a database (a mistyped --data-dir) is a
// usage error that makes nothing; it made a new database, KEK and keys
// there, and a rotation in it changed nothing the service signs with.
func TestKeysRefusesADirectoryWithoutADatabase(t *testing.T) {
	for _, sub := range [][]string{{"list"}, {"rotate"}, {"retire", "--kid", "x"}, {"list", "--federation"}} {
		dir := filepath.Join(t.TempDir(), "data")
		err := run(context.Background(), append(append([]string{"keys"}, sub...), "--data-dir", dir), func(string) string { return "" }, nil, io.Discard, io.Discard)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "holds no database") || !strings.Contains(err.Error(), "migrate --data-dir "+dir) {
			t.Fatalf("keys %v: exit %d: %v", sub, exitCode(err), err)
		}
		if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
			t.Fatalf("keys %v: the data directory was made", sub)
		}
	}
	// After migrate (an empty database, as before serve's first start)
	// keys makes the first keys.
	dir := filepath.Join(t.TempDir(), "data")
	migrateDir(t, dir)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"keys", "list", "--data-dir", dir}, func(string) string { return "" }, nil, &out, io.Discard); err != nil || strings.Count(out.String(), "Active") != 4 {
		t.Fatalf("keys list after migrate: %v\n%s", err, out.String())
	}
}

func TestKeysCommand(t *testing.T) {
	dir := t.TempDir()
	migrateDir(t, dir)
	run1 := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"keys"}, append(args, "--data-dir", dir)...), func(string) string { return "" }, nil, &out, &bytes.Buffer{})
		return out.String(), err
	}
	out, err := run1("list")
	if err != nil || strings.Count(out, "Active") != 4 {
		t.Fatalf("first list makes one key per algorithm: %v\n%s", err, out)
	}
	out, err = run1("rotate", "--alg", "ML-DSA-87")
	if err != nil || !strings.Contains(out, "ML-DSA-87: new key") || strings.Count(out, "ML-DSA-87") != 3 {
		t.Fatalf("rotate: %v\n%s", err, out)
	}
	if _, err := run1("rotate", "--alg", "HS256"); exitCode(err) != 2 {
		t.Fatalf("unknown alg: %v", err)
	}
	// Another KEK: refused, nothing changed.
	var errb bytes.Buffer
	err = run(context.Background(), []string{"keys", "list", "--data-dir", dir, "--kek-file", filepath.Join(dir, "other.key")}, func(string) string { return "" }, nil, &bytes.Buffer{}, &errb)
	if err == nil || !strings.Contains(err.Error(), "key-encryption key") {
		t.Fatalf("other KEK: %v", err)
	}
	out, _ = run1("list")
	if strings.Count(out, "Active") != 5 {
		t.Fatalf("keys changed after a refused start:\n%s", out)
	}
	// Federation keys (docs/design.md §13): made at first use, ES256, rotated.
	out, err = run1("list", "--federation")
	if err != nil || strings.Count(out, "ES256") != 1 || strings.Count(out, "Active") != 1 {
		t.Fatalf("federation list: %v\n%s", err, out)
	}
	out, err = run1("rotate", "--federation")
	if err != nil || !strings.Contains(out, "federation: new key") || strings.Count(out, "Active") != 1 || strings.Count(out, "Retired") != 1 {
		t.Fatalf("federation rotate: %v\n%s", err, out)
	}
}

func TestBackupWhileServing(t *testing.T) {
	base, dataDir := startProgram(t)
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	to := filepath.Join(t.TempDir(), "copy.db")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"backup", "--data-dir", dataDir, "--to", to}, func(string) string { return "" }, nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(to)
	if err != nil || st.Size() == 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("copy: %v %v", st, err)
	}
	// The copy opens and holds the bootstrap Super User.
	dir2 := t.TempDir()
	os.Rename(to, filepath.Join(dir2, "trustframe.db"))
	copyDB, err := store.Open(context.Background(), filepath.Join(dir2, "trustframe.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := copyDB.GetSuperUser(context.Background(), "admin@example.com")
	copyDB.Close()
	if err != nil || u.Status != "Active" {
		t.Fatalf("the copy lacks the bootstrap Super User: %v", err)
	}
	if err := run(context.Background(), []string{"backup", "--data-dir", dataDir, "--to", filepath.Join(dir2, "trustframe.db")}, func(string) string { return "" }, nil, &out, &bytes.Buffer{}); exitCode(err) != 2 {
		t.Fatalf("backup over an existing file: %v", err)
	}
}

// backup --to a file in a directory that does not exist is refused
// (exit 2) naming the directory, before the database is opened; it was
// SQLite's "unable to open database file ... (14)" with exit status 1.
func TestBackupToAMissingDirectory(t *testing.T) {
	dataDir := t.TempDir()
	if err := run(context.Background(), []string{"migrate", "--data-dir", dataDir}, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "backups")
	err := run(context.Background(), []string{"backup", "--data-dir", dataDir, "--to", filepath.Join(missing, "copy.db")}, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{})
	if exitCode(err) != 2 || !strings.Contains(err.Error(), missing+" does not exist") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
}

func TestEscapePath(t *testing.T) {
	for in, want := range map[string]string{
		"/users/super/ops#1@example.com":       "/users/super/ops%231@example.com",
		"/users/super/a+b@example.com":         "/users/super/a+b@example.com",
		"/organisations?q=acme bank&page=2":    "/organisations?page=2&q=acme+bank",
		"/references/contact-types/Legal Team": "/references/contact-types/Legal%20Team",
		"/users/super/ops%231@example.com":     "/users/super/ops%231@example.com",
	} {
		if got := escapePath(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// Restore as the README says: the copy in place of trustframe.db and the
// same KEK give back the same service (its SSA signing keys included);
// another KEK is refused at start.
func TestRestoreFromBackup(t *testing.T) {
	base, dataDir := startProgram(t)
	keyset := func(base string) string {
		resp, err := http.Get(base + "/keystore/ssa.jwks")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	before := keyset(base)
	restored := t.TempDir()
	if err := run(context.Background(), []string{"backup", "--data-dir", dataDir, "--to", filepath.Join(restored, "trustframe.db")},
		func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	kek, _ := os.ReadFile(filepath.Join(dataDir, "kek.key"))
	os.WriteFile(filepath.Join(restored, "kek.key"), kek, 0o600)
	base2, _ := startProgram(t, "--data-dir", restored)
	if after := keyset(base2); after != before {
		t.Fatalf("the restored service publishes other keys:\n%s\n%s", before, after)
	}
	// Without the KEK the sealed keys cannot open: refused (and no new KEK is made).
	other := t.TempDir()
	run(context.Background(), []string{"backup", "--data-dir", dataDir, "--to", filepath.Join(other, "trustframe.db")}, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{})
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", other}, func(string) string { return "" }, nil, &bytes.Buffer{}, &stderr)
	if err == nil || !strings.Contains(err.Error()+stderr.String(), "KEK") {
		t.Fatalf("a start with another KEK: %v %s", err, stderr.String())
	}
}

// --metrics-addr serves the metrics on its own listener; the public one has
// no /metrics.
func TestMetricsOnAPrivateListener(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	base, _ := startProgram(t, "--metrics-addr", addr)
	if resp, err := http.Get(base + "/healthz"); err == nil {
		resp.Body.Close()
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !regexp.MustCompile(`(?m)^trustframe_build_info\{.*version="`+regexp.QuoteMeta(version)+`".*\} 1$`).Match(b) || !strings.Contains(string(b), `route="/healthz"`) {
		t.Fatalf("metrics: %d %s", resp.StatusCode, b)
	}
	if resp, _ := http.Get(base + "/metrics"); resp.StatusCode != 404 {
		t.Fatalf("/metrics on the public listener: %d", resp.StatusCode)
	}
	// The profiler is on the private listener only.
	for path, want := range map[string]string{"/debug/pprof/": "goroutine", "/debug/pprof/goroutine?debug=1": "goroutine profile:", "/debug/pprof/heap?debug=1": "heap profile:"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Fatalf("%s: %d %.300s", path, resp.StatusCode, b)
		}
	}
	if resp, _ := http.Get(base + "/debug/pprof/"); resp.StatusCode != 404 {
		t.Fatalf("/debug/pprof/ on the public listener: %d", resp.StatusCode)
	}
}

// A keys command line that cannot be carried out is refused before the
// database, the KEK and the signing keys are made: retire without --kid,
// an unknown --alg, retiring federation keys, and an unknown algorithm in
// --ssa-signing-algs, which is named. Each was refused (exit 2) only after
// a fresh data directory had been given a database, a KEK and keys.
func TestKeysRefusesABadCommandLineFirst(t *testing.T) {
	for _, c := range []struct{ cmd, args []string }{
		{[]string{"keys", "retire"}, []string{"--kid", ""}},
		{[]string{"keys", "rotate"}, []string{"--alg", "RS256"}},
		{[]string{"keys", "retire"}, []string{"--federation", "--kid", "x"}},
		{[]string{"keys", "list"}, []string{"--ssa-signing-algs", "PS256,FOO"}},
	} {
		refusedBeforeAnythingIsMade(t, c.cmd, c.args)
	}
}

// keys retire of a kid the database does not hold names the kid and where
// to find the right one; it said "store: not found".
func TestKeysRetireUnknownKid(t *testing.T) {
	dir := t.TempDir()
	migrateDir(t, dir)
	var errb bytes.Buffer
	if err := run(context.Background(), []string{"keys", "list", "--data-dir", dir}, func(string) string { return "" }, nil, &bytes.Buffer{}, &errb); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"keys", "retire", "--data-dir", dir, "--kid", "no-such-kid"}, func(string) string { return "" }, nil, &bytes.Buffer{}, &errb)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), `"no-such-kid"`) || !strings.Contains(err.Error(), "keys list") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
}

// keys refuses, as serve does, a value it cannot use, before it opens (or
// makes) a database.
func TestKeysRefusesOutOfRangeValuesFirst(t *testing.T) {
	for _, args := range [][]string{
		{"--ssa-rsa-bits", "1024"},
		{"--federation-signing-alg", "RS999"},
		{"--federation-statement-lifetime", "0s"},
	} {
		refusedBeforeAnythingIsMade(t, []string{"keys", "rotate"}, args)
	}
}

// A flag value of the wrong kind, on the command line or in its
// environment twin, is refused (exit 2) naming the flag as --name and
// the kind of value it wants; both said only "parse error" (the command
// line as "-rate-limit").
func TestFlagValueOfTheWrongKindSaysWhatItWants(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want []string
	}{
		{args: []string{"--rate-limit", "abc"}, want: []string{`--rate-limit "abc"`, "whole number"}},
		{args: []string{"--dpop-window", "5"}, want: []string{`--dpop-window "5"`, "duration", "60s"}},
		{args: []string{"--dpop-nonce=maybe"}, want: []string{`--dpop-nonce "maybe"`, "true or false"}},
		{env: map[string]string{"TRUSTFRAME_RATE_LIMIT": "abc"}, want: []string{`TRUSTFRAME_RATE_LIMIT="abc"`, "--rate-limit", "whole number"}},
		{env: map[string]string{"TRUSTFRAME_WEBHOOK_TIMEOUT": "10"}, want: []string{`TRUSTFRAME_WEBHOOK_TIMEOUT="10"`, "--webhook-timeout", "duration"}},
		{env: map[string]string{"TRUSTFRAME_DPOP_NONCE": "yes please"}, want: []string{"--dpop-nonce", "true or false"}},
	} {
		if c.args == nil { // the same through the commands that take flags among their arguments
			err := run(context.Background(), []string{"load", "--requests", "x", "/users/super"}, func(string) string { return "" }, nil, &bytes.Buffer{}, io.Discard)
			if exitCode(err) != 2 || !strings.Contains(err.Error(), `--requests "x": want a whole number`) {
				t.Errorf("load --requests x: exit %d: %v", exitCode(err), err)
			}
		}
		dir := t.TempDir() + "/data"
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir}, c.args...), func(k string) string { return c.env[k] }, nil, &bytes.Buffer{}, io.Discard)
		if exitCode(err) != 2 {
			t.Errorf("%v %v: exit %d: %v", c.args, c.env, exitCode(err), err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v %v: %q lacks %q", c.args, c.env, err, w)
			}
		}
		if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
			t.Errorf("%v %v: the data directory was made", c.args, c.env)
		}
	}
}

// The command prints an error without the Go package names at the start
// of its parts ("store: open …: store: the database is newer …"), and with
// a URL's password redacted.
func TestOperatorMessage(t *testing.T) {
	for in, want := range map[string]string{
		"store: open /x/trustframe.db: store: the database is busy":  "open /x/trustframe.db: the database is busy",
		"ssa: the key-encryption key does not open the keys":         "the key-encryption key does not open the keys",
		"cannot reach postgres://u:secret@db/x: federation: timeout": "cannot reach postgres://REDACTED@db/x: timeout",
		"restore the datastore: it is fine":                          "restore the datastore: it is fine",
		"federation: store: the database is busy":                    "the database is busy",
		"--base-url: issuer: must be https":                          "--base-url: issuer: must be https",
	} {
		if got := operatorMessage(errors.New(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// keys prepare --federation publishes the next federation key (listed as
// Next, not signing); a second prepare is refused naming it; activate
// before the instant stored when it was prepared is refused naming that
// instant, also when activate is given another --federation-key-prepublish
// than prepare had (the flag is the one in force at preparation, not at
// activation); a key prepared with --federation-key-prepublish 0 signs at
// once whatever activate's flags; activate with nothing prepared is
// refused; prepare without --federation is a usage error (docs/design.md
// §13).
func TestKeysFederationStagedRollover(t *testing.T) {
	dir := t.TempDir()
	migrateDir(t, dir)
	var errOut bytes.Buffer
	run1 := func(args ...string) (string, error) {
		var out bytes.Buffer
		errOut.Reset()
		err := run(context.Background(), append([]string{"keys"}, append(args, "--data-dir", dir)...), func(string) string { return "" }, nil, &out, &errOut)
		return out.String(), err
	}
	out, err := run1("prepare", "--federation", "--federation-key-prepublish", "3h")
	if err != nil || !strings.Contains(out, "next key") || strings.Count(out, "Next") != 1 || strings.Count(out, "Active") != 1 {
		t.Fatalf("prepare: %v\n%s", err, out)
	}
	nextFrom := func() time.Time {
		t.Helper()
		db, err := store.Open(context.Background(), filepath.Join(dir, "trustframe.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		nk, err := db.NextFederationKey(context.Background())
		if err != nil || nk.MaySignFrom == nil {
			t.Fatalf("next key %+v %v: no instant stored", nk, err)
		}
		if d := nk.MaySignFrom.Sub(nk.CreatedAt); d != 3*time.Hour {
			t.Fatalf("stored instant %s after the creation, want prepare's 3h", d)
		}
		return *nk.MaySignFrom
	}
	from := nextFrom().UTC().Format(time.RFC3339)
	if !strings.Contains(out, "may sign from "+from) {
		t.Fatalf("prepare does not say the stored instant %s:\n%s", from, out)
	}
	// doctor says which key signs and the stored instant the next one
	// may sign from, whatever its own flags.
	if doc, _ := runDoctor("--data-dir", dir, "--federation-key-prepublish", "0s"); !strings.Contains(doc, "ok    federation signing key") || !strings.Contains(doc, "ok    federation next key") ||
		!strings.Contains(doc, "may sign from "+from) {
		t.Fatalf("doctor during a rollover, want may sign from %s:\n%s", from, doc)
	}
	if _, err := run1("prepare", "--federation"); exitCode(err) != 1 || !strings.Contains(err.Error(), "already published as the next key") {
		t.Fatalf("second prepare: exit %d: %v", exitCode(err), err)
	}
	for _, flags := range [][]string{nil, {"--federation-key-prepublish", "0s"}, {"--federation-statement-lifetime", "1s"}} {
		if _, err := run1(append([]string{"activate", "--federation"}, flags...)...); exitCode(err) != 1 || !strings.Contains(err.Error(), "may sign from "+from) {
			t.Fatalf("activate %v before the stored instant: exit %d: %v, want a refusal naming %s", flags, exitCode(err), err, from)
		}
	}
	if _, err := run1("activate", "--federation", "--federation-key-prepublish", "0s"); err == nil || !strings.Contains(errOut.String(), "--federation-key-prepublish is ignored") {
		t.Fatalf("activate with --federation-key-prepublish does not say it is ignored: %v\n%s", err, errOut.String())
	}

	// A key prepared to sign at once signs, whatever activate's flags.
	dir = t.TempDir()
	migrateDir(t, dir)
	if _, err := run1("prepare", "--federation", "--federation-key-prepublish", "0s"); err != nil {
		t.Fatal(err)
	}
	out, err = run1("activate", "--federation", "--federation-key-prepublish", "48h")
	if err != nil || !strings.Contains(out, "signs from now on") || strings.Count(out, "Next") != 0 || strings.Count(out, "Active") != 1 || strings.Count(out, "Retired") != 1 {
		t.Fatalf("activate: %v\n%s", err, out)
	}
	if _, err := run1("activate", "--federation"); exitCode(err) != 1 || !strings.Contains(err.Error(), "prepare one first") {
		t.Fatalf("activate without a next key: exit %d: %v", exitCode(err), err)
	}
	for _, args := range [][]string{{"prepare"}, {"activate"}, {"activate", "--federation", "--federation-key-prepublish", "-1h"}} {
		if _, err := run1(args...); exitCode(err) != 2 {
			t.Fatalf("keys %v: exit %d: %v, want a usage error", args, exitCode(err), err)
		}
	}
}

// A next key prepared before migration 0031 has no stored instant (the
// migration leaves it NULL): doctor says so, and keys activate reckons it
// as before, from its creation time and its own --federation-key-prepublish
// (docs/decisions.md, "Federation keys roll over in two steps").
func TestKeysFederationActivatesAKeyPreparedBefore0031(t *testing.T) {
	dir := t.TempDir()
	migrateDir(t, dir)
	var errOut bytes.Buffer
	run1 := func(args ...string) (string, error) {
		var out bytes.Buffer
		errOut.Reset()
		err := run(context.Background(), append([]string{"keys"}, append(args, "--data-dir", dir)...), func(string) string { return "" }, nil, &out, &errOut)
		return out.String(), err
	}
	if _, err := run1("prepare", "--federation", "--federation-key-prepublish", "0s"); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(dir, "trustframe.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(context.Background(), `UPDATE federation_keys SET may_sign_from = NULL`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if doc, _ := runDoctor("--data-dir", dir); !strings.Contains(doc, "prepared before migration 0031") {
		t.Fatalf("doctor on a key prepared before 0031:\n%s", doc)
	}
	if _, err := run1("activate", "--federation"); exitCode(err) != 1 || !strings.Contains(err.Error(), "may sign from") {
		t.Fatalf("activate with the default prepublish time: exit %d: %v", exitCode(err), err)
	}
	out, err := run1("activate", "--federation", "--federation-key-prepublish", "0s")
	if err != nil || !strings.Contains(out, "signs from now on") || strings.Contains(errOut.String(), "ignored") {
		t.Fatalf("activate with --federation-key-prepublish 0s: %v\n%s\n%s", err, out, errOut.String())
	}
}
