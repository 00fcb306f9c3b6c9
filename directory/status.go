package directory

import (
	"context"
	"strconv"
	"strings"

	"github.com/trustframe/trustframe/lifecycle"
)

// The codes of a refused status change.
const (
	CodeInvalidTransition Code = "invalid_transition" // the status cannot go there from the stored one (409)
	CodeForbidden         Code = "forbidden"          // only a Super User may make the change (403)
)

// The codes of a reason missing for a reactivation, one on each field.
const (
	problemRequired       = "required"
	problemReasonRequired = "reason_required"
)

// CheckStatusChange is the rule of a change of an organisation's,
// authorisation server's or application's status from the stored one
// (from) to next, made for reason (StatusReason) by a Super User or not
// (docs/design.md §4). The reason goes into the audit record whatever
// the change, so it has its maximum on every update. Leaving the end
// state is a reactivation: back to Active only, by a Super User only, and
// with a reason, which the audit record keeps.
func CheckStatusChange(vocab lifecycle.Vocabulary, from, next, reason string, superUser bool) error {
	if len([]rune(reason)) > MaxReason {
		msg := "At most " + strconv.Itoa(MaxReason) + " characters."
		return &Error{Code: CodeInvalid, Message: "StatusReason: " + msg, Fields: Fields{"StatusReason": msg}}
	}
	if from != lifecycle.Withdrawn || next == lifecycle.Withdrawn {
		return nil
	}
	end := vocab.EndWord()
	switch {
	case next != lifecycle.Active:
		msg := end + " can only become Active again (a reactivation), not " + vocab.Display(next) + "."
		return &Error{Code: CodeInvalidTransition, Message: msg, Fields: Fields{"Status": msg}}
	case !superUser:
		msg := "Only a Super User can set something " + end + " back to Active."
		return &Error{Code: CodeForbidden, Message: msg, Fields: Fields{"Status": msg}}
	case strings.TrimSpace(reason) == "":
		msg := "Say why it becomes Active again: StatusReason is required to leave " + end + " and is kept in the audit log."
		return &Error{Code: CodeInvalid, Message: msg, More: []Problem{
			{Field: "StatusReason", Code: problemRequired, Message: msg},
			{Field: "Status", Code: problemReasonRequired, Message: "Leaving " + end + " needs a reason, sent as StatusReason (in the console: Reactivate, on its page)."},
		}}
	}
	return nil
}

// ReactivationStore is what a reactivation writes: the record with its new
// status, no field checked but by check, run on the stored record in the
// write's transaction.
type ReactivationStore interface {
	UpdateOrganisation(ctx context.Context, a Actor, o Organisation, problems Fields, check Check[Organisation]) (Organisation, error)
	UpdateAuthorisationServer(ctx context.Context, a Actor, s AuthorisationServer, problems Fields, check Check[AuthorisationServer]) (AuthorisationServer, error)
	UpdateSoftwareStatement(ctx context.Context, a Actor, s SoftwareStatement, problems Fields, check Check[SoftwareStatement]) (SoftwareStatement, error)
}

// Reactivations are the use cases of the console's reactivation page: a
// Super User sets a record of the end state Active again and says why.
// Each writes the record as read for the page but for its status and
// reason, once check and the status rule (CheckStatusChange) pass on the
// stored one, and returns the status the stored one had.
type Reactivations struct {
	Store ReactivationStore
	Vocab lifecycle.Vocabulary
}

// Organisation sets o Active again for reason.
func (s *Reactivations) Organisation(ctx context.Context, a Actor, o Organisation, reason string, superUser bool, check Check[Organisation]) (string, error) {
	var from string
	o.Status, o.StatusReason = lifecycle.Active, reason
	_, err := s.Store.UpdateOrganisation(ctx, because(a, reason), o, nil, statusCheck(s.Vocab, &from, reason, superUser, check, func(c Organisation) string { return c.Status }))
	return from, Named(err, "Organisation")
}

// Server sets the authorisation server srv Active again for reason.
func (s *Reactivations) Server(ctx context.Context, a Actor, srv AuthorisationServer, reason string, superUser bool, check Check[AuthorisationServer]) (string, error) {
	var from string
	srv.Status, srv.StatusReason = lifecycle.Active, reason
	_, err := s.Store.UpdateAuthorisationServer(ctx, because(a, reason), srv, nil, statusCheck(s.Vocab, &from, reason, superUser, check, func(c AuthorisationServer) string { return c.Status }))
	return from, Named(err, "Authorisation server")
}

// Application sets the application app Active again for reason.
func (s *Reactivations) Application(ctx context.Context, a Actor, app SoftwareStatement, reason string, superUser bool, check Check[SoftwareStatement]) (string, error) {
	var from string
	app.Status, app.StatusReason = lifecycle.Active, reason
	_, err := s.Store.UpdateSoftwareStatement(ctx, because(a, reason), app, nil, statusCheck(s.Vocab, &from, reason, superUser, check, func(c SoftwareStatement) string { return c.Status }))
	return from, Named(err, "Application")
}

// because is a's change made for reason, as the audit record keeps it.
func because(a Actor, reason string) Actor {
	a.Reason = strings.TrimSpace(reason)
	return a
}

// statusCheck runs check, then the rule of a change to Active on the
// stored record, whose status it puts in *from.
func statusCheck[T any](vocab lifecycle.Vocabulary, from *string, reason string, superUser bool, check Check[T], status func(T) string) Check[T] {
	return func(cur T) error {
		if check != nil {
			if err := check(cur); err != nil {
				return err
			}
		}
		*from = status(cur)
		return CheckStatusChange(vocab, *from, lifecycle.Active, reason, superUser)
	}
}

// SetAdministratorStatus is the use case of a Super User's or a Data
// Administrator's status: Active or Inactive, and none keeps the stored
// one (docs/design.md §4). refused are problems found reading the input;
// set is the store's write, which runs check on the stored administrator
// in its transaction; what names the kind ("Super User") when there is no
// administrator of that e-mail address.
func SetAdministratorStatus[T any](ctx context.Context, set func(context.Context, Actor, string, string, func(T) error) (T, error),
	what string, a Actor, email, status string, refused Fields, check Check[T]) (T, error) {
	f := Fields{}
	f.Status(&status, false)
	if err := f.Merge(refused).Err(); err != nil {
		var none T
		return none, err
	}
	saved, err := set(ctx, a, email, status, check)
	return saved, Named(err, what)
}
