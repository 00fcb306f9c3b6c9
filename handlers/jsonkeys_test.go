package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/trustframe/trustframe/formats"
)

type keysInner struct {
	Name string `json:"Name"`
}

type keysBase struct {
	Status string `json:"Status"`
}

type keysBody struct {
	keysBase
	OrganisationName string            `json:"OrganisationName"`
	Tags             []keysInner       `json:"Tags"`
	Meta             map[string]any    `json:"Meta"`
	Any              any               `json:"Any"`
	When             *time.Time        `json:"When"`
	Labels           map[string]string `json:"Labels"`
	Hidden           string            `json:"-"`
	NoTag            string
}

// TestDecodeRefusesWhatEncodingJSONWouldGuess: a member name in another
// case and a repeated member are refused with the member named, at any
// depth; exact names, maps' own keys and nested free-form objects pass.
func TestDecodeRefusesWhatEncodingJSONWouldGuess(t *testing.T) {
	for _, c := range []struct {
		name, body string
		code       string // "" = accepted
		field      string
	}{
		{"exact", `{"OrganisationName":"A","Status":"Active","Tags":[{"Name":"x"}],"Meta":{"a":{"b":1}},"Any":[{"k":1}],"When":"2026-01-02T03:04:05Z","Labels":{"x":"y","X":"z"},"NoTag":"n"}`, "", ""},
		{"case of a field", `{"organisationName":"A"}`, CodeUnknownField.Name, "organisationName"},
		{"case of an embedded field", `{"STATUS":"Active"}`, CodeUnknownField.Name, "STATUS"},
		{"case in a list of objects", `{"Tags":[{"Name":"x"},{"name":"y"}]}`, CodeUnknownField.Name, "Tags.name"},
		{"case of a field without tag", `{"notag":"n"}`, CodeUnknownField.Name, "notag"},
		{"repeated member", `{"Status":"Inactive","Status":"Active"}`, CodeMalformedJSON.Name, "Status"},
		{"repeated in a list of objects", `{"Tags":[{"Name":"x","Name":"y"}]}`, CodeMalformedJSON.Name, "Tags.Name"},
		{"repeated in a free-form object", `{"Meta":{"a":1,"a":2}}`, CodeMalformedJSON.Name, "Meta.a"},
		{"repeated deep in any", `{"Any":[{"k":{"z":1,"z":2}}]}`, CodeMalformedJSON.Name, "Any.k.z"},
		{"unknown field", `{"Nope":1}`, CodeUnknownField.Name, "Nope"},
		{"the json:\"-\" field", `{"Hidden":"h"}`, CodeUnknownField.Name, "Hidden"},
		{"half a surrogate pair", `{"NoTag":"\ud800"}`, CodeValidationFailed.Name, "NoTag"},
		{"half a pair after an escaped backslash and ufffd", `{"NoTag":"\\ufffd\ud800"}`, CodeValidationFailed.Name, "NoTag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/api/x", strings.NewReader(c.body))
			r.Header.Set("Content-Type", "application/json")
			var dst keysBody
			err := Decode(httptest.NewRecorder(), r, &dst)
			if c.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if dst.OrganisationName != "A" || dst.Status != "Active" || len(dst.Tags) != 1 || dst.Labels["X"] != "z" {
					t.Fatalf("decoded %+v", dst)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != c.code || len(e.Fields) == 0 || e.Fields[0].Field != c.field {
				t.Fatalf("got %#v, want %s naming %s", err, c.code, c.field)
			}
		})
	}
}

