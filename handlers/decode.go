package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/jsonbody"
)

// MaxBody is the largest request body accepted outside attachments.
const MaxBody = 1 << 20

// DecodeAs reads the body into api for a JSON request and into form for a
// console form (whose fields differ from the API's), and reports which:
// true for the API's shape.
func DecodeAs(w http.ResponseWriter, r *http.Request, api, form any) (bool, error) {
	if WantsJSON(r) {
		return true, Decode(w, r, api)
	}
	return false, Decode(w, r, form)
}

// FormRefusal is, for a console form that Decode refused field by field
// (the text rule, a NUL), the message of each field to be shown beside it
// (FieldError.Beside); nil for the API and for any other error. An element
// of a list (RedirectUri[1]) is shown on the list's one field, the first
// refused element's message.
func FormRefusal(r *http.Request, err error) map[string]string {
	var e *Error
	if err == nil || WantsJSON(r) || !errors.As(err, &e) || e.Code != CodeValidationFailed.Name || len(e.Fields) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, f := range e.Fields {
		name := f.Field
		if list, _, ok := listElement(f.Field); ok {
			name = list
		}
		if _, shown := out[name]; shown {
			continue
		}
		if out[name] = f.Beside; f.Beside == "" {
			out[name] = f.Message
		}
	}
	return out
}

// listElement splits the name of a list's element ("RedirectUri[1]").
func listElement(field string) (name string, i int, ok bool) {
	name, rest, found := strings.Cut(field, "[")
	idx, isList := strings.CutSuffix(rest, "]")
	if !found || !isList || strings.ContainsAny(idx, "[].") {
		return "", 0, false
	}
	i, err := strconv.Atoi(idx)
	return name, i, err == nil
}

// decodeForm is Decode for a handler that shows its form again with its
// own checks: a console form's fields refused by Decode (FormRefusal) come
// back to be added to those checks' messages; any other refusal is
// answered, and ok is false.
func decodeForm(w http.ResponseWriter, r *http.Request, dst any) (refused map[string]string, ok bool) {
	err := Decode(w, r, dst)
	if err == nil {
		return nil, true
	}
	if refused = FormRefusal(r, err); refused != nil {
		return refused, true
	}
	WriteError(w, r, err)
	return nil, false
}

// ListSize is the page size of a list: the console shows up to 200 rows
// at once, the API pages as asked.
func ListSize(r *http.Request, size int) int {
	if WantsJSON(r) {
		return size
	}
	return 200
}

