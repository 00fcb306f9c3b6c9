package dpop

import (
	"testing"
	"time"
)

// FuzzParse: the proof parser and checker never panic, whatever the input.
// Seed corpus: the f.Add values below and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	s, _ := NewSigner(ecKey)
	s.now = func() time.Time { return t0 }
	good, _ := s.Proof("GET", targetURL, token, "")
	f.Add(good)
	f.Add("")
	f.Add("a.b.c")
	f.Add("eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7fX0.e30.AA")
	f.Add("eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIn19.eyJpYXQiOjFlOTl9.AA")
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := Parse(raw, DefaultAlgs)
		if err == nil && p == nil {
			t.Fatal("nil proof without error")
		}
		_, _ = checker().Check([]string{raw}, request())
	})
}
