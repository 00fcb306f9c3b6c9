package formats

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzJSONTooDeep: on JSON that encoding/json reads, JSONTooDeep says too
// deep exactly when the decoder's own tokens nest deeper than MaxJSONDepth.
func FuzzJSONTooDeep(f *testing.F) {
	for _, n := range []int{MaxJSONDepth, MaxJSONDepth + 1, 5000} {
		f.Add(strings.Repeat("[", n) + strings.Repeat("]", n))
		f.Add(strings.Repeat(`{"a":`, n) + `"]}"` + strings.Repeat("}", n))
		f.Add(strings.Repeat(`[{"[":"\"[",`, n/2) + "0" + strings.Repeat("}]", n/2))
	}
	f.Add(`[` + strings.TrimSuffix(strings.Repeat(`{},[],"{",`, 3000), ",") + `]`)
	f.Add(`"\\"`)
	f.Add(`{"a":"\u005b"}`)
	f.Fuzz(func(t *testing.T, s string) {
		at, deep := JSONTooDeep([]byte(s))
		if deep && (at < 0 || at >= len(s) || (s[at] != '[' && s[at] != '{')) {
			t.Fatalf("offset %d is not a bracket of %q", at, s)
		}
		if !json.Valid([]byte(s)) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		depth, deepest := 0, 0
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				depth++
				deepest = max(deepest, depth)
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
		if deep != (deepest > MaxJSONDepth) {
			t.Fatalf("JSONTooDeep = %v for JSON %d levels deep: %q", deep, deepest, s)
		}
	})
}
