package handlers

import (
	"context"
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// updateAdminStatus is PUT /api/users/…/{email} {Status} and its form: the
// Status of a Super User or a Data Administrator, Active or Inactive (left
// out: kept, nothing written), with
// If-Match; a refusal (the last Active Super User) is a flash on the page.
// A refused Status (its button's field is hidden) shows the list again
// with e's status, by list, and the refusal at its top.
func updateAdminStatus[T any](b *Base, w http.ResponseWriter, r *http.Request, what, listPath string,
	set func(context.Context, store.Audit, string, string, func(T) error) (T, error),
	show func(T) (email, status string), list func(status int)) {
	email := PathParam(r, "email")
	var in struct {
		Status string `json:"Status"`
	}
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	var next T
	var err error
	if refused != nil {
		err = Validation(refused)
	} else if in.Status != "" && !validAdminStatus(in.Status) {
		// An empty Status keeps the current one (docs/design.md §4).
		err = Validation(map[string]string{"Status": "Status must be Active or Inactive."})
	} else {
		// The If-Match comparison runs inside the write's transaction: compared
		// before it, two writers holding the same ETag would both win.
		next, err = set(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, email, in.Status,
			func(cur T) error { return CheckIfMatch(r, cur) })
		err = directory.Named(err, what)
	}
	e, st := show(next)
	b.Saved(w, r, Saved{Err: err, Flash: e + " is now " + st + ".", Page: listPath, Status: http.StatusOK, Body: next, ETag: next,
		Again: pageAgain(func(e *Error) {
			if e.Status == http.StatusConflict {
				b.Flash.Refuse(r.Context(), "Not changed: "+e.Message+".")
				Redirect(w, r, listPath)
				return
			}
			rowRefused(b, r, email, e)
			list(e.Status)
		})})
}
