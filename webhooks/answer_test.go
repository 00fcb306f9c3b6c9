package webhooks

import (
	"strings"
	"testing"
)

// answerText: one line, cut answers marked, format characters (a bidi
// override that would turn the log's text around) left out.
func TestAnswerText(t *testing.T) {
	exact := strings.Repeat("a", answerKept)
	for in, want := range map[string]string{
		exact:                         exact, // all of it: nothing was cut
		exact + "b":                   exact + "…",
		"bad\u202eevil\u200b sig\n\n": "badevil sig",
		"  \t\r\n":                    "",
		"a\xffb":                      "ab",
	} {
		if got := answerText([]byte(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
