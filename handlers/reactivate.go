package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/views"
)

// Reactivations serves the reactivation pages of organisations, servers
// and applications: a Super User sets a withdrawn one back to Active from
// a page that says what that affects and asks why; the reason goes into
// the audit record (docs/design.md §4). The API does the same with PUT
// {Status: Active, StatusReason}.
type Reactivations struct {
	*Org
	Reactivations *directory.Reactivations
}

// ReactivateForm is the page of a reactivation: GET …/reactivate.
func (h *Reactivations) ReactivateForm(k lifecycle.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		re, err := h.load(r, k)
		switch {
		case err != nil:
			WriteError(w, r, err)
		case !bySuperUser(r):
			WriteError(w, r, CodeForbidden.New("Only a Super User can set something "+h.Vocab.EndWord()+" back to Active."))
		default:
			h.render(w, r, http.StatusOK, re, "", "")
		}
	}
}

// Reactivate is the form post of a reactivation page.
func (h *Reactivations) Reactivate(k lifecycle.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		re, err := h.load(r, k)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		var in struct {
			StatusReason string `json:"StatusReason" text:"lines"`
		}
		if err := Decode(w, r, &in); err != nil {
			if f := FormRefusal(r, err); f["StatusReason"] != "" {
				h.render(w, r, http.StatusUnprocessableEntity, re, in.StatusReason, f["StatusReason"])
				return
			}
			WriteError(w, r, err)
			return
		}
		from, err := h.Reactivations.Reactivate(r.Context(), h.actor(r), re, in.StatusReason, bySuperUser(r), ifMatchCheck[any](r))
		switch e := AsError(err); {
		case err == nil:
			p, _ := views.NewReactivatePage(h.Vocab, re)
			h.Flash.Put(r.Context(), views.SavedMessage(h.Vocab, "", p.Name, from, lifecycle.Active))
			Redirect(w, r, p.Back)
		case e.Status >= 500 || e.Status == http.StatusForbidden || e.Status == http.StatusNotFound:
			WriteError(w, r, e)
		default:
			h.render(w, r, e.Status, re, in.StatusReason, e.Message)
		}
	}
}

// load reads what the reactivation of kind k at the URL is about.
func (h *Reactivations) load(r *http.Request, k lifecycle.Kind) (directory.Reactivation, error) {
	id := PathParam(r, "serverID")
	if k == lifecycle.Application {
		id = PathParam(r, "appID")
	}
	return h.Reactivations.Load(r.Context(), k, PathParam(r, "orgID"), id)
}

// render shows the page with the reason given and why it was refused.
func (h *Reactivations) render(w http.ResponseWriter, r *http.Request, status int, re directory.Reactivation, reason, refusal string) {
	p, crumbs := views.NewReactivatePage(h.Vocab, re)
	p.Reason, p.Error = reason, refusal
	Render(w, r, status, views.Reactivate(h.Shell(r, "Reactivate "+p.Name, "organisations", crumbs...), p))
}
