// Package jsonbody checks a JSON body beside the Go type it is decoded
// into for what encoding/json would quietly accept: a member name in
// another case, a member given twice, text that is not UTF-8, a timestamp
// that is not RFC 3339. It knows nothing of HTTP: the request decoder
// turns its Error into the API's refusal (docs/design.md §4).
package jsonbody

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/maphash"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind says why Check refused a member.
type Kind int

// The refusals of Check.
const (
	// Repeated is a member that appears twice in one object
	// ({"Status":"Inactive","Status":"Active"}): encoding/json keeps the
	// last, a proxy or a validator in front of us may have read the first.
	Repeated Kind = iota + 1
	// WrongCase is a member name that matches a field only when case is
	// ignored ({"organisationName": …} for OrganisationName): encoding/json
	// takes it; our field names are case-sensitive, so it is unknown.
	WrongCase
	// NotTimestamp is a value of a time.Time member that is not an RFC 3339
	// string (encoding/json's error would name no member).
	NotTimestamp
	// NotText is a string or member name holding bytes that are not UTF-8,
	// or an escape of half a UTF-16 surrogate pair: encoding/json replaces
	// either with U+FFFD, so the text kept would not be the text sent.
	NotText
)

// Error is a refusal of one member of a body.
type Error struct {
	Kind Kind
	// Member names the member as encoding/json decodes it ("Tags.Name";
	// "" for the body itself). Lists add no name: an element is named as
	// its list.
	Member string
	// Message says what is wrong with the member, to be read after its
	// name or beside it.
	Message string
	// Want is, for WrongCase, the field's name as it is written.
	Want string
}

func (e *Error) Error() string { return "jsonbody: " + strings.TrimSpace(e.Member+" "+e.Message) }

// Check walks a JSON body beside the Go type t it is decoded into and
// returns an *Error for the first member it refuses (see Kind).
//
// Values decoded into `any`, maps or types with their own UnmarshalJSON
// are checked for repeated members only. Type mismatches are left to the
// decoder, which names them, and so is JSON that is not JSON: the walk
// reads the body as encoding/json's Decoder.Token would, token by token,
// and answers the first refusal met before the text stops being JSON.
//
// The walk reads the body's bytes in place, without recursion: it keeps
// where each open object and list starts and the names of the open
// objects' members (offsets into the body), compares names as bytes and
// builds a string only to name a member in a refusal, so what it holds
// grows with the body's width and depth, never with the number of
// values (docs/benchmarks.md). It stops when ctx ends (the client went
// away) and returns ctx's error.
func Check(ctx context.Context, body []byte, t reflect.Type) error {
	s := keyScan{ctx: ctx, b: body, seed: maphash.MakeSeed()}
	if err := s.walk(t); err != errNotJSON {
		return err
	}
	return ctx.Err() // nil: the decoder says what is malformed
}

// errNotJSON stops a walk where the body stops being JSON.
var errNotJSON = errors.New("jsonbody: not JSON")

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
)