// allocated is how many bytes f allocates on the heap (all goroutines).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDecodeRefusesBodiesNestedDeeperThanTheLimit: a body nested up to
// formats.MaxJSONDepth is read; one level more is 400 malformed_json naming
// the limit, before anything walks it; brackets in strings do not count.
func TestDecodeRefusesBodiesNestedDeeperThanTheLimit(t *testing.T) {
	nested := func(levels int) string { // levels counts the body's own object
		return `{"Any":` + strings.Repeat("[", levels-1) + `"[[[["` + strings.Repeat("]", levels-1) + "}"
	}
	for _, c := range []struct {
		name, body string
		refused    bool
	}{
		{"at the limit", nested(formats.MaxJSONDepth), false},
		{"one level more", nested(formats.MaxJSONDepth + 1), true},
		{"20,000 levels", strings.Repeat(`{"Any":`, 20000) + "1" + strings.Repeat("}", 20000), true},
	} {
		r := httptest.NewRequest("POST", "/api/x", strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
		var dst keysBody
		err := Decode(httptest.NewRecorder(), r, &dst)
		if !c.refused {
			if err != nil {
				t.Errorf("%s: refused: %v", c.name, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != 400 || e.Code != CodeMalformedJSON.Name || !strings.Contains(e.Message, "limit of 32 levels") {
			t.Errorf("%s: %#v, want 400 malformed_json naming the limit", c.name, err)
		}
	}
}

// TestCheckKeysMemoryGrowsWithTheBodyNotTheSquareOfItsDepth: the walk
// keeps member names as a list and joins them only to refuse, so even
// without the depth limit (which Decode applies first) a body nested
// 20,000 deep costs a small multiple of its size, and a repeated member
// at the bottom is still named by its whole path.
func TestCheckKeysMemoryGrowsWithTheBodyNotTheSquareOfItsDepth(t *testing.T) {
	const depth = 20000
	body := []byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth))
	var err error
	n := allocated(func() { err = checkKeys(context.Background(), body, reflect.TypeOf(&keysBody{})) })
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if limit := uint64(64 * len(body)); n > limit {
		t.Fatalf("%d bytes allocated for a body of %d; want under %d", n, len(body), limit)
	}
	dup := []byte(strings.Repeat(`{"a":`, 3) + `{"z":1,"z":2}` + strings.Repeat("}", 3))
	var e *Error
	if err := checkKeys(context.Background(), dup, nil); !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Field != "a.a.a.z" {
		t.Fatalf("%#v, want the repeated member named a.a.a.z", err)
	}
}

// TestCheckKeysStopsWhenTheClientGoesAway: the walk looks at the request's
// context as it reads and stops with its error once the client has gone.
func TestCheckKeysStopsWhenTheClientGoesAway(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body := []byte(`{"Any":[` + strings.TrimSuffix(strings.Repeat("1,", 10*ctxEvery), ",") + "]}")
	if err := checkKeys(ctx, body, reflect.TypeOf(&keysBody{})); !errors.Is(err, context.Canceled) {
		t.Fatalf("%v, want context.Canceled", err)
	}
}

// wideBody is a JSON text of exactly MaxBody bytes: open, then item(0),
// item(1), … separated by commas while they fit, then last and close.
func wideBody(open, last, close string, item func(int) string) []byte {
	var b strings.Builder
	b.WriteString(open)
	for i := 0; ; i++ {
		it := item(i) + ","
		if b.Len()+len(it)+len(last)+len(close) > MaxBody {
			break
		}
		b.WriteString(it)
	}
	b.WriteString(last)
	b.WriteString(strings.Repeat(" ", MaxBody-b.Len()-len(close)))
	b.WriteString(close)
	return []byte(b.String())
}

// wideBodies are bodies of the largest size read, as wide as they come:
// what the key walk reads most tokens of.
func wideBodies() []struct {
	name string
	body []byte
} {
	hex := func(i int) string { return `"` + strconv.FormatInt(int64(i), 16) + `":0` }
	return []struct {
		name string
		body []byte
	}{
		{"numbers", wideBody(`{"Any":[`, "0", "]}", func(int) string { return "0" })},
		{"members", wideBody(`{"Meta":{`, `"":0`, "}}", hex)},
		{"unknown members", wideBody(`{`, `"":0`, "}", hex)},
		{"objects", wideBody(`{"Tags":[`, `{}`, "]}", func(int) string { return `{"Name":"x"}` })},
		{"long strings", wideBody(`{"Any":[`, `""`, "]}", func(int) string { return `"` + strings.Repeat("x", 1000) + `"` })},
	}
}

// BenchmarkCheckKeysWide: the key walk over each wide body (bytes and
// allocations per walk: docs/benchmarks.md).
func BenchmarkCheckKeysWide(b *testing.B) {
	for _, c := range wideBodies() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				checkKeys(context.Background(), c.body, reflect.TypeOf(&keysBody{}))
			}
		})
	}
}

// tokenCheckKeys is checkKeys as it was, walking the body with
// encoding/json's Decoder.Token (about 120 bytes allocated a token).
func tokenCheckKeys(ctx context.Context, body []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	k := &tokenWalk{ctx: ctx, dec: dec, body: body}
	err := k.value(t)
	if _, ok := err.(*Error); ok || ctx.Err() != nil {
		return err
	}
	return nil
}

