package handlers

import (
	"bytes"
	"context"
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
//
// The walk keeps the member names leading to where it is as a list and
// joins them only to name a member in a refusal, so its memory does not
// grow with the square of the depth; the body's depth is bounded before
// it runs (formats.MaxJSONDepth). It stops when ctx ends (the client went
// away) and returns ctx's error.
func checkKeys(ctx context.Context, body []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	k := &keyWalk{ctx: ctx, dec: dec, body: body}
	err := k.value(t)
	if _, ok := err.(*Error); ok || ctx.Err() != nil {
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

// keyWalk is one walk of a body by checkKeys.
type keyWalk struct {
	ctx    context.Context
	dec    *json.Decoder
	body   []byte
	path   []string // member names from the top to the value being read
	tokens int      // read so far: the context is looked at every ctxEvery
}

// ctxEvery is how many tokens the walk reads between two looks at its
// context.
const ctxEvery = 1024

// at names the value being read ("Tags.Name"; "" at the top). Arrays add
// no name: an element is named as its list.
func (k *keyWalk) at() string { return strings.Join(k.path, ".") }

// value reads one value; t is the type it is decoded into (nil: anything).
func (k *keyWalk) value(t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	isTime := t == timeType
	if t != nil && (reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType)) {
		t = nil // its own shape
	}
	tok, err := k.token()
	if err != nil {
		return err
	}
	if isTime && tok != nil {
		// encoding/json's error for a bad timestamp names no member.
		if s, ok := tok.(string); !ok || !validTimestamp(s) {
			path := k.at()
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
		for k.dec.More() {
			if err := k.value(elem); err != nil {
				return err
			}
		}
		_, err = k.dec.Token() // ]
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
		for k.dec.More() {
			vt, err := k.member(seen, fields, folded, elem)
			if err != nil {
				return err
			}
			err = k.value(vt)
			k.path = k.path[:len(k.path)-1]
			if err != nil {
				return err
			}
		}
		_, err = k.dec.Token() // }
		return err
	}
	return nil
}

// member reads the name of an object's member onto the path (the caller
// takes it off after the member's value) and refuses it when it is not
// UTF-8, repeats one of seen, or matches a field of the struct (fields,
// folded) only when case is ignored; it returns the type of the member's
// value (elem unless the object is a struct).
func (k *keyWalk) member(seen map[string]bool, fields map[string]reflect.Type, folded map[string]string, elem reflect.Type) (reflect.Type, error) {
	start := k.dec.InputOffset()
	tok, err := k.dec.Token()
	if err != nil {
		return nil, err
	}
	key, _ := tok.(string)
	k.path = append(k.path, key)
	if err := k.notUTF8(start); err != nil {
		return nil, err
	}
	if err := loneSurrogate(tok, k.body[start:k.dec.InputOffset()], k.at); err != nil {
		return nil, err
	}
	if seen[key] {
		name := k.at()
		return nil, CodeMalformedJSON.New("member " + name + " appears more than once").
			WithFields(FieldError{Field: name, Code: CodeMalformedJSON.Name, Message: "appears more than once"})
	}
	seen[key] = true
	if fields == nil {
		return elem, nil
	}
	ft, exact := fields[key]
	if !exact {
		if want, near := foldedName(fields, folded, key); near {
			name := k.at()
			return nil, CodeUnknownField.New("unknown field " + name + " (field names are case-sensitive: " + want + ")").
				WithFields(FieldError{Field: name, Code: FieldUnknownField, Message: "not a field of this resource; did you mean " + want + "?"})
		}
		// Unknown altogether: the decoder refuses it by name.
	}
	return ft, nil
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

// token reads the next token, refused when its bytes are not UTF-8; every
// ctxEvery tokens it stops when the request's context has ended.
func (k *keyWalk) token() (json.Token, error) {
	if k.tokens++; k.tokens%ctxEvery == 0 && k.ctx.Err() != nil {
		return nil, k.ctx.Err()
	}
	start := k.dec.InputOffset()
	tok, err := k.dec.Token()
	if err != nil {
		return tok, err
	}
	if err := k.notUTF8(start); err != nil {
		return tok, err
	}
	return tok, loneSurrogate(tok, k.body[start:k.dec.InputOffset()], k.at)
}

// notUTF8 refuses the bytes of the body from start to where the decoder
// now is when they are not UTF-8 (the decoder replaced them with U+FFFD).
func (k *keyWalk) notUTF8(start int64) error {
	if end := k.dec.InputOffset(); start <= end && end <= int64(len(k.body)) && !utf8.Valid(k.body[start:end]) {
		path := k.at()
		msg := "contains bytes that are not UTF-8"
		return CodeValidationFailed.New(strings.TrimSpace(path + " " + msg)).WithFields(FieldError{Field: path, Code: FieldInvalid, Message: msg})
	}
	return nil
}

// loneSurrogate refuses a string token whose escapes name half of a
// UTF-16 surrogate pair ("\ud800"): the decoder replaces it with U+FFFD,
// so the text kept would not be the text sent. raw is the token's JSON;
// a U+FFFD the client wrote itself, as such or as \ufffd, is kept. at
// names the member, called only to refuse.
func loneSurrogate(tok json.Token, raw []byte, at func() string) error {
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
	path := at()
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