// validTimestamp is what time.Time's UnmarshalJSON takes.
func validTimestamp(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// walkType is what the walk needs of a Go type a value is decoded into.
type walkType struct {
	time   bool                    // a time.Time: a string in RFC 3339, or null
	fields map[string]reflect.Type // a struct's members by name (nil: not a struct)
	folded map[string]string       // a struct's names in lower case
	list   reflect.Type            // a slice's or array's elements
	values reflect.Type            // a map's values
}

// anyType is a value decoded into `any`, into a type with its own
// UnmarshalJSON, or skipped: only its objects' repeated members count.
var anyType = &walkType{}

var walkTypes sync.Map // reflect.Type → *walkType

// walkTypeOf is what the walk needs of t (nil: anything).
func walkTypeOf(t reflect.Type) *walkType {
	if t == nil {
		return anyType
	}
	if k, ok := walkTypes.Load(t); ok {
		return k.(*walkType)
	}
	e := t
	for e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	k := &walkType{time: e == timeType}
	if !reflect.PointerTo(e).Implements(unmarshalerType) && !e.Implements(unmarshalerType) {
		switch e.Kind() {
		case reflect.Slice, reflect.Array:
			k.list = e.Elem()
		case reflect.Map:
			k.values = e.Elem()
		case reflect.Struct:
			k.fields, k.folded = jsonFields(e)
		}
	}
	walkTypes.Store(t, k)
	return k
}

// keyScan is one walk of a body by Check.
type keyScan struct {
	ctx    context.Context
	b      []byte
	i      int // the next byte to read
	values int // read so far: the context is looked at every ctxEvery
	open   []keyFrame
	names  []keyName // the member names of the open objects, outermost first
	set    []int32   // open addressing over names: index+1, 0 for none
	seed   maphash.Seed
	buf    []byte // a name with escapes, unescaped
	other  []byte // the name it is compared with
}

// keyFrame is an object or list the walk is in.
type keyFrame struct {
	object bool
	fresh  bool      // nothing read in it yet
	in     *walkType // an object's type
	elem   *walkType // a list's elements' type
	names  int       // an object's first name in keyScan.names
	name   int       // an object's current member: the offset of its name, -1 before the first
}

// keyName is a member name of an open object: where it starts in the
// body (its opening quote) and its hash.
type keyName struct {
	at   int32
	hash uint32
}

// ctxEvery is how many values the walk reads between two looks at its
// context.
const ctxEvery = 1024

// walk reads the body's first value, decoded into t, and what is in it.
func (s *keyScan) walk(t reflect.Type) error {
	kt := walkTypeOf(t)
	for {
		if err := s.value(kt); err != nil {
			return err
		}
		next, err := s.next()
		if next == nil || err != nil {
			return err
		}
		kt = next
	}
}

// value reads a scalar, or the bracket that opens an object or a list;
// kt is the type it is decoded into.
func (s *keyScan) value(kt *walkType) error {
	if s.values++; s.values%ctxEvery == 0 && s.ctx.Err() != nil {
		return s.ctx.Err()
	}
	s.space()
	if s.i >= len(s.b) {
		return errNotJSON
	}
	at := s.i
	switch c := s.b[s.i]; c {
	case '{', '[':
		if kt.time {
			return s.notTimestamp()
		}
		s.i++
		f := keyFrame{object: c == '{', fresh: true, in: kt, names: len(s.names), name: -1}
		if c == '[' {
			f.elem = walkTypeOf(kt.list)
		}
		s.open = append(s.open, f)
		return nil
	case '"':
		escaped, lone, err := s.str()
		if err != nil {
			return err
		}
		if err := s.text(at, lone); err != nil {
			return err
		}
		if kt.time && !validTimestamp(string(s.unescaped(at, s.i, escaped, &s.buf))) {
			return s.notTimestamp()
		}
		return nil
	case 'n':
		return s.literal("null")
	case 't', 'f':
		want := "true"
		if c == 'f' {
			want = "false"
		}
		if err := s.literal(want); err != nil {
			return err
		}
	default:
		if !s.number() {
			return errNotJSON
		}
	}
	if kt.time {
		return s.notTimestamp()
	}
	return nil
}

// next reads what follows a value up to the next value, closing the
// objects and lists that end; it returns the type the next value is
// decoded into, nil when the body's first value has ended.
func (s *keyScan) next() (*walkType, error) {
	for len(s.open) > 0 {
		f := &s.open[len(s.open)-1]
		s.space()
		if s.i >= len(s.b) {
			return nil, errNotJSON
		}
		c := s.b[s.i]
		closer := byte(']')
		if f.object {
			closer = '}'
		}
		switch {
		case c == closer:
			s.i++
			s.close()
			continue
		case c == ',' && !f.fresh:
			s.i++
		case !f.fresh:
			return nil, errNotJSON
		}
		f.fresh = false
		if !f.object {
			return f.elem, nil
		}
		return s.member(f)
	}
	return nil, nil
}

// close ends the innermost object or list, forgetting an object's names.
func (s *keyScan) close() {
	f := s.open[len(s.open)-1]
	s.open = s.open[:len(s.open)-1]
	if !f.object {
		return
	}
	mask := len(s.set) - 1
	for n := len(s.names) - 1; n >= f.names; n-- {
		// The latest name in first out: no other name's probe passes
		// where it was.
		j := int(s.names[n].hash) & mask
		for s.set[j] != int32(n+1) {
			j = (j + 1) & mask
		}
		s.set[j] = 0
	}
	s.names = s.names[:f.names]
}

// member reads the name of a member of object f and the colon after it,
// and refuses the name when it is not UTF-8, repeats one of the object's
// names, or matches a field of the struct only when case is ignored; it
// returns the type the member's value is decoded into.
func (s *keyScan) member(f *keyFrame) (*walkType, error) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, errNotJSON
	}
	at := s.i
	escaped, lone, err := s.str()
	if err != nil {
		return nil, err
	}
	f.name = at
	if err := s.text(at, lone); err != nil {
		return nil, err
	}
	name := s.unescaped(at, s.i, escaped, &s.buf)
	if s.repeated(f, at, name) {
		return nil, &Error{Kind: Repeated, Member: s.at(), Message: "appears more than once"}
	}
	vt := f.in.values
	if f.in.fields != nil {
		ft, exact := f.in.fields[string(name)]
		if !exact {
			if want, near := s.foldedName(f.in, name); near {
				return nil, &Error{Kind: WrongCase, Member: s.at(), Message: "not a field of this resource; did you mean " + want + "?", Want: want}
			}
			// Unknown altogether: the decoder refuses it by name.
		}
		vt = ft
	}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return nil, errNotJSON
	}
	s.i++
	return walkTypeOf(vt), nil
}