// tokenWalk is the key walk as it was, on encoding/json's Decoder.Token:
// FuzzCheckKeys holds checkKeys to its verdicts.
type tokenWalk struct {
	ctx    context.Context
	dec    *json.Decoder
	body   []byte
	path   []string // member names from the top to the value being read
	tokens int      // read so far: the context is looked at every ctxEvery
}

// at names the value being read ("Tags.Name"; "" at the top). Arrays add
// no name: an element is named as its list.
func (k *tokenWalk) at() string { return strings.Join(k.path, ".") }

// value reads one value; t is the type it is decoded into (nil: anything).
func (k *tokenWalk) value(t reflect.Type) error {
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
func (k *tokenWalk) member(seen map[string]bool, fields map[string]reflect.Type, folded map[string]string, elem reflect.Type) (reflect.Type, error) {
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
	if err := tokenLoneSurrogate(tok, k.body[start:k.dec.InputOffset()], k.at); err != nil {
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
		if want, near := tokenFoldedName(fields, folded, key); near {
			name := k.at()
			return nil, CodeUnknownField.New("unknown field " + name + " (field names are case-sensitive: " + want + ")").
				WithFields(FieldError{Field: name, Code: FieldUnknownField, Message: "not a field of this resource; did you mean " + want + "?"})
		}
		// Unknown altogether: the decoder refuses it by name.
	}
	return ft, nil
}

// tokenFoldedName is the field name that key matches when case is ignored, by
// encoding/json's rule (Unicode case folding: ſ is an s, the Kelvin sign a
// k), which strings.ToLower alone misses.
func tokenFoldedName(fields map[string]reflect.Type, folded map[string]string, key string) (string, bool) {
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
func (k *tokenWalk) token() (json.Token, error) {
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
	return tok, tokenLoneSurrogate(tok, k.body[start:k.dec.InputOffset()], k.at)
}

// notUTF8 refuses the bytes of the body from start to where the decoder
// now is when they are not UTF-8 (the decoder replaced them with U+FFFD).
func (k *tokenWalk) notUTF8(start int64) error {
	if end := k.dec.InputOffset(); start <= end && end <= int64(len(k.body)) && !utf8.Valid(k.body[start:end]) {
		path := k.at()
		msg := "contains bytes that are not UTF-8"
		return CodeValidationFailed.New(strings.TrimSpace(path + " " + msg)).WithFields(FieldError{Field: path, Code: FieldInvalid, Message: msg})
	}
	return nil
}

// tokenLoneSurrogate refuses a string token whose escapes name half of a
// UTF-16 surrogate pair ("\ud800") without its other half: the decoder
// replaces it with U+FFFD, so the text kept would not be the text sent.
// raw is the token's JSON; a U+FFFD the client wrote itself, as such or
// as \ufffd, is kept. at names the member, called only to refuse.
func tokenLoneSurrogate(tok json.Token, raw []byte, at func() string) error {
	s, ok := tok.(string)
	if !ok || !strings.ContainsRune(s, utf8.RuneError) || !hasLoneHalf(string(raw)) {
		return nil
	}
	msg := `holds an escape of half a UTF-16 surrogate pair (such as \ud800), which is no character`
	path := at()
	return CodeValidationFailed.New(strings.TrimSpace(path + " " + msg)).WithFields(FieldError{Field: path, Code: FieldInvalid, Message: msg})
}

// hasLoneHalf reports whether the JSON string raw holds an escape of half
// a UTF-16 surrogate pair not followed by the other half: read escape by
// escape, so an escaped backslash before "ud800" is text, not an escape.
func hasLoneHalf(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' || i+6 > len(raw) {
			i++ // a two-character escape
			continue
		}
		hi, err := strconv.ParseUint(raw[i+2:i+6], 16, 32)
		if err != nil {
			return false
		}
		i += 5
		if !utf16.IsSurrogate(rune(hi)) {
			continue
		}
		if i+7 <= len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
			if lo, err := strconv.ParseUint(raw[i+3:i+7], 16, 32); err == nil && utf16.DecodeRune(rune(hi), rune(lo)) != utf8.RuneError {
				i += 6
				continue
			}
		}
		return true
	}
	return false
}