// Decode reads a JSON body (unknown fields, names in another case and
// repeated members refused: jsonbody.Check) or a form into dst.
// Forms are mapped by the `json` tag name of each string field.
func Decode(w http.ResponseWriter, r *http.Request, dst any) error {
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil && r.Header.Get("Content-Type") != "" {
		return CodeUnsupportedMediaType.New("Content-Type is not a media type")
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	switch ct {
	case "application/json", "":
		if ct == "" && IsAPI(r) {
			return CodeUnsupportedMediaType.New("send Content-Type: application/json")
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return jsonError(err)
		}
		if at, deep := formats.JSONTooDeep(body); deep {
			return CodeMalformedJSON.New(tooDeep("the body", at))
		}
		if err := jsonbody.Check(r.Context(), body, reflect.TypeOf(dst)); err != nil {
			return memberError(err)
		}
		// encoding/json takes null as "leave dst alone": an update would
		// then clear every member (docs/design.md §4).
		if bytes.Equal(bytes.TrimSpace(body), []byte("null")) {
			return CodeMalformedJSON.New("the body must be a JSON object, not null").WithFields(FieldError{Code: FieldInvalidType, Message: "must be a JSON object, not null"})
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(dst); err != nil {
			return jsonError(err)
		}
		if dec.More() {
			return CodeMalformedJSON.New("the body holds more than one JSON value")
		}
		if _, err := dec.Token(); err != io.EOF {
			return CodeMalformedJSON.New("the body holds more than one JSON value")
		}
		return checkText(reflect.ValueOf(dst), "")
	case "application/x-www-form-urlencoded", "multipart/form-data":
		if IsAPI(r) {
			return CodeUnsupportedMediaType.New("the API takes application/json")
		}
		var err error
		if ct == "multipart/form-data" {
			err = r.ParseMultipartForm(MaxBody)
		} else {
			err = r.ParseForm()
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return CodeTooLarge.New(fmt.Sprintf("the body is larger than %d bytes", MaxBody))
			}
			return CodeMalformedForm.New("the form could not be read")
		}
		if err := formInto(r.PostForm, dst); err != nil {
			return err
		}
		return checkText(reflect.ValueOf(dst), "")
	default:
		return CodeUnsupportedMediaType.New("unsupported Content-Type " + ct)
	}
}

// tooDeep says that JSON (what: "the body", "The policy") nests deeper
// than formats.MaxJSONDepth; at is the byte offset of the bracket one
// level too deep.
func tooDeep(what string, at int) string {
	return fmt.Sprintf("%s nests objects and arrays deeper than the limit of %d levels (at byte %d)", what, formats.MaxJSONDepth, at)
}

// memberError is the refusal of a member jsonbody.Check refused: a name in
// another case is an unknown field (400), a repeated member or a timestamp
// in another form malformed JSON (400), text that is not text a field
// that needs attention (422). Any other error (the client went away) is
// returned as it is.
func memberError(err error) error {
	var e *jsonbody.Error
	if !errors.As(err, &e) {
		return err
	}
	f := FieldError{Field: e.Member, Message: e.Message}
	switch e.Kind {
	case jsonbody.Repeated:
		f.Code = CodeMalformedJSON.Name
		return CodeMalformedJSON.New("member " + e.Member + " appears more than once").WithFields(f)
	case jsonbody.WrongCase:
		f.Code = FieldUnknownField
		return CodeUnknownField.New("unknown field " + e.Member + " (field names are case-sensitive: " + e.Want + ")").WithFields(f)
	case jsonbody.NotTimestamp:
		f.Code = FieldInvalidType
		return CodeMalformedJSON.New(e.Member + " " + e.Message).WithFields(f)
	default: // jsonbody.NotText
		f.Code = FieldInvalid
		return CodeValidationFailed.New(strings.TrimSpace(e.Member + " " + e.Message)).WithFields(f)
	}
}

func jsonError(err error) error {
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return CodeTooLarge.New(fmt.Sprintf("the body is larger than %d bytes", MaxBody))
	case errors.As(err, &se):
		return CodeMalformedJSON.New(fmt.Sprintf("malformed JSON at byte %d", se.Offset))
	case errors.As(err, &te) && te.Field == "":
		return CodeMalformedJSON.New("the body must be a JSON object").WithFields(FieldError{Code: FieldInvalidType, Message: "must be a JSON object, not " + te.Value})
	case errors.As(err, &te):
		kind := jsonKind(te.Type)
		return CodeMalformedJSON.New(te.Field + " must be " + kind).WithFields(FieldError{Field: te.Field, Code: FieldInvalidType, Message: "must be " + kind + ", not " + te.Value})
	case errors.Is(err, io.EOF):
		return CodeMalformedJSON.New("the body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return CodeMalformedJSON.New("the body ends too early")
	case errors.As(err, new(*time.ParseError)) || strings.HasPrefix(err.Error(), "Time.UnmarshalJSON"):
		// A timestamp member (CreatedOn, UpdatedOn, …) sent back in another
		// form: valid JSON, and encoding/json does not say which member.
		return CodeMalformedJSON.New("a timestamp member (such as CreatedOn) must be an RFC 3339 string like 2026-03-01T09:30:00Z; read-only timestamps may be left out")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return CodeUnknownField.New("unknown field " + f).WithFields(FieldError{Field: f, Code: FieldUnknownField, Message: "not a field of this resource"})
	default:
		return CodeMalformedJSON.New("the body is not valid JSON")
	}
}

// jsonKind names a Go type as the JSON a client sends for it, never the
// service's own type names (store.GroupRole).
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "a JSON object"
	}
}

