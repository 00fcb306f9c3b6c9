package directory_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
)

// The text rule: one line refuses control characters, direction marks and
// line separators; lines allow line breaks and tabs; raw allows all but
// NUL and bytes that are not UTF-8, which stop the walk at once.
func TestTextRule(t *testing.T) {
	type in struct {
		Name  string `json:"Name"`
		Notes string `json:"Notes" text:"lines"`
		PEM   string `json:"PEM" text:"raw"`
		List  []string
	}
	for _, tc := range []struct {
		name       string
		v          in
		bad        []string // fields refused, in struct order
		unkeepable string
	}{
		{"plain text passes", in{Name: "Acme", Notes: "a\r\nb\tc", PEM: "-----\n\x01", List: []string{"x"}}, nil, ""},
		{"a tab in one line", in{Name: "A\tB"}, []string{"Name"}, ""},
		{"a direction mark", in{Name: "Evil\u202eknaB"}, []string{"Name"}, ""},
		{"a line separator in lines", in{Notes: "a\u2028b"}, []string{"Notes"}, ""},
		{"a bare carriage return in lines", in{Notes: "a\rb"}, []string{"Notes"}, ""},
		{"a list element", in{List: []string{"ok", "b\nad"}}, []string{"List[1]"}, ""},
		{"several members at once", in{Name: "\x07", List: []string{"\u200e"}}, []string{"Name", "List[0]"}, ""},
		{"a NUL stops the walk", in{Name: "\x07", PEM: "a\x00b"}, nil, "PEM"},
		{"bytes that are not UTF-8", in{Notes: "\xff"}, nil, "Notes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad, unkeepable := directory.CheckText(reflect.ValueOf(tc.v), "")
			if tc.unkeepable != "" {
				if unkeepable == nil || unkeepable.Field != tc.unkeepable {
					t.Fatalf("want %s unkeepable, got %v", tc.unkeepable, unkeepable)
				}
				return
			}
			var got []string
			for _, f := range bad {
				got = append(got, f.Field)
			}
			if unkeepable != nil || strings.Join(got, ",") != strings.Join(tc.bad, ",") {
				t.Fatalf("refused %v (unkeepable %v), want %v", got, unkeepable, tc.bad)
			}
		})
	}
}

// The message names the character and where it is: most cannot be seen.
func TestTextMessageNamesTheCharacter(t *testing.T) {
	for s, want := range map[string]string{
		"ab\tc":       "character 3 is a tab",
		"Evil\u202eX": "character 5 is U+202E, a direction mark",
		"a\u2029":     "character 2 is U+2029, a line or paragraph separator",
		"\x07":        "character 1 is U+0007, a control character",
	} {
		if got := directory.TextMessage("Name", directory.TextLine, s); !strings.Contains(got, want) {
			t.Errorf("%q: %s, want it to say %q", s, got, want)
		}
	}
}

// TestUnchangedTextPassesTheTextRule: a record's own text that breaks the
// rule passes when sent back unchanged (also with a form's CRLF line
// breaks and trimming), and takes the record's value; changed text, or a
// list element that is new, does not.
func TestUnchangedTextPassesTheTextRule(t *testing.T) {
	type rec struct {
		Name  string   `json:"Name"`
		URIs  []string `json:"URIs"`
		Other int      `json:"Other"`
	}
	stored := rec{Name: "Two\nlines", URIs: []string{"a\tb"}}
	sent := rec{Name: " Two\r\nlines ", URIs: []string{"new\tone", "a\tb"}}
	texts := directory.StoredTexts(&sent, stored)
	if !directory.UnchangedText(texts, "Name") || sent.Name != stored.Name {
		t.Errorf("Name: %q", sent.Name)
	}
	if directory.UnchangedText(texts, "URIs[0]") || !directory.UnchangedText(texts, "URIs[1]") {
		t.Errorf("URIs: %v", texts)
	}
	changed := rec{Name: "Two\nlines, changed"}
	if directory.UnchangedText(directory.StoredTexts(&changed, stored), "Name") {
		t.Error("changed text passed")
	}
}
