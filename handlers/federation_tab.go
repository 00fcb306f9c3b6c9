package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Tab is the Federation tab of an application (kind "Application") or
// authorisation server; with check it also resolves the live entity.
func (h *Federation) Tab(kind string, check bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		o, ok := h.Org.loadOrg(w, r)
		if !ok {
			return
		}
		p, tab, entityPage, err := h.tabEntity(r, o, kind)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		p.Checked, p.Action, p.OrgPage = check, entityPage+"/federation/check", views.NewOrgPage(h.Vocab, o, tab)
		now := h.Now()
		if p.EntityID == "" {
			p.Reason = "This entity has no federation entity ID: set one on its edit page to list it in the directory's federation."
		} else if st, err := h.Anchor.Statement(r.Context(), p.EntityID, now); !p.ShowStatement(st, err) {
			WriteError(w, r, err)
			return
		}
		if h.Marks != nil && p.EntityID != "" {
			marks, err := h.Marks.ForSubject(r.Context(), p.EntityID, now)
			if err != nil {
				WriteError(w, r, err)
				return
			}
			p.ShowTrustMarks(marks)
		}
		if check && p.EntityID != "" {
			if _, metadata, err := h.Anchor.Resolve(r.Context(), p.EntityID, nil, now); !p.ShowResolved(metadata, err) {
				WriteError(w, r, err)
				return
			}
		}
		// Organisations › the organisation › the entity (linked) › Federation.
		crumbs := views.OrgCrumbs(&o, p.Name)
		crumbs[len(crumbs)-1].Href = entityPage
		crumbs = append(crumbs, views.Crumb{Label: "Federation"})
		Render(w, r, http.StatusOK, views.Federation(h.Shell(r, "Federation", "organisations", crumbs...), p))
	}
}

// tabEntity reads the application or server of a Federation tab: its
// name and entity ID, the organisation's tab it is under and its page.
func (h *Federation) tabEntity(r *http.Request, o store.Organisation, kind string) (views.FederationPage, string, string, error) {
	base := paths.Organisation(o.OrganisationID)
	if kind == "Application" {
		a, err := h.Store.GetSoftwareStatement(r.Context(), o.OrganisationID, PathParam(r, "appID"))
		if err != nil {
			return views.FederationPage{}, "", "", directory.Named(err, "Application")
		}
		return views.FederationPage{Name: a.ClientName, EntityID: a.FederationEntityID}, views.TabApplications, base + "/softwarestatements/" + a.SoftwareStatementID, nil
	}
	s, err := h.Store.GetAuthorisationServer(r.Context(), o.OrganisationID, PathParam(r, "serverID"))
	if err != nil {
		return views.FederationPage{}, "", "", directory.Named(err, "Authorisation server")
	}
	return views.FederationPage{Name: s.CustomerFriendlyName, EntityID: s.FederationEntityID}, views.TabServers, base + "/authorisationservers/" + s.AuthorisationServerID, nil
}
