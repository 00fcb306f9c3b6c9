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
	Apps *directory.Applications
	Algs func() []string // SSA algorithms offered on the application page
}

func (h *Applications) showApp(s store.SoftwareStatement) store.SoftwareStatement {
	s.Status = h.Vocab.Display(s.Status)
	return s
}

// ListApps is the applications tab (a bare array on the API).
func (h *Applications) ListApps(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	PageOrList(w, r, func() {
		t, err := h.Apps.Tab(r.Context(), o.OrganisationID)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		p := views.AppsPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabApplications), Apps: shownAll(t.Apps, h.showApp), FlagNames: views.FlagNames(t.Flags)}
		Render(w, r, http.StatusOK, views.AppsTab(h.Shell(r, "Applications", "organisations", views.OrgCrumbs(&o, "Applications")...), p))
	}, func(ctx context.Context) ([]store.SoftwareStatement, error) {
		items, err := h.Apps.List(ctx, o.OrganisationID)
		return shownAll(items, h.showApp), err
	})
}

// AppDetailPage builds the view model of an application's page; the SSA
// handler adds to it.
func (h *Applications) AppDetailPage(r *http.Request, o store.Organisation, a store.SoftwareStatement) (views.AppDetailPage, error) {
	c, err := h.Apps.Choices(r.Context(), o.OrganisationID)
	if err != nil {
		return views.AppDetailPage{}, err
	}
	var why string
	refused := directory.SSARefused(h.Vocab, o, a)
	if refused != nil {
		why = sentence(refused.Message)
	}
	return views.NewAppDetailPage(h.Vocab, o, a, c.Flags, c.HeldRoles, why, refused != nil && refused.Code == directory.CodeOrganisationNotActive), nil
}

// GetApp is one application.
func (h *Applications) GetApp(w http.ResponseWriter, r *http.Request) {
	o, a, ok := orgAndItem(h.Org, w, r, h.Apps.Get, "appID", "Application")
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
