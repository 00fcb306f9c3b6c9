package handlers

import (
	"context"
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// updateAdminStatus is PUT /api/users/…/{email} {Status} and its form: the
// Status of a Super User or a Data Administrator (directory.SetAdministratorStatus),
// with If-Match. In the browser a conflict (the last Active Super User) is
// a flash on the list; another refusal of the row's button shows the list
// again with the refusal's status and the refusal at its top.
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
	// The If-Match comparison runs inside the write's transaction: compared
	// before it, two writers holding the same ETag would both win.
	next, err := directory.SetAdministratorStatus(r.Context(), set, what, ActorOf(r), email, in.Status, refused,
		func(cur T) error { return CheckIfMatch(r, cur) })
	if err == nil {
		e, st := show(next)
		b.Saved(w, r, Saved{Flash: e + " is now " + st + ".", Page: listPath, Status: http.StatusOK, Body: next, ETag: next})
		return
	}
	switch e := AsError(err); {
	case WantsJSON(r) || e.Status >= 500 || e.Status == http.StatusNotFound || e.Status == http.StatusPreconditionFailed:
		WriteError(w, r, err)
	case e.Status == http.StatusConflict:
		b.Flash.Refuse(r.Context(), "Not changed: "+e.Message+".")
		Redirect(w, r, listPath)
	default:
		rowRefused(b, r, email, e)
		list(e.Status)
	}
}
