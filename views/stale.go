package views

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Version is what an edit form carries about the version it edits (issue
// 40): the stored version's ETag, sent back as IfMatch so that a save over
// another's change is refused (412) — and, after such a refusal, what is
// stored now beside what was typed. The form then carries the stored
// version's ETag: saving again applies what was typed on top of it;
// Discard (the form's own page) shows the stored version instead.
type Version struct {
	IfMatch string
	Stale   *Stale
	Discard string
}

// Stale is a save refused because the record changed since the form was
// opened: each field the form sent, typed and stored.
type Stale struct {
	Fields []StaleField
}

// StaleField is one field of a Stale: what was typed, what is stored now,
// and whether they differ.
type StaleField struct {
	Name, Label, Yours, Stored string
	Changed                    bool
}

// Changed is how many fields differ.
func (s *Stale) Changed() int {
	n := 0
	for _, f := range s.Fields {
		if f.Changed {
			n++
		}
	}
	return n
}

// NewStale compares typed with stored (records of the same type) on the
// members named by fields (a form's field names are its members' JSON
// names); names reads ids (flags) as names. Fields not members are left
// out; the rest are in the order given, differences first.
func NewStale(fields []string, typed, stored any, labels, names map[string]string) *Stale {
	t, s := members(typed), members(stored)
	st := &Stale{}
	seen := map[string]bool{}
	for _, f := range fields {
		tv, inT := t[f]
		sv, inS := s[f]
		if seen[f] || (!inT && !inS) {
			continue
		}
		seen[f] = true
		y, c := memberText(tv, names), memberText(sv, names)
		label := labels[f]
		if label == "" {
			label = splitWords(f)
			if r := []rune(label); len(r) > 0 {
				label = strings.ToUpper(string(r[0])) + string(r[1:])
			}
		}
		st.Fields = append(st.Fields, StaleField{Name: f, Label: label, Yours: y, Stored: c, Changed: y != c})
	}
	sort.SliceStable(st.Fields, func(i, j int) bool { return st.Fields[i].Changed && !st.Fields[j].Changed })
	return st
}

func members(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// memberText is a member's value as a person reads it: a list one item a
// line, nothing as "(none)".
func memberText(v any, names map[string]string) string {
	name := func(s string) string {
		if n := names[s]; n != "" {
			return n
		}
		return s
	}
	switch x := v.(type) {
	case nil:
		return "(none)"
	case string:
		if strings.TrimSpace(x) == "" {
			return "(none)"
		}
		return name(x)
	case []any:
		var items []string
		for _, it := range x {
			items = append(items, memberText(it, names))
		}
		sort.Strings(items)
		if len(items) == 0 {
			return "(none)"
		}
		return strings.Join(items, "\n")
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case float64:
		return fmt.Sprint(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// OptionNames is the labels of opts by value, for NewStale.
func OptionNames(opts ...[]Option) map[string]string {
	m := map[string]string{}
	for _, os := range opts {
		for _, o := range os {
			m[o.Value] = o.Label
		}
	}
	return m
}
