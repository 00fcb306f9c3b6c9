// Package lifecycle holds the status vocabulary of the directory's records
// (Active, Pending, Suspended, Withdrawn/Inactive), which statuses each kind
// of record may take and the transitions between them (docs/design.md §4).
// It knows neither HTTP nor SQL.
package lifecycle

import (
	"fmt"
	"strings"
)

// Canonical statuses, stored once. The end state is stored as Withdrawn,
// the 2.6.0 word; the announced rename shows it as Inactive.
const (
	Active    = "Active"
	Pending   = "Pending"
	Suspended = "Suspended"
	Withdrawn = "Withdrawn"
)

// Kind is what carries a status.
type Kind string

// The kinds with the 2.6.0 status set.
const (
	Organisation        Kind = "Organisation"
	AuthorisationServer Kind = "AuthorisationServer"
	Application         Kind = "Application"
)

// Vocabulary is the word used for the end state in output.
type Vocabulary string

// The two vocabularies of --status-vocabulary.
const (
	VocabWithdrawn Vocabulary = "withdrawn"
	VocabInactive  Vocabulary = "inactive"
)

// ParseVocabulary reads --status-vocabulary.
func ParseVocabulary(s string) (Vocabulary, error) {
	switch strings.ToLower(s) {
	case "withdrawn", "":
		return VocabWithdrawn, nil
	case "inactive":
		return VocabInactive, nil
	}
	return "", fmt.Errorf("status vocabulary %q: want withdrawn or inactive", s)
}

// EndWord is the word in force for the end state.
func (v Vocabulary) EndWord() string {
	if v == VocabInactive {
		return "Inactive"
	}
	return Withdrawn
}

// OtherWord is the accepted synonym of the end state.
func (v Vocabulary) OtherWord() string {
	if v == VocabInactive {
		return Withdrawn
	}
	return "Inactive"
}

// Display turns a canonical status into the word of the vocabulary.
func (v Vocabulary) Display(canonical string) string {
	if canonical == Withdrawn {
		return v.EndWord()
	}
	return canonical
}

// Allowed lists the statuses of a kind, canonical.
func Allowed(k Kind) []string {
	switch k {
	case Organisation:
		return []string{Active, Pending, Withdrawn}
	case Application:
		return []string{Active, Suspended, Withdrawn}
	default:
		return []string{Active, Withdrawn}
	}
}

// ParseStatus reads a status as input: both Withdrawn and Inactive name the
// end state, always. The match is exact (case matters).
func ParseStatus(k Kind, s string) (string, bool) {
	if s == "Inactive" {
		s = Withdrawn
	}
	for _, a := range Allowed(k) {
		if s == a {
			return s, true
		}
	}
	return "", false
}

// StatusHelp is the message for an unknown status.
func StatusHelp(k Kind, v Vocabulary) string {
	words := []string{}
	for _, a := range Allowed(k) {
		words = append(words, v.Display(a))
	}
	return fmt.Sprintf("Status must be one of %s (%s is accepted for %s).", strings.Join(words, ", "), v.OtherWord(), v.EndWord())
}

// CheckTransition refuses leaving the end state by an ordinary status
// change. Leaving it is a reactivation, with its own rules (back to Active,
// Super Users only, a reason): see directory/status.go.
func CheckTransition(from, to string, v Vocabulary) error {
	if from == Withdrawn && to != Withdrawn {
		return fmt.Errorf("%s is an end state: it cannot become %s", v.EndWord(), v.Display(to))
	}
	return nil
}
