package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
)

// storedText is a text member of an update: where its decoded value is
// (Sent) and what the record holds (Stored).
type storedText struct {
	Sent   *string
	Stored string
}

// sentBack reports whether sent is stored sent back unchanged: the same
// text, or the same as a form brings it back. A browser sends each line
// break of a field as CRLF (a hidden field's or a text area's), and the
// form's values come trimmed (formInto).
func sentBack(sent, stored string) bool {
	if sent == stored {
		return true
	}
	flat := func(s string) string {
		return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"))
	}
	return flat(sent) == flat(stored)
}

// keptText is a Decode refusal without the text rule's refusals of the
// members sent back as stored; nil when none is left. A record saved
// before the text rule may hold text it refuses (a description on two
// lines): sending it back unchanged, as a status button or an edit of
// another field does, must not be refused over text the client did not
// write (docs/design.md §4). Such a member takes its stored value, so it
// is saved as it was. stored names the members an update sends back; it
// is called only when the text rule refused some member.
func keptText(err error, stored func() map[string]storedText) error {
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeValidationFailed.Name || len(e.Fields) == 0 {
		return err
	}
	kept := stored()
	var rest []FieldError
	for _, f := range e.Fields {
		// Only a refusal of the text rule is spared: the value sent must
		// break it. Another refusal of the same member (bytes that are not
		// UTF-8, found before anything was decoded) leaves Sent empty, and
		// an empty value sent back as stored must not pass it.
		if t, ok := kept[f.Field]; ok && t.Sent != nil && refusedText(*t.Sent, textLine) && sentBack(*t.Sent, t.Stored) {
			*t.Sent = t.Stored
			continue
		}
		rest = append(rest, f)
	}
	switch {
	case len(rest) == 0:
		return nil
	case len(rest) == len(e.Fields):
		return err
	}
	return CodeValidationFailed.New(rest[0].Message).WithFields(rest...)
}

// decodeKept is decodeForm for an update that sends stored text back (a
// row's status button re-sends the record in hidden fields): the text
// rule spares the members of stored sent back unchanged (keptText).
func decodeKept(w http.ResponseWriter, r *http.Request, dst any, stored func() map[string]storedText) (refused map[string]string, ok bool) {
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
func storedOf[T any](sent any, get func() (T, error)) func() map[string]storedText {
	return func() map[string]storedText {
		cur, err := get()
		if err != nil {
			return nil
		}
		return textOf(sent, cur)
	}
}

// textOf is stored for keptText when an update sends back a whole record:
// each string member of sent (a pointer to the struct decoded) beside the
// member of stored (the record as it is) with the same JSON name. Any of
// them may hold text saved before the text rule (a name on two lines, a
// direction mark in an address); only those the rule refused are looked
// at, and only those sent back unchanged are spared. A list of strings (a
// redirect URI list) is looked at element by element: an element sent
// back as one of the stored elements is spared, wherever it now stands
// (textOfList); a new or changed element is not.
func textOf(sent, stored any) map[string]storedText {
	have := map[string]reflect.Value{}
	cv := reflect.ValueOf(stored)
	for i := 0; i < cv.NumField(); i++ {
		if name := jsonName(cv.Type().Field(i)); name != "" && (cv.Field(i).Kind() == reflect.String || isStrings(cv.Field(i).Type())) {
			have[name] = cv.Field(i)
		}
	}
	out := map[string]storedText{}
	sv := reflect.ValueOf(sent).Elem()
	for i := 0; i < sv.NumField(); i++ {
		name := jsonName(sv.Type().Field(i))
		cur, ok := have[name]
		switch {
		case !ok:
		case sv.Field(i).Type() == reflect.TypeFor[string]() && cur.Kind() == reflect.String:
			out[name] = storedText{sv.Field(i).Addr().Interface().(*string), cur.String()}
		case isStrings(sv.Field(i).Type()) && isStrings(cur.Type()):
			textOfList(out, name, sv.Field(i), cur)
		}
	}
	return out
}

// textOfList adds to out the elements of the list sent (named name) that
// are sent back as an element of the stored list: "name[i]", as the text
// rule names them, with that stored element.
func textOfList(out map[string]storedText, name string, sent, stored reflect.Value) {
	for i := 0; i < sent.Len(); i++ {
		el := sent.Index(i).Addr().Interface().(*string)
		for j := 0; j < stored.Len(); j++ {
			if s := stored.Index(j).String(); sentBack(*el, s) {
				out[fmt.Sprintf("%s[%d]", name, i)] = storedText{el, s}
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
