package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/participants"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Organisations serves the organisation list, pages and API, the export,
// and the public participants list.
type Organisations struct {
	*Org  // its Orgs are the organisation use cases
	List  *directory.OrganisationList
	Log   *directory.AuditLog
	Store organisationStore

	participants participants.Cache // GET /participants, public and large
}

// organisationStore is what the public participants list reads.
type organisationStore interface {
	DirectoryVersion() int64
	Participants(ctx context.Context) ([]store.Participant, error)
}

// GetOrganisation is one organisation (its details tab).
func (h *Organisations) GetOrganisation(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	SetETag(w, o)
	shown := orgAnswer(h.showOrg(o))
	RespondPage(w, r, http.StatusOK, &shown, func() (templ.Component, error) {
		d, err := h.Orgs.Details(r.Context(), o, time.Now())
		if err != nil {
			return nil, err
		}
		return views.OrganisationDetail(h.Shell(r, o.OrganisationName, "organisations", views.OrgCrumbs(&o, "")...), views.NewOrgPage(h.Vocab, o, views.TabDetails), views.FlagNames(d.Flags), d.Readiness), nil
	})
}
