package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHelperRunProcess runs the program with the arguments of
// TRUSTFRAME_HELPER_RUN_ARGS, as main does: the error on standard error,
// its exit status.
func TestHelperRunProcess(t *testing.T) {
	args := os.Getenv("TRUSTFRAME_HELPER_RUN_ARGS")
	if args == "" {
		t.Skip("only run as a child process of runAsAnotherUser")
	}
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	if os.Getenv("TRUSTFRAME_HELPER_SIGNALS") != "" { // as main: stopped by signals
		ctx, stop = signalContext()
	}
	defer stop()
	if err := run(ctx, strings.Split(args, "\x1f"), func(string) string { return "" }, strings.NewReader(""), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "trustframe:", operatorMessage(err))
		os.Exit(exitCode(err))
	}
	os.Exit(0)
}

// runAsAnotherUser runs the program in a process of its own, as the user
// nobody (65534) when the test runs as root (root may write any file, so a
// read-only file is read-only only to someone else), and returns its
// output and exit status.
func runAsAnotherUser(t *testing.T, args ...string) (string, int) {
	t.Helper()
	bin := os.Args[0]
	cmd := exec.Command(bin, "-test.run=^TestHelperRunProcess$")
	if os.Geteuid() == 0 {
		// nobody must be able to run the test binary: a copy in a
		// directory anyone may enter.
		dir := openTempDir(t)
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(dir, "trustframe.test")
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(bin, "-test.run=^TestHelperRunProcess$")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	cmd.Env = append(os.Environ(), "TRUSTFRAME_HELPER_RUN_ARGS="+strings.Join(args, "\x1f"), "HOME="+os.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}

// openTempDir is a t.TempDir that the user nobody may enter, as may its
// parent (the test's own temporary directory).
func openTempDir(t *testing.T) string {
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	return dir
}

// A database its user may not write (the file read-only, or its directory)
// fails doctor and stops serve at once (exit 1), each saying what to make
// writable. A read-only file was opened read-only by SQLite: doctor said
// "ok" and serve started, and every write (a sign-in, a change) failed.
func TestReadOnlyDatabaseIsNamed(t *testing.T) {
	for _, c := range []struct {
		name          string
		fileMode, dir os.FileMode
	}{
		{"read-only file", 0o400, 0o700},
		{"read-only directory", 0o600, 0o500},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := openTempDir(t)
			dataDir := filepath.Join(parent, "data")
			migrateDir(t, dataDir)
			if err := run(context.Background(), []string{"keys", "list", "--data-dir", dataDir}, func(string) string { return "" }, nil, io.Discard, io.Discard); err != nil {
				t.Fatal(err)
			}
			if os.Geteuid() == 0 {
				filepath.Walk(dataDir, func(p string, _ os.FileInfo, _ error) error { return os.Chown(p, 65534, 65534) })
			}
			for _, f := range []string{"trustframe.db", "trustframe.db-wal", "trustframe.db-shm"} {
				os.Chmod(filepath.Join(dataDir, f), c.fileMode)
			}
			os.Chmod(dataDir, c.dir)
			t.Cleanup(func() { os.Chmod(dataDir, 0o700) })

			out, code := runAsAnotherUser(t, "doctor", "--data-dir", dataDir)
			if code != 1 || !strings.Contains(out, "FAIL  database") || !strings.Contains(out, "writable") {
				t.Fatalf("doctor: exit %d\n%s", code, out)
			}
			out, code = runAsAnotherUser(t, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir)
			if code != 1 || strings.Contains(out, "listening") || !strings.Contains(out, "writable") {
				t.Fatalf("serve: exit %d\n%s", code, out)
			}
			if c.dir == 0o700 {
				// What only reads still works on it: a backup.
				out, code = runAsAnotherUser(t, "backup", "--data-dir", dataDir, "--to", filepath.Join(dataDir, "copy.db"))
				if code != 0 {
					t.Fatalf("backup of a read-only database: exit %d\n%s", code, out)
				}
			}
		})
	}
}
