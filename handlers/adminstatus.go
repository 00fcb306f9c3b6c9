package handlers

import (
	"context"
	"net/http"

	"github.com/trustframe/trustframe/store"
)

// updateAdminStatus is PUT /api/users/…/{email} {Status} and its form: the
// Status of a Super User or a Data Administrator, Active or Inactive, with
// If-Match; a refusal (the last Active Super User) is a flash on the page.
func updateAdminStatus[T any](b *Base, w http.ResponseWriter, r *http.Request, what, listPath string,
	set func(context.Context, store.Audit, string, string, func(T) error) (T, error),
	show func(T) (email, status string)) {
	email := PathParam(r, "email")
	var in struct {
		Status string `json:"Status"`
	}
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
		return
	}
	if !validAdminStatus(in.Status) {
		WriteError(w, r, Validation(map[string]string{"Status": "Status must be Active or Inactive."}))
		return
	}
	// The If-Match comparison runs inside the write's transaction: compared
	// before it, two writers holding the same ETag would both win.
	next, err := set(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, email, in.Status,
		func(cur T) error { return CheckIfMatch(r, cur) })
	if err != nil {
		err = storeError(err, what)
		if !WantsJSON(r) && AsError(err).Status == http.StatusConflict {
			b.Flash.Refuse(r.Context(), "Not changed: "+AsError(err).Message+".")
			Redirect(w, r, listPath)
			return
		}
		WriteError(w, r, err)
		return
	}
	if !WantsJSON(r) {
		e, st := show(next)
		b.Flash.Put(r.Context(), e+" is now "+st+".")
		Redirect(w, r, listPath)
		return
	}
	SetETag(w, next)
	WriteJSON(w, http.StatusOK, next)
}
