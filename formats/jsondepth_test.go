package formats

import (
	"strings"
	"testing"
)

// TestJSONTooDeepCountsBracketsOutsideStrings: nesting up to MaxJSONDepth
// passes, one level more is refused at the bracket that goes too deep;
// brackets in strings, escaped quotes and closed levels do not count.
func TestJSONTooDeepCountsBracketsOutsideStrings(t *testing.T) {
	nest := func(n int) string {
		return strings.Repeat(`{"a":[`, n/2) + strings.Repeat("[", n%2) + "1" + strings.Repeat("]", n%2) + strings.Repeat("]}", n/2)
	}
	for _, c := range []struct {
		name string
		json string
		deep bool
		at   int
	}{
		{"flat", `{"a":1,"b":[1,2]}`, false, 0},
		{"at the limit", nest(MaxJSONDepth), false, 0},
		{"one level more", nest(MaxJSONDepth + 1), true, 6 * (MaxJSONDepth / 2)},
		{"brackets in a string", `{"a":"` + strings.Repeat("[{", 100) + `"}`, false, 0},
		{"an escaped quote keeps the string open", `{"a":"\"` + strings.Repeat("[", 100) + `"}`, false, 0},
		{"an escaped backslash ends before the quote", `["\\"` + strings.Repeat(",[", MaxJSONDepth) + `]`, true, 5 + 2*MaxJSONDepth - 1},
		{"siblings are not deeper", strings.Repeat(nest(MaxJSONDepth-1)+",", 50), false, 0},
		{"closing more than opened", strings.Repeat("]", 100) + nest(MaxJSONDepth+1), true, 100 + 6*(MaxJSONDepth/2)},
		{"not JSON", `{{{`, false, 0},
	} {
		at, deep := JSONTooDeep([]byte(c.json))
		if deep != c.deep || (deep && at != c.at) {
			t.Errorf("%s: JSONTooDeep = %d, %v; want %d, %v", c.name, at, deep, c.at, c.deep)
		}
	}
}

// TestJSONTooDeepAllocatesNothing: the check runs before anything else
// reads a client's JSON, on bodies of up to 1 MiB.
func TestJSONTooDeepAllocatesNothing(t *testing.T) {
	b := []byte(strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000))
	if n := testing.AllocsPerRun(10, func() { JSONTooDeep(b) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
