package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doctor fails (exit 1) when the KEK or the SQLite database (its -wal and
// -shm too) is open to its group or other users, naming the file and the
// fix; it passed them with a warning and exit 0.
func TestDoctorFailsSecretFilesOpenToOthers(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	migrateDir(t, dataDir)
	// keys list makes the KEK (0600) and the signing keys, as serve would.
	if err := run(context.Background(), []string{"keys", "list", "--data-dir", dataDir}, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if out, err := runDoctor("--data-dir", dataDir); err != nil || strings.Contains(out, "file mode") {
		t.Fatalf("files of mode 0600: %v\n%s", err, out)
	}
	db, kek := filepath.Join(dataDir, "trustframe.db"), filepath.Join(dataDir, "kek.key")
	for name, c := range map[string]struct {
		path string
		mode os.FileMode
	}{
		"KEK readable by others":      {kek, 0o644},
		"KEK readable by the group":   {kek, 0o640},
		"database writable by group":  {db, 0o620},
		"database readable by others": {db, 0o604},
		"write-ahead log":             {db + "-wal", 0o644},
	} {
		t.Run(name, func(t *testing.T) {
			if strings.HasSuffix(c.path, "-wal") {
				// A connection that stays open keeps the log (and its mode).
				conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=journal_mode(WAL)")
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if _, err := conn.Exec(`CREATE TABLE kept_open(x)`); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(c.path, c.mode); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(c.path, 0o600)
			out, err := runDoctor("--data-dir", dataDir)
			if exitCode(err) != 1 || !strings.Contains(out, "FAIL  file mode") || !strings.Contains(out, "chmod 600 "+c.path) {
				t.Fatalf("exit %d: %v\n%s", exitCode(err), err, out)
			}
		})
	}
}

// serve starts with a KEK or database open to others (a start that worked
// before still works) and says so in its log at start, naming the file
// and the fix; it said nothing.
func TestServeWarnsOfSecretFilesOpenToOthers(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	migrateDir(t, dataDir)
	db := filepath.Join(dataDir, "trustframe.db")
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	cancel, out, done := startServe(t, true, "--addr", "127.0.0.1:0", "--data-dir", dataDir)
	said(t, out, "listening on ")
	stopsPromptly(t, cancel, done)
	log := out.String()
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "chmod 600 "+db) || !strings.Contains(log, "file="+db) {
		t.Fatalf("the log does not name the database open to others:\n%s", log)
	}
	if strings.Contains(log, "chmod 600 "+filepath.Join(dataDir, "kek.key")) {
		t.Fatalf("the KEK, made 0600, is named too:\n%s", log)
	}
}
