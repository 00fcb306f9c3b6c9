package jsonbody

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// sample is what the tests decode into: an embedded struct, a list of
// structs, free-form members, a timestamp, a map, a hidden field and one
// without a tag.
type sample struct {
	base
	OrganisationName string            `json:"OrganisationName"`
	Tags             []inner           `json:"Tags"`
	Any              any               `json:"Any"`
	Meta             map[string]any    `json:"Meta"`
	Labels           map[string]string `json:"Labels"`
	When             *time.Time        `json:"When"`
	NoTag            string
	Hidden           string `json:"-"`
}

type base struct {
	Status string `json:"Status"`
}

type inner struct {
	Name string `json:"Name"`
}

// maxBody is the largest body the request decoder reads (handlers.MaxBody).
const maxBody = 1 << 20

// allocated is how many bytes f allocates on the heap (all goroutines).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCheckMemoryGrowsWithTheBodyNotTheSquareOfItsDepth: the walk
// keeps member names as a list and joins them only to refuse, so even
// without the depth limit (which Decode applies first) a body nested
// 20,000 deep costs a small multiple of its size, and a repeated member
// at the bottom is still named by its whole path.
func TestCheckMemoryGrowsWithTheBodyNotTheSquareOfItsDepth(t *testing.T) {
	const depth = 20000
	body := []byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth))
	var err error
	n := allocated(func() { err = Check(context.Background(), body, reflect.TypeOf(&sample{})) })
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if limit := uint64(64 * len(body)); n > limit {
		t.Fatalf("%d bytes allocated for a body of %d; want under %d", n, len(body), limit)
	}
	dup := []byte(strings.Repeat(`{"a":`, 3) + `{"z":1,"z":2}` + strings.Repeat("}", 3))
	var e *Error
	if err := Check(context.Background(), dup, nil); !errors.As(err, &e) || e.Kind != Repeated || e.Member != "a.a.a.z" {
		t.Fatalf("%#v, want the repeated member named a.a.a.z", err)
	}
}

// TestCheckStopsWhenTheClientGoesAway: the walk looks at the request's
// context as it reads and stops with its error once the client has gone.
func TestCheckStopsWhenTheClientGoesAway(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body := []byte(`{"Any":[` + strings.TrimSuffix(strings.Repeat("1,", 10*ctxEvery), ",") + "]}")
	if err := Check(ctx, body, reflect.TypeOf(&sample{})); !errors.Is(err, context.Canceled) {
		t.Fatalf("%v, want context.Canceled", err)
	}
}

// wideBody is a JSON text of exactly maxBody bytes: open, then item(0),
// item(1), … separated by commas while they fit, then last and close.
func wideBody(open, last, close string, item func(int) string) []byte {
	var b strings.Builder
	b.WriteString(open)
	for i := 0; ; i++ {
		it := item(i) + ","
		if b.Len()+len(it)+len(last)+len(close) > maxBody {
			break
		}
		b.WriteString(it)
	}
	b.WriteString(last)
	b.WriteString(strings.Repeat(" ", maxBody-b.Len()-len(close)))
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

// BenchmarkCheckWide: the key walk over each wide body (bytes and
// allocations per walk: docs/benchmarks.md).
func BenchmarkCheckWide(b *testing.B) {
	for _, c := range wideBodies() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				Check(context.Background(), c.body, reflect.TypeOf(&sample{}))
			}
		})
	}
}

// tokenCheck is Check written on encoding/json's Decoder.Token (about
// 120 bytes allocated a token): slower, but plainly right, so FuzzCheck
// holds Check to its verdicts.
func tokenCheck(ctx context.Context, body []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	k := &tokenWalk{ctx: ctx, dec: dec, body: body}
	err := k.value(t)
	if _, ok := err.(*Error); ok || ctx.Err() != nil {
		return err
	}
	return nil
}

// tokenWalk is one walk of tokenCheck.
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
			return &Error{Kind: NotTimestamp, Member: k.at(), Message: "must be an RFC 3339 timestamp like 2026-03-01T09:30:00Z (read-only timestamps may be left out)"}
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
		return nil, &Error{Kind: Repeated, Member: k.at(), Message: "appears more than once"}
	}
	seen[key] = true
	if fields == nil {
		return elem, nil
	}
	ft, exact := fields[key]
	if !exact {
		if want, near := tokenFoldedName(fields, folded, key); near {
			return nil, &Error{Kind: WrongCase, Member: k.at(), Message: "not a field of this resource; did you mean " + want + "?", Want: want}
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
		return &Error{Kind: NotText, Member: k.at(), Message: "contains bytes that are not UTF-8"}
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
	return &Error{Kind: NotText, Member: at(), Message: msg}
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
