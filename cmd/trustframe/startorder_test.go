package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store"
)

// TestRefusedStartChangesNothing: serve checks the KEK before it changes
// anything. A wrong KEK and a missing KEK file on a database whose keys are
// sealed are both refused, with no bootstrap Super User, no audit record
// and no new KEK file left behind; a missing one is called missing.
func TestRefusedStartChangesNothing(t *testing.T) {
	_, dataDir := startProgram(t) // the first start: database, KEK, keys
	kekPath := filepath.Join(dataDir, "kek.key")
	if _, err := os.Stat(kekPath); err != nil {
		t.Fatalf("the first start made no KEK: %v", err)
	}
	serve := func(extra ...string) (string, error) {
		var stderr bytes.Buffer
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--bootstrap-super-user", "late@example.com"}, extra...)
		err := run(context.Background(), args, func(string) string { return "" }, nil, &bytes.Buffer{}, &stderr)
		return stderr.String(), err
	}
	unchanged := func(t *testing.T) {
		t.Helper()
		db, err := store.Open(context.Background(), filepath.Join(dataDir, "trustframe.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.GetSuperUser(context.Background(), "late@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a refused start created the bootstrap Super User: %v", err)
		}
		recs, _, err := db.ListAudit(context.Background(), store.AuditFilter{SubjectID: "late@example.com"})
		if err != nil || len(recs) != 0 {
			t.Errorf("a refused start wrote audit records: %+v %v", recs, err)
		}
	}

	t.Run("wrong KEK", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other.key")
		os.WriteFile(other, []byte(strings.Repeat("ab", 32)+"\n"), 0o600)
		stderr, err := serve("--kek-file", other)
		if err == nil || !strings.Contains(err.Error(), "key-encryption key") {
			t.Fatalf("a wrong KEK: %v %s", err, stderr)
		}
		unchanged(t)
	})
	t.Run("missing KEK", func(t *testing.T) {
		saved := kekPath + ".saved"
		if err := os.Rename(kekPath, saved); err != nil {
			t.Fatal(err)
		}
		defer os.Rename(saved, kekPath)
		stderr, err := serve()
		if err == nil || !strings.Contains(err.Error(), "missing") || !strings.Contains(err.Error(), kekPath) {
			t.Fatalf("a missing KEK: %v %s", err, stderr)
		}
		if _, err := os.Stat(kekPath); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused start left a new KEK file behind: %v", err)
		}
		unchanged(t)
	})
}
