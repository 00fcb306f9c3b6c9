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
		msg := "Say why it becomes Active again: leaving " + end + " needs a reason, which is kept in the audit log."
		return &Error{Code: CodeInvalid, Message: msg, More: []Problem{
			{Field: "StatusReason", Code: problemRequired, Message: msg},
			{Field: "Status", Code: problemReasonRequired, Message: "Leaving " + end + " needs a reason, sent as StatusReason (in the console: Reactivate, on its page)."},
		}}
	}
	return nil
}

// because is a's change made for reason, as the audit record keeps it.
func because(a Actor, reason string) Actor {
	a.Reason = strings.TrimSpace(reason)
	return a
}

// statusCheck runs check, then the rule of a change to next
// (CheckStatusChange) on the stored record, whose status it puts in
// *from. next is in its canonical word: the check runs only once the
// fields, the status among them, have passed.
func statusCheck[T any](vocab lifecycle.Vocabulary, from *string, next, reason string, superUser bool, check Check[T], status func(T) string) Check[T] {
	return func(cur T) error {
		if check != nil {
			if err := check(cur); err != nil {
				return err
			}
		}
		*from = status(cur)
		return CheckStatusChange(vocab, *from, next, reason, superUser)
	}
}

func orgStatus(o Organisation) string           { return o.Status }
func serverStatus(s AuthorisationServer) string { return s.Status }
func appStatus(s SoftwareStatement) string      { return s.Status }

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