// repeated reports whether name, the member name at offset at, is one
// of the names object f has read, and adds it to them when it is not.
func (s *keyScan) repeated(f *keyFrame, at int, name []byte) bool {
	if 4*(len(s.names)+1) > 3*len(s.set) {
		s.grow()
	}
	h := uint32(maphash.Bytes(s.seed, name))
	mask := len(s.set) - 1
	for j := int(h) & mask; ; j = (j + 1) & mask {
		n := int(s.set[j]) - 1
		if n < 0 {
			if len(s.names) == cap(s.names) { // double: append grows a long slice by a quarter
				s.names = append(make([]keyName, 0, max(64, 2*cap(s.names))), s.names...)
			}
			s.set[j] = int32(len(s.names) + 1)
			s.names = append(s.names, keyName{at: int32(at), hash: h})
			return false
		}
		if k := s.names[n]; n >= f.names && k.hash == h {
			end := stringEnd(s.b, int(k.at))
			if bytes.Equal(s.unescaped(int(k.at), end, bytes.IndexByte(s.b[k.at:end], '\\') >= 0, &s.other), name) {
				return true
			}
		}
	}
}

// grow doubles the set of names (at least 64 places).
func (s *keyScan) grow() {
	s.set = make([]int32, max(64, 2*len(s.set)))
	mask := len(s.set) - 1
	for n, k := range s.names {
		j := int(k.hash) & mask
		for s.set[j] != 0 {
			j = (j + 1) & mask
		}
		s.set[j] = int32(n + 1)
	}
}

// foldedName is the field name of struct kt that name matches when case is
// ignored, by encoding/json's rule (Unicode case folding: ſ is an s, the
// Kelvin sign a k), which lower case alone misses.
func (s *keyScan) foldedName(kt *walkType, name []byte) (string, bool) {
	s.other = s.other[:0]
	for _, r := range string(name) { // no copy: the compiler ranges over name
		s.other = utf8.AppendRune(s.other, unicode.ToLower(r))
	}
	if want, ok := kt.folded[string(s.other)]; ok {
		return want, true
	}
	for field := range kt.fields {
		if bytes.EqualFold([]byte(field), name) {
			return field, true
		}
	}
	return "", false
}

