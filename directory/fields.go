package directory

import (
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/lifecycle"
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
