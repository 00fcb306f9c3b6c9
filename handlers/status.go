package handlers

import (
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

// checkStatus is the check of an update of an organisation, authorisation
// server or application, run in the store's transaction against the
// current version cur: If-Match, then the status rule of the change from
// curStatus to next (directory.CheckStatusChange), for the Super User or
// not who asks. It records the current status in *from, for the message
// after the save.
func (h *Org) checkStatus(r *http.Request, cur any, from *string, curStatus, next, reason string) error {
	if err := CheckIfMatch(r, cur); err != nil {
		return err
	}
	*from = curStatus
	return directory.CheckStatusChange(h.Vocab, curStatus, next, reason, PrincipalFrom(r.Context()).IsSuperUser())
}

// actorBecause is the audit actor of a change made for a reason.
func (h *Org) actorBecause(r *http.Request, reason string) store.Audit {
	return store.Audit{Actor: PrincipalFrom(r.Context()).Email, Reason: strings.TrimSpace(reason)}
}

// savedMessage says what a save did, in words: "Acme Bank was withdrawn."
// after a status change to the end state, not "saved".
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
