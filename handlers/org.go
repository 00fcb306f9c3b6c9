package handlers

import (
	"context"
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Org is what every handler under /organisations/{orgID} shares: loading
// the organisation of the URL, its page header and breadcrumbs, the audit
// actor, the status and flag choices. Each resource's handler type
// (Organisations, Contacts, Servers, Applications, …) embeds it beside its
// own store.
type Org struct {
	*Base
	Store orgStore
	// AllowPrivateURLs lets a federation entity ID be plain http on a
	// loopback host, as issuer validation allows (docs/design.md §13).
	AllowPrivateURLs bool
}

// orgStore is what Org reads.
type orgStore interface {
	GetOrganisation(ctx context.Context, id string) (store.Organisation, error)
	ListFlags(ctx context.Context, typ string) ([]store.Flag, error)
}

func (h *Org) showOrg(o store.Organisation) store.Organisation {
	o.Status = h.Vocab.Display(o.Status)
	return o
}

// statusOpts lists the statuses of a kind for a select, cur selected.
func (h *Org) statusOpts(k lifecycle.Kind, cur string, withAny bool) []views.Option {
	var out []views.Option
	if withAny {
		out = append(out, views.Option{Value: "", Label: "Any status", Selected: cur == ""})
	}
	for _, s := range lifecycle.Allowed(k) {
		w := h.Vocab.Display(s)
		out = append(out, views.Option{Value: w, Label: w, Selected: cur == s})
	}
	return out
}

// nextStatuses are the statuses an item may move to from cur.
func (h *Org) nextStatuses(k lifecycle.Kind, cur string) []views.Option {
	var out []views.Option
	for _, s := range lifecycle.Allowed(k) {
		if s == cur || lifecycle.CheckTransition(cur, s, h.Vocab) != nil {
			continue
		}
		w := h.Vocab.Display(s)
		out = append(out, views.Option{Value: w, Label: w})
	}
	return out
}

func (h *Org) flagOpts(ctx context.Context, typ string, selected []string, withAny bool) ([]views.Option, map[string]string, error) {
	flags, err := h.Store.ListFlags(ctx, typ)
	if err != nil {
		return nil, nil, err
	}
	sel := map[string]bool{}
	for _, f := range selected {
		sel[f] = true
	}
	names := map[string]string{}
	var out []views.Option
	if withAny {
		out = append(out, views.Option{Value: "", Label: "Any flag", Selected: len(selected) == 0 || selected[0] == ""})
	}
	for _, f := range flags {
		names[f.FlagID] = f.Name
		if f.Status != "Active" && !sel[f.FlagID] {
			continue
		}
		out = append(out, views.Option{Value: f.FlagID, Label: f.Name, Selected: sel[f.FlagID]})
	}
	return out, names, nil
}

func (h *Org) orgCrumbs(o *store.Organisation, last string) []views.Crumb {
	c := []views.Crumb{{Label: "Organisations", Href: paths.Organisations()}}
	if o != nil {
		if last == "" {
			return append(c, views.Crumb{Label: o.OrganisationName})
		}
		c = append(c, views.Crumb{Label: o.OrganisationName, Href: paths.Organisation(o.OrganisationID)})
	}
	if last != "" {
		c = append(c, views.Crumb{Label: last})
	}
	return c
}

// loadOrg reads the organisation of the URL.
func (h *Org) loadOrg(w http.ResponseWriter, r *http.Request) (store.Organisation, bool) {
	o, err := h.Store.GetOrganisation(r.Context(), PathParam(r, "orgID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Organisation"))
		return o, false
	}
	return o, true
}

func (h *Org) orgPage(o store.Organisation, tab string) views.OrgPage {
	return views.OrgPage{Org: h.showOrg(o), Tab: tab, StatusOpts: h.nextStatuses(lifecycle.Organisation, o.Status)}
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

// orgItems loads the organisation of the URL and its items with list,
// each passed through show (statuses in the deployment's words).
func orgItems[T any](h *Org, w http.ResponseWriter, r *http.Request, list func(ctx context.Context, orgID string) ([]T, error), show func(T) T) (store.Organisation, []T, bool) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return o, nil, false
	}
	items, err := list(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return o, nil, false
	}
	for i := range items {
		items[i] = show(items[i])
	}
	return o, items, true
}
