package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store/storetest"
)

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// An unreachable PostgreSQL at start: one clear error naming host and port
// (never the password), exit status 1, at once — no retry storm.
func TestServeUnreachableDatabaseExits1(t *testing.T) {
	port := closedPort(t)
	url := fmt.Sprintf("postgres://trust:s3cr3t-pw@127.0.0.1:%d/directory?sslmode=disable", port)
	for _, cmd := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--database", url},
		{"migrate", "--data-dir", t.TempDir()},
	} {
		env := map[string]string{}
		if cmd[0] == "migrate" {
			env["TRUSTFRAME_DATABASE"] = url // the environment twin
		}
		var stdout, stderr bytes.Buffer
		start := time.Now()
		err := run(context.Background(), cmd, func(k string) string { return env[k] }, nil, &stdout, &stderr)
		took := time.Since(start)
		if err == nil || exitCode(err) != 1 {
			t.Fatalf("%s: exit %d: %v", cmd[0], exitCode(err), err)
		}
		all := err.Error() + stdout.String() + stderr.String()
		if !strings.Contains(err.Error(), fmt.Sprintf("127.0.0.1:%d", port)) || !strings.Contains(err.Error(), `"directory"`) {
			t.Errorf("%s: the error does not name the server: %v", cmd[0], err)
		}
		if strings.Contains(all, "s3cr3t-pw") {
			t.Errorf("%s: the password is shown: %s", cmd[0], all)
		}
		if took > 5*time.Second {
			t.Errorf("%s: took %v to give up", cmd[0], took)
		}
	}
}

// --database is empty or a PostgreSQL URL; anything else is a usage error.
func TestDatabaseFlagRefusesOtherURLs(t *testing.T) {
	err := run(context.Background(), []string{"migrate", "--data-dir", t.TempDir(), "--database", "mysql://x@y/z"},
		func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{})
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "--database") {
		t.Fatalf("%v", err)
	}
}

// backup on PostgreSQL says what to use instead and exits 2; migrate works
// on PostgreSQL (when the tests have one).
func TestBackupAndMigrateOnPostgres(t *testing.T) {
	url := "postgres://trust:pw@127.0.0.1:1/directory"
	if storetest.Postgres() {
		url = storetest.Path(t)
	}
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"backup", "--data-dir", t.TempDir(), "--database", url, "--to", t.TempDir() + "/copy.db"},
		func(string) string { return "" }, nil, &stdout, &bytes.Buffer{})
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "pg_dump") || strings.Contains(err.Error(), ":pw@") {
		t.Fatalf("backup on PostgreSQL: exit %d: %v", exitCode(err), err)
	}
	if !storetest.Postgres() {
		return // the rest needs a PostgreSQL server (TRUSTFRAME_TEST_POSTGRES)
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"migrate", "--data-dir", t.TempDir(), "--database", url},
		func(string) string { return "" }, nil, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "PostgreSQL at ") || !strings.Contains(stdout.String(), "is at migration 00") || strings.Contains(stdout.String(), "password") {
		t.Fatalf("migrate: %s", stdout.String())
	}
}

// copy-database moves a SQLite directory into an empty PostgreSQL
// database, reports progress and what it verified, and refuses to copy
// into it again (exit 1, nothing changed).
func TestCopyDatabaseCommand(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"seed", "--data-dir", dir, "--organisations", "300"}, func(string) string { return "" }, nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	src := dir + "/trustframe.db"
	if err := run(context.Background(), []string{"copy-database", "--from", src, "--to", dir + "/other.db"}, func(string) string { return "" }, nil, &out, &bytes.Buffer{}); exitCode(err) != 2 {
		t.Fatalf("--to a file: %v", err)
	}
	if !storetest.Postgres() {
		return // the rest needs a PostgreSQL server (TRUSTFRAME_TEST_POSTGRES)
	}
	url := storetest.Path(t)
	out.Reset()
	if err := run(context.Background(), []string{"copy-database", "--from", src, "--to", url}, func(string) string { return "" }, nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "organisations: 300/300 rows") || !strings.Contains(out.String(), "copied and verified") {
		t.Fatalf("output: %s", out.String())
	}
	out.Reset()
	err := run(context.Background(), []string{"copy-database", "--from", src, "--to", url}, func(string) string { return "" }, nil, &out, &bytes.Buffer{})
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("second copy: %v", err)
	}
}

// A malformed --trusted-proxies (or TRUSTFRAME_TRUSTED_PROXIES) stops serve
// before it listens or touches the data directory: a usage error naming
// the flag and the bad value, exit status 2 like every other bad flag value.
func TestServeRefusesMalformedTrustedProxies(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
	}{
		{args: []string{"--trusted-proxies", "10.0.0.0/8,proxy.example"}},
		{args: []string{"--trusted-proxies", "10.0.0.0/33"}},
		{env: map[string]string{"TRUSTFRAME_TRUSTED_PROXIES": "192.0.2.300"}},
	} {
		dir := t.TempDir() + "/data"
		var stdout, stderr bytes.Buffer
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir}, c.args...)
		err := run(context.Background(), args, func(k string) string { return c.env[k] }, nil, &stdout, &stderr)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "--trusted-proxies") || !strings.Contains(err.Error(), "is not an IP address or CIDR prefix") {
			t.Fatalf("%v %v: exit %d: %v", c.args, c.env, exitCode(err), err)
		}
		if strings.Contains(stdout.String(), "listening on") {
			t.Fatalf("%v: it listened", c.args)
		}
		if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
			t.Fatalf("%v: the data directory was made", c.args)
		}
	}
	// A good value starts.
	base, _ := startProgram(t, "--trusted-proxies", "127.0.0.1, 10.0.0.0/8, fd00::/8")
	if resp, err := http.Get(base + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
}
