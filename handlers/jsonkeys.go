package handlers

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// checkKeys walks a JSON body beside the Go type it is decoded into and
// refuses what encoding/json would quietly accept (docs/design.md §4):
//
//   - a member name that matches a field only when case is ignored
//     ({"organisationName": …} for OrganisationName): encoding/json takes
//     it; our field names are case-sensitive, so it is an unknown field;
//   - a member that appears twice in one object ({"Status":"Inactive",
//     "Status":"Active"}): encoding/json keeps the last, a proxy or a
//     validator in front of us may have read the first;
//   - a string or member name holding bytes that are not UTF-8:
//     encoding/json replaces them with U+FFFD, so the text kept would not
//     be the text sent (422 naming the member, as checkText does for
//     forms).
//
// Values decoded into `any`, maps or types with their own UnmarshalJSON
// are checked for repeated members only. Type mismatches are left to the
// decoder, which names them.
func checkKeys(body []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	err := walkValue(dec, body, t, "")
	if _, ok := err.(*Error); ok {
		return err
	}
	return nil // malformed JSON: the decoder says so
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
)

// validTimestamp is what time.Time's UnmarshalJSON takes.
func validTimestamp(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// walkValue reads one value from dec; t is the type it is decoded into
// (nil: anything).
func walkValue(dec *json.Decoder, body []byte, t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	isTime := t == timeType
	if t != nil && (reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType)) {
		t = nil // its own shape
	}
	tok, err := token(dec, body, path)
	if err != nil {
		return err
	}
	if isTime && tok != nil {
		// encoding/json's error for a bad timestamp names no member.
		if s, ok := tok.(string); !ok || !validTimestamp(s) {
			msg := "must be an RFC 3339 timestamp like 2026-03-01T09:30:00Z (read-only timestamps may be left out)"
			return CodeMalformedJSON.New(path + " " + msg).WithFields(FieldError{Field: path, Code: FieldInvalidType, Message: msg})
		}
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar
	}
	switch d {
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for dec.More() {
			if err := walkValue(dec, body, elem, path); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ]
		return err
	case '{':
		var fields map[string]reflect.Type
		var folded map[string]string
		var elem reflect.Type
		switch {
		case t != nil && t.Kind() == reflect.Struct:
			fields, folded = jsonFields(t)
		case t != nil && t.Kind() == reflect.Map:
			elem = t.Elem()
		}
		seen := map[string]bool{}
		for dec.More() {
			start := dec.InputOffset()
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			name := key
			if path != "" {
				name = path + "." + key
			}
			if err := notUTF8(dec, body, start, name); err != nil {
				return err
			}
			if err := loneSurrogate(tok, body[start:dec.InputOffset()], name); err != nil {
				return err
			}
			if seen[key] {
				return CodeMalformedJSON.New("member " + name + " appears more than once").
					WithFields(FieldError{Field: name, Code: CodeMalformedJSON.Name, Message: "appears more than once"})
			}
			seen[key] = true
			vt := elem
			if fields != nil {
				ft, exact := fields[key]
				if !exact {
					if want, near := foldedName(fields, folded, key); near {
						return CodeUnknownField.New("unknown field " + name + " (field names are case-sensitive: " + want + ")").
							WithFields(FieldError{Field: name, Code: FieldUnknownField, Message: "not a field of this resource; did you mean " + want + "?"})
					}
					// Unknown altogether: the decoder refuses it by name.
				}
				vt = ft
			}
			if err := walkValue(dec, body, vt, name); err != nil {
				return err
			}
		}
		_, err = dec.Token() // }
		return err
	}
	return nil
}

// foldedName is the field name that key matches when case is ignored, by
// encoding/json's rule (Unicode case folding: ſ is an s, the Kelvin sign a
// k), which strings.ToLower alone misses.
func foldedName(fields map[string]reflect.Type, folded map[string]string, key string) (string, bool) {
	if want, ok := folded[strings.ToLower(key)]; ok {
		return want, true
	}
	for name := range fields {
		if strings.EqualFold(name, key) {
			return name, true
		}
	}
	return "", false
}

// token reads the next token of dec, refused when its bytes are not UTF-8.
func token(dec *json.Decoder, body []byte, path string) (json.Token, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return tok, err
	}
	if err := notUTF8(dec, body, start, path); err != nil {
		return tok, err
	}
	return tok, loneSurrogate(tok, body[start:dec.InputOffset()], path)
}

// notUTF8 refuses the bytes of body from start to where dec now is when
// they are not UTF-8 (the decoder replaced them with U+FFFD); path names
// the member.
func notUTF8(dec *json.Decoder, body []byte, start int64, path string) error {
	if end := dec.InputOffset(); start <= end && end <= int64(len(body)) && !utf8.Valid(body[start:end]) {
		msg := "contains bytes that are not UTF-8"
		return CodeValidationFailed.New(strings.TrimSpace(path + " " + msg)).WithFields(FieldError{Field: path, Code: FieldInvalid, Message: msg})
	}
	return nil
}

// loneSurrogate refuses a string token whose escapes name half of a
// UTF-16 surrogate pair ("\ud800"): the decoder replaces it with U+FFFD,
// so the text kept would not be the text sent. raw is the token's JSON;
// a U+FFFD the client wrote itself, as such or as \ufffd, is kept.
func loneSurrogate(tok json.Token, raw []byte, path string) error {
	s, ok := tok.(string)
	if !ok || !strings.ContainsRune(s, utf8.RuneError) {
		return nil
	}
	lower := strings.ToLower(string(raw))
	written := strings.Count(lower, `\ufffd`) + strings.Count(lower, string(utf8.RuneError))
	if strings.Count(s, string(utf8.RuneError)) <= written {
		return nil
	}
	msg := `holds an escape of half a UTF-16 surrogate pair (such as \ud800), which is no character`
	return CodeValidationFailed.New(strings.TrimSpace(path + " " + msg)).WithFields(FieldError{Field: path, Code: FieldInvalid, Message: msg})
}

// jsonFields maps the JSON member names of struct type t to their types
// (embedded structs' fields promoted, as encoding/json does) and their
// lower-case forms to the names.
func jsonFields(t reflect.Type) (map[string]reflect.Type, map[string]string) {
	if f, ok := fieldCache.Load(t); ok {
		e := f.(fieldEntry)
		return e.exact, e.folded
	}
	exact, folded := map[string]reflect.Type{}, map[string]string{}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		// A struct's own fields first: they hide an embedded struct's
		// fields of the same name, as in encoding/json.
		var embedded []reflect.Type
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					embedded = append(embedded, ft)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := exact[name]; !dup {
				exact[name] = f.Type
				folded[strings.ToLower(name)] = name
			}
		}
		for _, e := range embedded {
			add(e)
		}
	}
	add(t)
	fieldCache.Store(t, fieldEntry{exact, folded})
	return exact, folded
}

type fieldEntry struct {
	exact  map[string]reflect.Type
	folded map[string]string
}

var fieldCache sync.Map // reflect.Type → fieldEntry
