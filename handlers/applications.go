package handlers

import (
	"context"
	"net/http"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Applications serves the applications (software statements) of an
// organisation.
type Applications struct {
	*Org
	Apps  *directory.Applications
	Store applicationStore
	Algs  func() []string // SSA algorithms offered on the application page
}

// applicationStore is what Applications reads and writes.
type applicationStore interface {
	ListSoftwareStatements(ctx context.Context, orgID string) ([]store.SoftwareStatement, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
	ActiveClaimRoles(ctx context.Context, orgID string) ([]string, error)
}

func (h *Applications) showApp(s store.SoftwareStatement) store.SoftwareStatement {
	s.Status = h.Vocab.Display(s.Status)
	return s
}

// ListApps is the applications tab (a bare array on the API).
func (h *Applications) ListApps(w http.ResponseWriter, r *http.Request) {
	o, items, ok := orgItems(h.Org, w, r, h.Store.ListSoftwareStatements, h.showApp)
	if !ok {
		return
	}
	RespondPage(w, r, http.StatusOK, items, func() (templ.Component, error) {
		flags, err := h.flags(r, "Software_Statement")
		p := views.AppsPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabApplications), Apps: items, FlagNames: views.FlagNames(flags)}
		return views.AppsTab(h.Shell(r, "Applications", "organisations", views.OrgCrumbs(&o, "Applications")...), p), err
	})
}

// AppDetailPage builds the view model of an application's page; the SSA
// handler adds to it.
func (h *Applications) AppDetailPage(r *http.Request, o store.Organisation, a store.SoftwareStatement) (views.AppDetailPage, error) {
	flags, err := h.flags(r, "Software_Statement")
	if err != nil {
		return views.AppDetailPage{}, err
	}
	held, err := h.Store.ActiveClaimRoles(r.Context(), o.OrganisationID)
	var why string
	refused := directory.SSARefused(h.Vocab, o, a)
	if refused != nil {
		why = sentence(refused.Message)
	}
	return views.NewAppDetailPage(h.Vocab, o, a, flags, held, why, refused != nil && refused.Code == directory.CodeOrganisationNotActive), err
}

// GetApp is one application.
func (h *Applications) GetApp(w http.ResponseWriter, r *http.Request) {
	o, a, ok := orgAndItem(h.Org, w, r, h.Store.GetSoftwareStatement, "appID", "Application")
	if !ok {
		return
	}
	SetETag(w, a)
	RespondPage(w, r, http.StatusOK, h.showApp(a), func() (templ.Component, error) {
		p, err := h.AppDetailPage(r, o, a)
		if h.Algs != nil {
			p.Algs = h.Algs()
		}
		if len(p.Algs) > 0 {
			p.SSAAlg = p.Algs[0]
		}
		return views.AppDetailWithSSA(h.Shell(r, a.ClientName, "organisations", views.OrgCrumbs(&o, a.ClientName)...), p), err
	})
}