// at names the value being read ("Tags.Name"; "" at the top): the names
// of the members the walk is in, as encoding/json decodes them. Lists add
// no name: an element is named as its list.
func (s *keyScan) at() string {
	var names []string
	for _, f := range s.open {
		if f.object && f.name >= 0 {
			var name string
			_ = json.Unmarshal(s.b[f.name:stringEnd(s.b, f.name)], &name)
			names = append(names, name)
		}
	}
	return strings.Join(names, ".")
}

// timestampMessage is what a NotTimestamp refusal says.
const timestampMessage = "must be an RFC 3339 timestamp like 2026-03-01T09:30:00Z (read-only timestamps may be left out)"

// notTimestamp refuses a value of a time.Time member that is not an
// RFC 3339 string.
func (s *keyScan) notTimestamp() error {
	return &Error{Kind: NotTimestamp, Member: s.at(), Message: timestampMessage}
}

// text refuses the string that starts at offset at and ends where the
// walk is when its bytes are not UTF-8, or when lone, one of its escapes
// names half a UTF-16 surrogate pair ("\ud800"): encoding/json replaces
// either with U+FFFD, so the text kept would not be the text sent.
func (s *keyScan) text(at int, lone bool) error {
	msg := ""
	switch {
	case !utf8.Valid(s.b[at:s.i]):
		msg = "contains bytes that are not UTF-8"
	case lone:
		msg = `holds an escape of half a UTF-16 surrogate pair (such as \ud800), which is no character`
	default:
		return nil
	}
	return &Error{Kind: NotText, Member: s.at(), Message: msg}
}

// space skips white space.
func (s *keyScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// literal reads want (null, true or false).
func (s *keyScan) literal(want string) error {
	if !bytes.HasPrefix(s.b[s.i:], []byte(want)) {
		return errNotJSON
	}
	s.i += len(want)
	return nil
}

// number reads a number, false when what is there is not one.
func (s *keyScan) number() bool {
	b, i := s.b, s.i
	digits := func() bool {
		n := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		if i++; !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}

// str reads the string that starts where the walk is, and says whether
// it holds escapes and whether one of them is half a UTF-16 surrogate
// pair with no other half, which encoding/json would decode into a U+FFFD
// the client did not write.
func (s *keyScan) str() (escaped, lone bool, err error) {
	b, i := s.b, s.i+1
	halves := 0 // escapes of half a pair without its other half
	for {
		if i >= len(b) {
			return false, false, errNotJSON
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return escaped, halves > 0, nil
		case c < 0x20:
			return false, false, errNotJSON
		case c != '\\':
			i++
			continue
		}
		escaped = true
		if i+1 >= len(b) {
			return false, false, errNotJSON
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
			continue
		case 'u':
		default:
			return false, false, errNotJSON
		}
		r := hex4(b[i:])
		if r < 0 {
			return false, false, errNotJSON
		}
		i += 6
		switch {
		case utf16.IsSurrogate(r) && utf16.DecodeRune(r, hex4(b[i:])) != utf8.RuneError:
			i += 6 // a pair
		case utf16.IsSurrogate(r):
			halves++
		}
	}
}

// hex4 is the rune of the escape \uXXXX that b starts with, -1 when b
// does not start with one.
func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// stringEnd is the offset after the closing quote of the string the walk
// has read at offset at.
func stringEnd(b []byte, at int) int {
	for i := at + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// unescaped is the text of the string b[at:end] (quotes included) as
// encoding/json decodes it: its bytes in place when it holds no escape,
// else decoded into *buf.
func (s *keyScan) unescaped(at, end int, escaped bool, buf *[]byte) []byte {
	raw := s.b[at+1 : end-1]
	if !escaped {
		return raw
	}
	out := (*buf)[:0]
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			out = append(out, raw[i])
			i++
			continue
		}
		switch c := raw[i+1]; c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(raw[i:])
			i += 6
			if utf16.IsSurrogate(r) {
				if pair := utf16.DecodeRune(r, hex4(raw[i:])); pair != utf8.RuneError {
					r = pair
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // " \ /
			out = append(out, c)
		}
		i += 2
	}
	*buf = out
	return out
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
