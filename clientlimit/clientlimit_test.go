package clientlimit

import "testing"

// TestBlock: an IPv4 client is counted by its address, an IPv6 client by
// its /64 (mapped IPv4 as IPv4, zones dropped); anything else by itself.
func TestBlock(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":          "203.0.113.7",
		"::ffff:203.0.113.7":   "203.0.113.7",
		"2001:db8:1:2::1":      "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::9": "2001:db8:1:2::/64",
		"fe80::1%eth0":         "fe80::/64",
		"not an address":       "not an address",
	} {
		if got := Block(in); got != want {
			t.Errorf("Block(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInFlight: places are bounded per key and in all, and given back.
func TestInFlight(t *testing.T) {
	l := NewInFlight(3, 2)
	first, second, third := l.Acquire("a"), l.Acquire("a"), l.Acquire("a")
	if !first || !second || third {
		t.Fatal("a key holds at most two places")
	}
	if !l.Acquire("b") || l.Acquire("c") {
		t.Fatal("at most three places in all")
	}
	l.Release("a")
	if !l.Acquire("c") {
		t.Fatal("a place given back is taken again")
	}
}
