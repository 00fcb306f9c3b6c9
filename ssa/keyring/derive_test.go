package keyring_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/trustframe/trustframe/ssa/keyring"
)

// TestKEKDerive: the same KEK file gives the same derived key wherever it
// is loaded; another purpose or another KEK gives another key.
func TestKEKDerive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kek.key")
	k1, err := keyring.LoadOrCreateKEK(path)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := keyring.LoadKEK(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := keyring.LoadOrCreateKEK(filepath.Join(t.TempDir(), "kek.key"))
	if err != nil {
		t.Fatal(err)
	}
	a := k1.Derive("dpop nonce")
	if len(a) != 32 || !bytes.Equal(a, k2.Derive("dpop nonce")) {
		t.Fatal("the same KEK derived different keys")
	}
	if bytes.Equal(a, k1.Derive("something else")) || bytes.Equal(a, other.Derive("dpop nonce")) {
		t.Fatal("another purpose or another KEK derived the same key")
	}
}
