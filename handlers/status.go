package handlers

import (
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

// checkStatus is the check of an update of an organisation, authorisation
// server or application, run in the store's transaction against the
// current version: If-Match, then the status transition (docs/design.md
// §4). Leaving the end state is a reactivation: back to Active only, by a
// Super User only (403), with a StatusReason (422) that the audit record
// keeps. It records the current status in *from, for the message after
// the save.
func (h *Org) checkStatus(r *http.Request, cur any, from *string, curStatus, next, reason string) error {
	if err := CheckIfMatch(r, cur); err != nil {
		return err
	}
	// The reason goes into the audit record whatever the transition, so
	// it has its maximum on every update (docs/decisions.md, "Field limits").
	if len([]rune(reason)) > maxReason {
		msg := "At most " + itoa(maxReason) + " characters."
		return CodeValidationFailed.New("StatusReason: " + msg).WithFields(FieldError{Field: "StatusReason", Code: FieldInvalid, Message: msg})
	}
	*from = curStatus
	if curStatus != lifecycle.Withdrawn || next == lifecycle.Withdrawn {
		return nil
	}
	end := h.Vocab.EndWord()
	switch {
	case next != lifecycle.Active:
		msg := end + " can only become Active again (a reactivation), not " + h.Vocab.Display(next) + "."
		return CodeInvalidTransition.New(msg).WithFields(FieldError{Field: "Status", Code: CodeInvalidTransition.Name, Message: msg})
	case !PrincipalFrom(r.Context()).IsSuperUser():
		msg := "Only a Super User can set something " + end + " back to Active."
		return CodeForbidden.New(msg).WithFields(FieldError{Field: "Status", Code: CodeForbidden.Name, Message: msg})
	case strings.TrimSpace(reason) == "":
		msg := "Say why it becomes Active again: StatusReason is required to leave " + end + " and is kept in the audit log."
		return CodeValidationFailed.New(msg).WithFields(FieldError{Field: "StatusReason", Code: FieldRequired, Message: msg},
			FieldError{Field: "Status", Code: FieldReasonRequired, Message: "Leaving " + end + " needs a reason, sent as StatusReason (in the console: Reactivate, on its page)."})
	}
	return nil
}

// actorBecause is the audit actor of a change made for a reason.
func (h *Org) actorBecause(r *http.Request, reason string) store.Audit {
	return store.Audit{Actor: PrincipalFrom(r.Context()).Email, Reason: strings.TrimSpace(reason)}
}

// savedMessage says what a save did, in words: "Acme Bank was withdrawn."
// after a status change to the end state, not "saved" (issue 13).
func (h *Org) savedMessage(what, name, from, to string) string {
	switch {
	case from == "" || from == to:
		return what + name + " was saved."
	case to == lifecycle.Withdrawn && h.Vocab.EndWord() == lifecycle.Withdrawn:
		return what + name + " was withdrawn."
	case from == lifecycle.Withdrawn:
		return what + name + " was reactivated: it is " + h.Vocab.Display(to) + " again."
	default:
		return what + name + " is now " + h.Vocab.Display(to) + "."
	}
}
