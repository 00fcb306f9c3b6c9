package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/participants"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Organisations serves the organisation list, pages and API, the export,
// and the public participants list.
type Organisations struct {
	*Org
	Orgs  *directory.Organisations
	List  *directory.OrganisationList
	Log   *directory.AuditLog
	Store organisationStore

	participants participants.Cache // GET /participants, public and large
}

// organisationStore is what Organisations reads and writes.
type organisationStore interface {
	CreateOrganisations(ctx context.Context, a store.Audit, orgs []store.Organisation) ([]string, error)
	OrganisationReadiness(ctx context.Context, orgID string, now time.Time) (store.Readiness, error)
	DirectoryVersion() int64
	SameRegistration(ctx context.Context, number, country, exceptID string) ([]store.Organisation, error)
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
		flags, err := h.flags(r, "Organisation")
		if err != nil {
			return nil, err
		}
		var ready *store.Readiness
		if o.Status == lifecycle.Pending {
			rd, err := h.Store.OrganisationReadiness(r.Context(), o.OrganisationID, time.Now())
			if err != nil {
				return nil, err
			}
			ready = &rd
		}
		return views.OrganisationDetail(h.Shell(r, o.OrganisationName, "organisations", views.OrgCrumbs(&o, "")...), views.NewOrgPage(h.Vocab, o, views.TabDetails), views.FlagNames(flags), ready), nil
	})
}
