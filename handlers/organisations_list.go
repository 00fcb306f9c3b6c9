package handlers

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// ListOrganisations is the organisation list: search, filters, sort, pages.
// In the console, an exact identifier typed in the search (a client ID, an
// issuer, a kid, an id) goes straight to what it names.
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
	if within := ActorOf(r).Within; within != nil {
		f.Within = strings.Join(within, ",") // an Organisation Administrator lists their own (docs/design.md §19)
	}
	list, err := h.List.List(r.Context(), f, !WantsJSON(r))
	switch {
	case err != nil:
		WriteError(w, r, err)
	case list.Found != nil:
		h.Flash.Put(r.Context(), views.FoundMessage(f.Q, *list.Found))
		Vary(w)
		http.Redirect(w, r, views.FoundPath(*list.Found), http.StatusSeeOther)
	case list.Results != nil:
		Render(w, r, http.StatusOK, views.SearchResults(h.Shell(r, "Found", "organisations", views.Crumb{Label: "Found"}), views.NewSearchPage(f.Q, list.Results)))
	default:
		env := NewPaged(list.Items, page, size, list.Total)
		RespondPage(w, r, http.StatusOK, env, func() (templ.Component, error) { return h.orgListPage(r, q, f, list, env.TotalPages), nil })
	}
}

// orgListPage is the organisation list in the browser, asked with q.
func (h *Organisations) orgListPage(r *http.Request, q url.Values, f directory.OrgFilter, list directory.OrgList, totalPages int) templ.Component {
	p := views.OrganisationsPage{Items: list.Items, Q: f.Q, StatusOpts: views.StatusOptions(h.Vocab, lifecycle.Organisation, f.Status, true),
		FlagOpts: views.FlagOptions(list.Flags, []string{f.Flag}, true), RoleOpts: views.RoleFilterOptions(list.Roles, f.Domain, f.Role),
		Roles: views.OrgRoles(list.Held), ExportURL: views.OrgExportURL(q), SortLinks: map[string]string{}, SortField: f.Sort, SortDesc: f.Desc,
		Total: list.Total, Page: f.Page, TotalPages: totalPages, Filtered: f.Q != "" || f.Status != "" || f.Flag != "" || f.Role != "" || f.Domain != ""}
	for field := range store.OrgSortColumns {
		p.SortLinks[field] = SortLink(paths.Organisations(), q, field, f.Sort, f.Desc)
	}
	if f.Page > 0 {
		p.PrevURL = PageLink(paths.Organisations(), q, PrevPage(f.Page, totalPages))
	}
	if f.Page+1 < totalPages {
		p.NextURL = PageLink(paths.Organisations(), q, f.Page+1)
	}
	return views.OrganisationList(h.Shell(r, "Organisations", "organisations", views.Crumb{Label: "Organisations"}), p)
}
