package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// UpdateOrganisation replaces an organisation (PUT, or the edit form).
func (h *Organisations) UpdateOrganisation(w http.ResponseWriter, r *http.Request) {
	id := PathParam(r, "orgID")
	var in store.Organisation
	// The edit form sends every field back: text saved before the text
	// rule is let through when it comes back unchanged (decodeKept).
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Organisation, error) { return h.Orgs.Get(r.Context(), id) }))
	if !ok {
		return
	}
	if in.OrganisationID != "" && in.OrganisationID != id {
		WriteError(w, r, Validation(map[string]string{"OrganisationId": "OrganisationId cannot change."}))
		return
	}
	in.OrganisationID = id
	useFormVersion(r)
	o, from, err := h.Orgs.Update(r.Context(), h.actor(r), in, refused, bySuperUser(r), ifMatchCheck[store.Organisation](r))
	if stale(r, err) {
		h.renderOrgForm(w, r, http.StatusPreconditionFailed, in, false, nil)
		return
	}
	if e, ok := refusedHere(r, err); ok && e.Status != http.StatusPreconditionFailed {
		h.renderOrgForm(w, r, e.Status, o, false, orMessage(err, "OrganisationName"))
		return
	}
	h.orgSaved(w, r, o, from, err)
}

// SetOrganisationStatus is the status buttons of the organisation page: a
// refusal is a message on the page.
func (h *Organisations) SetOrganisationStatus(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	var in struct {
		Status string `json:"Status"`
	}
	switch err := Decode(w, r, &in); {
	case err == nil:
		o.Status = in.Status
		saved, from, err := h.Orgs.Update(r.Context(), h.actor(r), o, nil, bySuperUser(r), ifMatchCheck[store.Organisation](r))
		if e, ok := refusedHere(r, err); ok && e.Status != http.StatusPreconditionFailed {
			h.Refused(w, r, "Not changed: ", paths.Organisation(o.OrganisationID))(e)
			return
		}
		h.orgSaved(w, r, saved, from, err)
	case FormRefusal(r, err) != nil:
		h.Refused(w, r, "Not changed: ", paths.Organisation(o.OrganisationID))(AsError(err))
	default:
		WriteError(w, r, err)
	}
}

// orgSaved answers an update: the organisation saved, said in words, or
// the error. A browser's stale version says whose change it would undo.
func (h *Organisations) orgSaved(w http.ResponseWriter, r *http.Request, o store.Organisation, from string, err error) {
	if e := AsError(err); err != nil && !WantsJSON(r) && e.Status == http.StatusPreconditionFailed {
		WriteError(w, r, &Error{Status: e.Status, Code: e.Code, Message: "Someone else changed " + o.OrganisationName + " while you were editing it; nothing was saved."})
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: views.SavedMessage(h.Vocab, "", o.OrganisationName, from, o.Status), Page: paths.Organisation(o.OrganisationID),
		Status: http.StatusOK, Body: h.showOrg(o), ETag: o})
}
