package directory

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The text rule (docs/design.md §4): what a person reads must read as
// it is. A decoded string member is one of three kinds, marked by its
// struct tag `text`:
//
//   - no tag: one line of text (a name, a title, an address line): no
//     control character (U+0000–U+001F, U+007F–U+009F: tabs and line
//     breaks too), no direction mark or override (Bidi_Control: U+200E,
//     U+200F, U+202A–U+202E, U+2066–U+2069, U+061C), no U+2028/U+2029;
//   - `text:"lines"`: text that may span lines (a description edited in a
//     text area, a status reason): as one line, but "\n", "\r\n" and "\t"
//     are allowed;
//   - `text:"raw"`: not text a person reads (a PEM block, a policy, a
//     secret): only the NUL and UTF-8 check below.
//
// Members typed any are read-only members a client sends back and the
// service ignores: only the NUL and UTF-8 check.
const (
	TextLine  = ""
	TextLines = "lines"
	TextRaw   = "raw"
)

// RefusedText reports whether s breaks the text rule for its kind
// (TextLine or TextLines).
func RefusedText(s, kind string) bool {
	_, _, bad := firstRefused(s, kind)
	return bad
}

// firstRefused is the first character of s that breaks the text rule for
// its kind, and its place (1 for the first character).
func firstRefused(s, kind string) (rune, int, bool) {
	n := 0
	for i, r := range s {
		n++
		switch {
		case kind == TextLines && (r == '\n' || r == '\t'):
		case kind == TextLines && r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r), r == '\u2028', r == '\u2029':
			return r, n, true
		}
	}
	return 0, 0, false
}

// TextMessage is the refusal of a member (field) whose value s breaks the
// rule. It names the character and where it is: most of them cannot be
// seen (a direction mark shows "Evil\u202eknaB" as "EvilBank").
func TextMessage(field, kind, s string) string {
	msg := controlMessage(field)
	if kind == TextLines {
		msg = field + " cannot contain control characters other than line breaks and tabs, or direction marks."
	}
	r, n, bad := firstRefused(s, kind)
	if !bad {
		return msg
	}
	var what string
	switch {
	case r == '\t':
		what = "a tab"
	case r == '\n' || r == '\r':
		what = "a line break"
	case r == '\u2028' || r == '\u2029':
		what = fmt.Sprintf("U+%04X, a line or paragraph separator", r)
	case unicode.Is(unicode.Bidi_Control, r):
		what = fmt.Sprintf("U+%04X, a direction mark", r)
	default:
		what = fmt.Sprintf("U+%04X, a control character", r)
	}
	return strings.TrimSuffix(msg, ".") + fmt.Sprintf(": character %d is %s.", n, what)
}

// controlMessage is the refusal of one line of text that holds a control
// character or a direction mark.
func controlMessage(field string) string {
	return field + " cannot contain tabs, line breaks, other control characters or direction marks."
}

// CheckText applies the text rule to every string member of v, named from
// path by their JSON names, and returns each member that breaks it. A NUL
// character or bytes that are not UTF-8 (which one of the engines cannot
// keep as sent) stop the walk at once: unkeepable names that member.
func CheckText(v reflect.Value, path string) (bad []FieldError, unkeepable *FieldError) {
	unkeepable = walkText(v, path, TextLine, &bad)
	return bad, unkeepable
}

// besideLabel is how a message beside a form field names the field: "This
// field", or for an element of a list (RedirectUri[1]), whose form has one
// field for the whole list, "Entry 2 of this field".
func besideLabel(path string) string {
	if open := strings.LastIndexByte(path, '['); open > 0 && strings.HasSuffix(path, "]") {
		if i, err := strconv.Atoi(path[open+1 : len(path)-1]); err == nil && !strings.ContainsAny(path[:open], "[]") {
			return fmt.Sprintf("Entry %d of this field", i+1)
		}
	}
	return "This field"
}