// countryField names the form fields that hold an ISO 3166-1 code.
var countryField = map[string]bool{"CountryOfRegistration": true, "Country": true}

// formInto copies form values into the fields of a struct pointer, by
// their json tag names: strings take the first value, string slices take
// every value (a textarea's lines count as values), bools take on/true.
func formInto(form url.Values, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return CodeInternal.New("Internal error")
	}
	v = v.Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		vals, ok := form[name]
		if !ok {
			continue
		}
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.String && countryField[name]:
			// Typed "gb" in a form means GB; the API keeps its strict
			// capitals (docs/design.md §10).
			f.SetString(strings.ToUpper(strings.TrimSpace(vals[0])))
		case f.Kind() == reflect.String:
			f.SetString(strings.TrimSpace(vals[0]))
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			var out []string
			for _, val := range vals {
				for _, line := range strings.Split(val, "\n") {
					if line = strings.TrimSpace(line); line != "" {
						out = append(out, line)
					}
				}
			}
			f.Set(reflect.ValueOf(out).Convert(f.Type()))
		case f.Kind() == reflect.Bool:
			f.SetBool(vals[0] == "on" || vals[0] == "true")
		}
	}
	return nil
}

// checkText refuses text that one of the engines cannot keep as sent: a
// NUL character (PostgreSQL's text holds none) or bytes that are not UTF-8
// (a form; in JSON, jsonbody.Check refuses them before decoding replaces them).
// Both engines then store the same thing, and the client learns which
// field to fix (docs/design.md §4). It then applies the text rule above
// to every member, and refuses naming each member that breaks it.
func checkText(v reflect.Value, path string) error {
	bad, unkeepable := directory.CheckText(v, path)
	if unkeepable != nil {
		return CodeValidationFailed.New(unkeepable.Field + " " + unkeepable.Message).WithFields(FieldError{Field: unkeepable.Field, Code: FieldInvalid, Message: unkeepable.Message, Beside: unkeepable.Beside})
	}
	if len(bad) == 0 {
		return nil
	}
	e := CodeValidationFailed.New(bad[0].Message)
	for _, f := range bad {
		e.Fields = append(e.Fields, FieldError{Field: f.Field, Code: FieldInvalid, Message: f.Message, Beside: f.Beside})
	}
	return e
}

// keptText is a Decode refusal without the text rule's refusals of the
// record's own text sent back unchanged (directory.UnchangedText); nil
// when none is left. stored pairs the members of the update with the
// record's; it is called only when some member was refused.
func keptText(err error, stored func() map[string]directory.StoredText) error {
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeValidationFailed.Name || len(e.Fields) == 0 {
		return err
	}
	texts := stored()
	var rest []FieldError
	for _, f := range e.Fields {
		if !directory.UnchangedText(texts, f.Field) {
			rest = append(rest, f)
		}
	}
	switch {
	case len(rest) == 0:
		return nil
	case len(rest) == len(e.Fields):
		return err
	}
	return CodeValidationFailed.New(rest[0].Message).WithFields(rest...)
}

// decodeKept is decodeForm for an update that may send the record's own
// text back (a row's status button re-sends the record in hidden fields):
// the text rule lets through what stored pairs with the record unchanged
// (keptText).
func decodeKept(w http.ResponseWriter, r *http.Request, dst any, stored func() map[string]directory.StoredText) (refused map[string]string, ok bool) {
	err := keptText(Decode(w, r, dst), stored)
	if err == nil {
		return nil, true
	}
	if refused = FormRefusal(r, err); refused != nil {
		return refused, true
	}
	WriteError(w, r, err)
	return nil, false
}

// storedOf is stored for keptText when the update's record is read by
// get: textOf sent and that record, or nothing when it cannot be read
// (the update then answers for that itself).
func storedOf[T any](sent any, get func() (T, error)) func() map[string]directory.StoredText {
	return func() map[string]directory.StoredText {
		cur, err := get()
		if err != nil {
			return nil
		}
		return directory.StoredTexts(sent, cur)
	}
}
