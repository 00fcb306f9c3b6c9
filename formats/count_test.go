package formats

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 roles", 1: "1 role", 2: "2 roles"} {
		if got := Count(n, "role", "roles"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
