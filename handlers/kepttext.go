package handlers

import (
	"errors"
	"net/http"

	"github.com/trustframe/trustframe/directory"
)

// storedText is a text member of an update beside the record's value
// (directory.StoredText, whose fields it has).
type storedText struct {
	Sent   *string
	Stored string
}

// sentBack reports whether sent is the record's text stored, unchanged
// (directory.SameText).
func sentBack(sent, stored string) bool { return directory.SameText(sent, stored) }

// textOf pairs the text members of an update sent with those of the
// record stored (directory.StoredTexts).
func textOf(sent, stored any) map[string]storedText {
	out := map[string]storedText{}
	for k, t := range directory.StoredTexts(sent, stored) {
		out[k] = storedText(t)
	}
	return out
}

// keptText is a Decode refusal without the text rule's refusals of the
// record's own text sent back unchanged (directory.UnchangedText); nil
// when none is left. stored pairs the members of the update with the
// record's; it is called only when some member was refused.
func keptText(err error, stored func() map[string]storedText) error {
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeValidationFailed.Name || len(e.Fields) == 0 {
		return err
	}
	texts := map[string]directory.StoredText{}
	for k, t := range stored() {
		texts[k] = directory.StoredText(t)
	}
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
