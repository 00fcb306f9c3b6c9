package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// copy-database refuses a SQLite file a serve is running on, before it
// opens either database: rows written during the copy were left behind.
// A serve does not start while a copy holds the file.
func TestCopyDatabaseRefusesARunningServe(t *testing.T) {
	_, dataDir := startProgram(t)
	from := filepath.Join(dataDir, "trustframe.db")
	// The target is never reached: the refusal comes first.
	unreachable := "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"
	err := run(context.Background(), []string{"copy-database", "--from", from, "--to", unreachable}, func(string) string { return "" }, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "trustframe serve is running on") || !strings.Contains(err.Error(), "stop it first") {
		t.Fatalf("copy beside serve: %v", err)
	}

	// Without a serve the check passes (the unreachable target then fails),
	// and while a copy holds the file serve refuses to start.
	other := t.TempDir()
	migrateDir(t, other)
	otherDB := filepath.Join(other, "trustframe.db")
	err = run(context.Background(), []string{"copy-database", "--from", otherDB, "--to", unreachable}, func(string) string { return "" }, nil, io.Discard, io.Discard)
	if err == nil || strings.Contains(err.Error(), "serve is running") {
		t.Fatalf("copy without serve: %v", err)
	}
	lock, err := takeServingLock(otherDB, true)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.release()
	var errb bytes.Buffer
	err = run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", other}, func(string) string { return "" }, nil, io.Discard, &errb)
	if err == nil || !strings.Contains(err.Error(), "copy-database is copying this database") {
		t.Fatalf("serve during a copy: %v", err)
	}
	if _, err := takeServingLock(otherDB, true); !errors.Is(err, errLockHeld) {
		t.Fatalf("a second exclusive lock: %v", err)
	}
}
