package handlers

import (
	"context"
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// Org is what every handler under /organisations/{orgID} shares: loading
// the organisation of the URL, its page header and breadcrumbs, the audit
// actor, the flags of its items. Each resource's handler type
// (Organisations, Contacts, Servers, Applications, …) embeds it beside its
// own use cases.
type Org struct {
	*Base
	Orgs  *directory.Organisations
	Flags *directory.Flags
}

func (h *Org) showOrg(o store.Organisation) store.Organisation {
	o.Status = h.Vocab.Display(o.Status)
	return o
}

// flags are the flags of items of type typ, for the choices and names
// of a page.
func (h *Org) flags(r *http.Request, typ string) ([]store.Flag, error) {
	return h.Flags.List(r.Context(), typ)
}

// loadOrg reads the organisation of the URL.
func (h *Org) loadOrg(w http.ResponseWriter, r *http.Request) (store.Organisation, bool) {
	o, err := h.Orgs.Get(r.Context(), PathParam(r, "orgID"))
	if err != nil {
		WriteError(w, r, err)
		return o, false
	}
	return o, true
}

// orMessage is the field map of err, or its message on a default field.
func orMessage(err error, field string) map[string]string {
	m := FieldMap(err)
	if len(m) == 0 {
		m[field] = AsError(err).Message
	}
	return m
}

// orgAndForm is orgAndItem for a form: with no param in the URL (…/new)
// the item is blank.
func orgAndForm[T any](h *Org, w http.ResponseWriter, r *http.Request, get func(ctx context.Context, orgID, id string) (T, error), param, what string, blank T) (store.Organisation, T, bool) {
	if PathParam(r, param) != "" {
		return orgAndItem(h, w, r, get, param, what)
	}
	o, ok := h.loadOrg(w, r)
	return o, blank, ok
}

// orgAndItem loads the organisation of the URL and the item named by the
// path parameter param with get; false when it has answered (404 naming
// what).
func orgAndItem[T any](h *Org, w http.ResponseWriter, r *http.Request, get func(ctx context.Context, orgID, id string) (T, error), param, what string) (store.Organisation, T, bool) {
	var it T
	o, ok := h.loadOrg(w, r)
	if !ok {
		return o, it, false
	}
	it, err := get(r.Context(), o.OrganisationID, PathParam(r, param))
	if err != nil {
		WriteError(w, r, directory.Named(err, what))
		return o, it, false
	}
	return o, it, true
}

// shownAll is items each passed through show (statuses in the
// deployment's words).
func shownAll[T any](items []T, show func(T) T) []T {
	for i := range items {
		items[i] = show(items[i])
	}
	return items
}

// bySuperUser reports whether a Super User makes the request: the status
// rule lets only them leave the end state.
func bySuperUser(r *http.Request) bool { return PrincipalFrom(r.Context()).IsSuperUser() }

// ifMatchCheck is the precondition of a write that the stored version is
// the one the request names (If-Match), run in the write's transaction:
// compared before it, two writers holding the same ETag would both win.
func ifMatchCheck[T any](r *http.Request) directory.Check[T] {
	return func(cur T) error { return CheckIfMatch(r, cur) }
}
