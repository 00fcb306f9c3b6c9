package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/trust"
)

// checkStatus is the check of an update of an organisation, authorisation
// server or application, run in the store's transaction against the
// current version: If-Match, then the status transition (DESIGN §4). It
// records the current status in *from, for the message after the save.
func (h *Directory) checkStatus(r *http.Request, cur any, from *string, curStatus, next string) error {
	if err := CheckIfMatch(r, cur); err != nil {
		return err
	}
	*from = curStatus
	if err := trust.CheckTransition(curStatus, next, h.Vocab); err != nil {
		return &Error{Status: http.StatusConflict, Code: "invalid_transition", Message: err.Error(), Fields: []FieldError{{Field: "Status", Code: "invalid_transition", Message: err.Error()}}}
	}
	return nil
}

// savedMessage says what a save did, in words: "Acme Bank was withdrawn."
// after a status change to the end state, not "saved" (issue 13).
func (h *Directory) savedMessage(what, name, from, to string) string {
	switch {
	case from == "" || from == to:
		return what + name + " was saved."
	case to == trust.Withdrawn && h.Vocab.EndWord() == trust.Withdrawn:
		return what + name + " was withdrawn."
	case from == trust.Withdrawn:
		return what + name + " was reactivated: it is " + h.Vocab.Display(to) + " again."
	default:
		return what + name + " is now " + h.Vocab.Display(to) + "."
	}
}
