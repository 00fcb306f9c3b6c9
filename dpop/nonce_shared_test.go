package dpop

import (
	"testing"
	"time"
)

// TestNoncesWithSharedKey: instances that share the nonce key accept each
// other's nonces; a nonce made with another key is refused.
func TestNoncesWithSharedKey(t *testing.T) {
	now := func() time.Time { return time.Unix(1_800_000_000, 0) }
	key := []byte("0123456789abcdef0123456789abcdef")
	a, b := NewNoncesWithKey(key, time.Minute, now), NewNoncesWithKey(key, time.Minute, now)
	if n := a.New(); !b.Valid(n) {
		t.Fatal("a nonce of an instance with the same key was refused")
	}
	other := NewNoncesWithKey([]byte("another key, 32 bytes long......"), time.Minute, now)
	if other.Valid(a.New()) {
		t.Fatal("a nonce made with another key was accepted")
	}
	c := NewNonces(time.Minute, now)
	c.SetKey(key)
	if !c.Valid(a.New()) {
		t.Fatal("SetKey did not take the shared key")
	}
}