func walkText(v reflect.Value, path, kind string, bad *[]FieldError) *FieldError {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			return walkText(v.Elem(), path, TextRaw, bad)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return walkText(v.Elem(), path, kind, bad)
		}
	case reflect.String:
		s := v.String()
		if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
			const what = "contains a NUL character or bytes that are not UTF-8"
			return &FieldError{Field: path, Message: what, Beside: besideLabel(path) + " " + what + "."}
		}
		if kind != TextRaw && RefusedText(s, kind) {
			*bad = append(*bad, FieldError{Field: path, Message: TextMessage(path, kind, s), Beside: TextMessage(besideLabel(path), kind, s)})
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			// Bytes, not text (a json.RawMessage, base64): nothing to
			// check, and a name per byte of a 1 MiB policy cost 50 MB.
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := walkText(v.Index(i), fmt.Sprintf("%s[%d]", path, i), kind, bad); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			key := fmt.Sprint(it.Key().Interface())
			if err := walkText(it.Key(), path, kind, bad); err != nil {
				return err
			}
			if err := walkText(it.Value(), joinPath(path, key), kind, bad); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = t.Field(i).Name
			}
			if t.Field(i).Anonymous && t.Field(i).Tag.Get("json") == "" {
				name = "" // embedded: its fields are the parent's
			}
			k := kind
			if tag, ok := t.Field(i).Tag.Lookup("text"); ok {
				k = tag
			}
			if err := walkText(v.Field(i), joinPath(path, name), k, bad); err != nil {
				return err
			}
		}
	}
	return nil
}

func joinPath(path, name string) string {
	switch {
	case name == "":
		return path
	case path == "":
		return name
	}
	return path + "." + name
}

// A record saved before the text rule may hold text the rule refuses (a
// description on two lines). An update that sends such text back
// unchanged, as a status button or an edit of another field does, is not
// refused over text its client did not write (docs/design.md §4): the
// record's value is saved as it was.

// StoredText is one text member of an update: where its decoded value is
// (Sent) and the value the record holds (Stored).
type StoredText struct {
	Sent   *string
	Stored string
}

// SameText reports whether sent is stored, unchanged: the same text, or
// the same as a form brings it back. A browser sends each line break of a
// field as CRLF (a hidden field's or a text area's), and a form's values
// come trimmed.
func SameText(sent, stored string) bool {
	if sent == stored {
		return true
	}
	flat := func(s string) string {
		return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"))
	}
	return flat(sent) == flat(stored)
}

// UnchangedText reports whether the text rule's refusal of field is lifted
// because texts has it, the value sent breaks the rule, and it is the
// record's value unchanged (SameText); the record's value then takes its
// place, so that it is saved as it was. Only a refusal of the text rule is
// lifted: another refusal of the same member (bytes that are not UTF-8,
// found before anything was decoded) leaves Sent empty, and an empty value
// that equals an empty stored one must not pass it.
func UnchangedText(texts map[string]StoredText, field string) bool {
	t, ok := texts[field]
	if !ok || t.Sent == nil || !RefusedText(*t.Sent, TextLine) || !SameText(*t.Sent, t.Stored) {
		return false
	}
	*t.Sent = t.Stored
	return true
}

// StoredTexts pairs each string member of sent (a pointer to the struct
// decoded) with the member of stored (the record as it is) of the same
// JSON name, named as the text rule names them. A list of strings (a
// redirect URI list) is paired element by element: an element sent as one
// of the stored elements is paired with it, wherever it now stands; a new
// or changed element is not paired.
func StoredTexts(sent, stored any) map[string]StoredText {
	have := map[string]reflect.Value{}
	cv := reflect.ValueOf(stored)
	for i := 0; i < cv.NumField(); i++ {
		if name := jsonName(cv.Type().Field(i)); name != "" && (cv.Field(i).Kind() == reflect.String || isStrings(cv.Field(i).Type())) {
			have[name] = cv.Field(i)
		}
	}
	out := map[string]StoredText{}
	sv := reflect.ValueOf(sent).Elem()
	for i := 0; i < sv.NumField(); i++ {
		name := jsonName(sv.Type().Field(i))
		cur, ok := have[name]
		switch {
		case !ok:
		case sv.Field(i).Type() == reflect.TypeFor[string]() && cur.Kind() == reflect.String:
			out[name] = StoredText{sv.Field(i).Addr().Interface().(*string), cur.String()}
		case isStrings(sv.Field(i).Type()) && isStrings(cur.Type()):
			storedList(out, name, sv.Field(i), cur)
		}
	}
	return out
}

// storedList adds to out each element of the list sent (named name) that
// is one of the stored list's elements: "name[i]", as the text rule names
// it, with that stored element.
func storedList(out map[string]StoredText, name string, sent, stored reflect.Value) {
	for i := 0; i < sent.Len(); i++ {
		el := sent.Index(i).Addr().Interface().(*string)
		for j := 0; j < stored.Len(); j++ {
			if s := stored.Index(j).String(); SameText(*el, s) {
				out[fmt.Sprintf("%s[%d]", name, i)] = StoredText{el, s}
				break
			}
		}
	}
}

// isStrings reports whether t is a list of strings ([]string).
func isStrings(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem() == reflect.TypeFor[string]()
}

// jsonName is the member name of an exported struct field; "" for none.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if !f.IsExported() || f.Anonymous || name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}
