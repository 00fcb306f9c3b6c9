package directory

import (
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/lifecycle"
)

// Code says what kind of refusal an Error is. Handlers answer each code
// with one HTTP status, in one place (handlers/errors.go).
type Code string

// The codes of the application layer.
const (
	CodeInvalid  Code = "validation_failed" // fields need attention (422)
	CodeNotFound Code = "not_found"         // the record does not exist (404)
	CodeConflict Code = "conflict"          // the state of the data stops it (409)
)

// Error is a refusal of a use case: a code, a message for people, and for
// CodeInvalid the message of each field.
type Error struct {
	Code    Code
	Message string
	Fields  Fields
	// More are problems listed after Fields, each with its own code
	// (several issuer problems on Issuer).
	More  []Problem
	Extra map[string]any // more members of the API's problem body
}

// Problem is one problem with a field, with the code that says its kind.
type Problem struct {
	Field, Code, Message string
}

func (e *Error) Error() string { return "directory: " + string(e.Code) + ": " + e.Message }

// NotFound is the refusal of a record that does not exist; what names the
// kind ("Contact").
func NotFound(what string) *Error {
	return &Error{Code: CodeNotFound, Message: what + " not found"}
}

// Named turns the store's ErrNotFound into NotFound(what); any other error
// is returned as it is.
func Named(err error, what string) error {
	if errors.Is(err, ErrNotFound) {
		return NotFound(what)
	}
	return err
}

// Fields is the message of each field that needs attention, as a form
// shows it beside the field and the API lists it in the problem body.
type Fields map[string]string

// Add records msg on field unless the field already has a message: the
// first problem found with a field is the one shown.
func (f Fields) Add(field, msg string) {
	if _, named := f[field]; !named {
		f[field] = msg
	}
}

// Merge adds every message of other, which win over f's own.
func (f Fields) Merge(other Fields) Fields {
	for k, v := range other {
		f[k] = v
	}
	return f
}

// Take adds err to f when it is a *FieldError and reports nil; any other
// error is returned for the caller to stop on.
func (f Fields) Take(err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		f.Add(fe.Field, fe.Message)
		return nil
	}
	return err
}

// Err is the refusal of every field in f, or nil when f is empty.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalid, Message: "Some fields need attention.", Fields: f}
}

// Names are f's fields in order.
func (f Fields) Names() []string {
	out := make([]string, 0, len(f))
	for k := range f {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FieldError is a refusal of one field that only the database can judge
// (an unknown contact type, a duplicate issuer).
type FieldError struct {
	Field, Message string
	// Beside is the message as a form shows it beside the field, where the
	// label names it ("This field cannot contain …"); "" when Message reads
	// as well there.
	Beside string
}

func (e *FieldError) Error() string { return "store: " + e.Field + ": " + e.Message }

// ConflictError is a change refused because of the state of the data (a
// duplicate, the last Active Super User, something in use). Message says
// why, for people; InTheWay, when not empty, names what is in the way by
// kind: the API sends the two as the "summary|payload" message of
// docs/design.md §4 and the console lists the records.
type ConflictError struct {
	Message  string
	InTheWay InTheWay
}

func (e *ConflictError) Error() string { return "store: conflict: " + e.Message }
func (e *ConflictError) Unwrap() error { return ErrConflict }

// The store's sentinel errors.
var (
	// ErrNotFound is a record that does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict is what every ConflictError unwraps to.
	ErrConflict = errors.New("store: conflict")
	// ErrBusy is a write that waited for the database's one writer longer
	// than the busy timeout: nothing changed, the same request may be sent
	// again.
	ErrBusy = errors.New("store: the database is busy")
	// ErrFull is a write refused because the disk is full: nothing
	// changed, the same request succeeds once an operator has made room.
	ErrFull = errors.New("store: the disk is full")
)

// Required adds "<label> is required." on name when s is blank.
func (f Fields) Required(name, s, label string) {
	if strings.TrimSpace(s) == "" {
		f.Add(name, label+" is required.")
	}
}

// MaxLen adds a message on name when s has more than max characters.
func (f Fields) MaxLen(name, s string, max int) {
	if len([]rune(s)) > max {
		f.Add(name, "At most "+strconv.Itoa(max)+" characters.")
	}
}

// DottedDomain reports an address whose domain has a dot and does not end
// with one: an address written to from outside (a contact's) is
// name@example.com, and name@localhost or name@example.com. is a typing
// mistake (docs/design.md §4).
func DottedDomain(email string) bool {
	domain := email[strings.LastIndexByte(email, '@')+1:]
	return strings.Contains(domain, ".") && !strings.HasSuffix(domain, ".")
}

// Dates checks optional YYYY-MM-DD dates and start ≤ end; endLabel is the
// end field's label ("expiry date"), so the message uses its words.
func (f Fields) Dates(startField, start, endField, end, endLabel string, startRequired bool) {
	if start == "" && startRequired {
		f.Add(startField, "The start date is required (YYYY-MM-DD).")
	}
	if start != "" && !ValidDate(start) {
		f.Add(startField, "Use a date like 2026-11-22.")
	}
	if end != "" && !ValidDate(end) {
		f.Add(endField, "Use a date like 2027-11-22.")
	}
	if start != "" && end != "" && ValidDate(start) && ValidDate(end) && end < start {
		f.Add(endField, "The "+endLabel+" is before the start date.")
	}
}

// ValidDate reports whether s is a YYYY-MM-DD date.
func ValidDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// Status checks a Reference Data or certification status: Active or
// Inactive, Active when a new record gives none; an update that gives none
// keeps the stored one.
func (f Fields) Status(status *string, isNew bool) {
	if !isNew && *status == "" {
		return
	}
	if *status == "" {
		*status = "Active"
	}
	if *status != "Active" && *status != "Inactive" {
		f.Add("Status", "Status must be Active or Inactive.")
	}
}

// Lifecycle checks the status of an organisation, server or application
// (a kind of lifecycle): a new one without a status gets def, a status is
// put in its canonical word (Inactive is Withdrawn), and a word the kind
// does not take is refused with the statuses it takes, in the
// deployment's words (vocab).
func (f Fields) Lifecycle(status *string, kind lifecycle.Kind, def string, isNew bool, vocab lifecycle.Vocabulary) {
	if *status == "" && isNew {
		*status = def
		return
	}
	if canon, ok := lifecycle.ParseStatus(kind, *status); ok {
		*status = canon
		return
	}
	f.Add("Status", lifecycle.StatusHelp(kind, vocab))
}
