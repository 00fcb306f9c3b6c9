package handlers

import (
	"net/http"

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
		if p.EntityID == "" {
			p.Reason = "This entity has no federation entity ID: set one on its edit page to list it in the directory's federation."
		} else if in := h.Anchor.Inspect(r.Context(), p.EntityID, check, h.Now()); !p.ShowStatement(in.Statement, in.StatementErr) {
			WriteError(w, r, in.StatementErr)
			return
		} else if check && !p.ShowResolved(in.Metadata, in.ResolveErr) {
			WriteError(w, r, in.ResolveErr)
			return
		}
		if p.EntityID != "" {
			marks, err := h.Marks.ForSubject(r.Context(), p.EntityID, h.Now())
			if err != nil {
				WriteError(w, r, err)
				return
			}
			p.ShowTrustMarks(marks)
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
		a, err := h.Apps.Get(r.Context(), o.OrganisationID, PathParam(r, "appID"))
		if err != nil {
			return views.FederationPage{}, "", "", err
		}
		return views.FederationPage{Name: a.ClientName, EntityID: a.FederationEntityID}, views.TabApplications, base + "/softwarestatements/" + a.SoftwareStatementID, nil
	}
	s, err := h.Servers.Get(r.Context(), o.OrganisationID, PathParam(r, "serverID"))
	if err != nil {
		return views.FederationPage{}, "", "", err
	}
	return views.FederationPage{Name: s.CustomerFriendlyName, EntityID: s.FederationEntityID}, views.TabServers, base + "/authorisationservers/" + s.AuthorisationServerID, nil
}
