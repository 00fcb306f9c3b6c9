package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/participants"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Organisations serves the organisation list, pages and API, the export,
// and the public participants list.
type Organisations struct {
	*Org  // its Orgs are the organisation use cases
	Store organisationStore

	participants participants.Cache // GET /participants, public and large
}

// organisationStore is what the list, the export and the participants
// list read.
type organisationStore interface {
	ListOrganisations(ctx context.Context, f store.OrgFilter) ([]store.Organisation, int, error)
	EachOrganisation(ctx context.Context, f store.OrgFilter, fn func(o store.Organisation, flagNames, roles []string) error) error
	ListDomainRoles(ctx context.Context, domain string) ([]store.DomainRole, error)
	ActiveRolesOf(ctx context.Context, ids []string) (map[string][]store.HeldRole, error)
	CreateOrganisations(ctx context.Context, a store.Audit, orgs []store.Organisation) ([]string, error)
	DirectoryVersion() int64
	FindIdentifier(ctx context.Context, q string) (store.Found, bool, error)
	RecordEvent(ctx context.Context, r store.AuditRecord) error
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
