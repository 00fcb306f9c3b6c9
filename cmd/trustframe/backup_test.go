package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// backup --to a symbolic link is refused (exit 2) and writes nothing
// anywhere: a link to nothing made the copy at the link's target, a file
// elsewhere; a link to a file is refused as the file itself is.
func TestBackupRefusesASymbolicLink(t *testing.T) {
	dataDir := t.TempDir()
	migrateDir(t, dataDir)
	elsewhere := t.TempDir()
	existing := filepath.Join(elsewhere, "existing")
	os.WriteFile(existing, []byte("kept"), 0o644)
	for name, target := range map[string]string{
		"dangling":  filepath.Join(elsewhere, "made-through-the-link.db"),
		"to a file": existing,
	} {
		t.Run(name, func(t *testing.T) {
			link := filepath.Join(t.TempDir(), "copy.db")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			err := run(context.Background(), []string{"backup", "--data-dir", dataDir, "--to", link}, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{})
			if exitCode(err) != 2 || !strings.Contains(err.Error(), "symbolic link") {
				t.Fatalf("exit %d: %v", exitCode(err), err)
			}
			if _, err := os.Stat(filepath.Join(elsewhere, "made-through-the-link.db")); err == nil {
				t.Fatal("the copy was written at the link's target")
			}
			if b, _ := os.ReadFile(existing); string(b) != "kept" {
				t.Fatalf("the link's target was changed: %q", b)
			}
		})
	}
}
