package handlers

import (
	"net/http"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// ListOrganisations is the organisation list: search, filters, sort, pages.
func (h *Organisations) ListOrganisations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("DomainRole") && !WantsJSON(r) {
		domainRoleRedirect(w, r, q)
		return
	}
	page, size, err := PageParams(q)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f, err := h.orgFilter(r.Context(), q)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f.Page, f.Size = page, size
	// In the console, an exact identifier typed in the search (a client
	// ID, an issuer, a kid, an id) goes straight to what it names.
	if !WantsJSON(r) && f.Q != "" && page == 0 {
		found, ok, err := h.Store.FindIdentifier(r.Context(), f.Q)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		if ok {
			h.Flash.Put(r.Context(), views.FoundMessage(f.Q, found))
			Vary(w)
			http.Redirect(w, r, views.FoundPath(found), http.StatusSeeOther)
			return
		}
	}
	items, total, err := h.Store.ListOrganisations(r.Context(), f)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	for i := range items {
		items[i] = h.showOrg(items[i])
	}
	env := NewPaged(items, page, size, total)
	RespondPage(w, r, http.StatusOK, env, func() (templ.Component, error) { return h.orgListPage(r, f, env) })
}

// orgListPage is the organisation list in the browser.
func (h *Organisations) orgListPage(r *http.Request, f store.OrgFilter, env Paged[store.Organisation]) (templ.Component, error) {
	q := r.URL.Query()
	flags, err := h.flags(r, "Organisation")
	if err != nil {
		return nil, err
	}
	roleOpts, err := h.roleOpts(r.Context(), f.Domain, f.Role)
	if err != nil {
		return nil, err
	}
	// The Roles column: the page's organisations' Active roles, one query.
	ids := make([]string, len(env.Content))
	for i, o := range env.Content {
		ids[i] = o.OrganisationID
	}
	held, err := h.Store.ActiveRolesOf(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	p := views.OrganisationsPage{Items: env.Content, Q: f.Q, StatusOpts: views.StatusOptions(h.Vocab, lifecycle.Organisation, f.Status, true),
		FlagOpts: views.FlagOptions(flags, []string{f.Flag}, true), RoleOpts: roleOpts, Roles: views.OrgRoles(held), ExportURL: views.OrgExportURL(q),
		SortLinks: map[string]string{}, SortField: f.Sort, SortDesc: f.Desc, Total: env.TotalSize, Page: f.Page, TotalPages: env.TotalPages,
		Filtered: f.Q != "" || f.Status != "" || f.Flag != "" || f.Role != "" || f.Domain != ""}
	for field := range store.OrgSortColumns {
		p.SortLinks[field] = SortLink(paths.Organisations(), q, field, f.Sort, f.Desc)
	}
	if f.Page > 0 {
		p.PrevURL = PageLink(paths.Organisations(), q, PrevPage(f.Page, env.TotalPages))
	}
	if f.Page+1 < env.TotalPages {
		p.NextURL = PageLink(paths.Organisations(), q, f.Page+1)
	}
	return views.OrganisationList(h.Shell(r, "Organisations", "organisations", views.Crumb{Label: "Organisations"}), p), nil
}
