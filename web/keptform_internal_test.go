package web

import (
	"testing"
	"time"
)

// TestKeptFormBudgetBoundsInAll: past the number of forms or the bytes
// allowed in all, a form is not kept, whichever client sends it; a form
// that has lived keptFormLifetime frees its place and its bytes.
func TestKeptFormBudgetBoundsInAll(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := newKeptFormBudget()
	b.max, b.maxBytes = 3, 1000
	for i, c := range []string{"a", "b", "c"} {
		if !b.take(now, c, 100) {
			t.Fatalf("form %d refused", i+1)
		}
	}
	if b.take(now, "d", 1) {
		t.Fatal("a fourth form kept past the number in all")
	}
	later := now.Add(keptFormLifetime)
	if !b.take(later, "d", 900) {
		t.Fatal("the forms that lived their time still count")
	}
	if b.take(later, "e", 101) {
		t.Fatal("a form kept past the bytes in all")
	}
	if !b.take(later, "e", 100) {
		t.Fatal("a form within the bytes refused")
	}
	if b.bytes != 1000 || len(b.perClient) != 2 {
		t.Fatalf("bytes %d, clients %v", b.bytes, b.perClient)
	}
}
