package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/participants"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Organisations serves the organisation list, pages and API, the import
// and export, and the public participants list.
type Organisations struct {
	*Org
	Orgs  *directory.Organisations
	Store organisationStore

	participants participants.Cache // GET /participants, public and large
}

// organisationStore is what Organisations reads and writes.
type organisationStore interface {
	ListOrganisations(ctx context.Context, f store.OrgFilter) ([]store.Organisation, int, error)
	EachOrganisation(ctx context.Context, f store.OrgFilter, fn func(o store.Organisation, flagNames, roles []string) error) error
	ListDomainRoles(ctx context.Context, domain string) ([]store.DomainRole, error)
	ActiveRolesOf(ctx context.Context, ids []string) (map[string][]store.HeldRole, error)
	CreateOrganisations(ctx context.Context, a store.Audit, orgs []store.Organisation) ([]string, error)
	OrganisationReadiness(ctx context.Context, orgID string, now time.Time) (store.Readiness, error)
	DirectoryVersion() int64
	FindIdentifier(ctx context.Context, q string) (store.Found, bool, error)
	RecordEvent(ctx context.Context, r store.AuditRecord) error
	SameRegistration(ctx context.Context, number, country, exceptID string) ([]store.Organisation, error)
	ListFlags(ctx context.Context, typ string) ([]store.Flag, error)
	Participants(ctx context.Context) ([]store.Participant, error)
}

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
			h.Flash.Put(r.Context(), "“"+f.Q+"” is the "+found.What+" "+found.Name+".")
			Vary(w)
			http.Redirect(w, r, foundPath(found), http.StatusSeeOther)
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
	RespondPage(w, r, http.StatusOK, env, func() (templ.Component, error) { return h.orgListPage(r, f, env, page, total) })
}

// orgListPage is the organisation list in the browser.
func (h *Organisations) orgListPage(r *http.Request, f store.OrgFilter, env Paged[store.Organisation], page, total int) (templ.Component, error) {
	q := r.URL.Query()
	sortField, desc := f.Sort, f.Desc
	flagOpts, _, err := h.flagOpts(r.Context(), "Organisation", []string{f.Flag}, true)
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
	orgRoles := make(map[string][]string, len(held))
	for id, hs := range held {
		for _, hr := range hs {
			orgRoles[id] = append(orgRoles[id], hr.AuthorisationDomain+" — "+hr.Role)
		}
	}
	p := views.OrganisationsPage{Items: env.Content, Q: f.Q, StatusOpts: h.statusOpts(lifecycle.Organisation, f.Status, true), FlagOpts: flagOpts, RoleOpts: roleOpts, Roles: orgRoles,
		SortLinks: map[string]string{}, SortField: sortField, SortDesc: desc, Total: total, Page: page, TotalPages: env.TotalPages,
		Filtered: f.Q != "" || f.Status != "" || f.Flag != "" || f.Role != "" || f.Domain != ""}
	eq := url.Values{}
	for _, k := range []string{"q", "Status", "Flag", "AuthorisationDomain", "Role", "sort"} {
		if v := q.Get(k); v != "" {
			eq.Set(k, v)
		}
	}
	p.ExportURL = paths.Organisations() + "/export.csv"
	if len(eq) > 0 {
		p.ExportURL += "?" + eq.Encode()
	}
	for field := range store.OrgSortColumns {
		p.SortLinks[field] = SortLink(paths.Organisations(), q, field, sortField, desc)
	}
	if page > 0 {
		p.PrevURL = PageLink(paths.Organisations(), q, PrevPage(page, env.TotalPages))
	}
	if page+1 < env.TotalPages {
		p.NextURL = PageLink(paths.Organisations(), q, page+1)
	}
	return views.OrganisationList(h.Shell(r, "Organisations", "organisations", views.Crumb{Label: "Organisations"}), p), nil
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
		_, names, err := h.flagOpts(r.Context(), "Organisation", nil, false)
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
		return views.OrganisationDetail(h.Shell(r, o.OrganisationName, "organisations", h.orgCrumbs(&o, "")...), h.orgPage(o, views.TabDetails), names, ready), nil
	})
}

func (h *Organisations) orgForm(r *http.Request, o store.Organisation, isNew bool, errs map[string]string) (views.OrgForm, error) {
	flagOpts, _, err := h.flagOpts(r.Context(), "Organisation", o.Flags, false)
	action := paths.Organisations()
	if !isNew {
		action = paths.Organisation(o.OrganisationID)
	}
	f := views.OrgForm{Org: o, IsNew: isNew, Action: action, Errors: errs, StatusOpts: h.statusOpts(lifecycle.Organisation, o.Status, false), FlagOpts: flagOpts}
	if !isNew {
		// The version being edited: the one first shown, kept across a
		// form shown again with errors.
		if f.IfMatch = r.PostFormValue("IfMatch"); f.IfMatch == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			f.IfMatch = ETagOf(o)
		}
	}
	return f, err
}

func (h *Organisations) renderOrgForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, isNew bool, errs map[string]string) {
	if canon, ok := lifecycle.ParseStatus(lifecycle.Organisation, o.Status); ok {
		o.Status = canon
	}
	f, err := h.orgForm(r, o, isNew, errs)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	title, crumbs := "New organisation", h.orgCrumbs(nil, "New organisation")
	if !isNew {
		title, crumbs = "Edit organisation", h.orgCrumbs(&o, "Edit")
	}
	Render(w, r, status, views.OrganisationFormPage(h.Shell(r, title, "organisations", crumbs...), f))
}

// NewOrganisation shows the empty form.
func (h *Organisations) NewOrganisation(w http.ResponseWriter, r *http.Request) {
	h.renderOrgForm(w, r, http.StatusOK, store.Organisation{Status: lifecycle.Pending, Flags: []string{}}, true, nil)
}

// EditOrganisation shows the form filled in.
func (h *Organisations) EditOrganisation(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	h.renderOrgForm(w, r, http.StatusOK, o, false, nil)
}

// CreateOrganisation adds an organisation.
func (h *Organisations) CreateOrganisation(w http.ResponseWriter, r *http.Request) {
	var in store.Organisation
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	o, err := h.Orgs.Create(r.Context(), h.actor(r), in, refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Tell: func() { h.tellCreated(r, o) }, Page: paths.Organisation(o.OrganisationID),
			Status: http.StatusCreated, Body: h.showOrg(o), ETag: o, Location: paths.API(paths.Organisation(o.OrganisationID))})
	case !WantsJSON(r) && AsError(err).Status < 500:
		if in.Status == "" {
			in.Status = lifecycle.Pending // as the layer read it
		}
		h.renderOrgForm(w, r, AsError(err).Status, in, true, orMessage(err, "OrganisationName"))
	default:
		WriteError(w, r, err)
	}
}

// tellCreated is the browser's message on a new organisation: a warning
// when another one has the same registration.
func (h *Organisations) tellCreated(r *http.Request, o store.Organisation) {
	if same, err := h.Store.SameRegistration(r.Context(), o.RegistrationNumber, o.CountryOfRegistration, o.OrganisationID); err == nil && len(same) > 0 {
		names := make([]string, len(same))
		for i, s := range same {
			names[i] = s.OrganisationName + " (" + h.Vocab.Display(s.Status) + ")"
		}
		h.Flash.Warn(r.Context(), o.OrganisationName+" was created, but "+strings.Join(names, ", ")+" already has registration number "+
			o.RegistrationNumber+" in "+o.CountryOfRegistration+". If it is the same organisation, set this one "+h.Vocab.EndWord()+" and keep the other.")
		return
	}
	h.Flash.Put(r.Context(), o.OrganisationName+" was created.")
}

// UpdateOrganisation replaces an organisation (PUT, or the edit form).
func (h *Organisations) UpdateOrganisation(w http.ResponseWriter, r *http.Request) {
	id := PathParam(r, "orgID")
	var in store.Organisation
	// The edit form sends every field back: text saved before the text
	// rule is spared when it comes back unchanged (keptText).
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Organisation, error) { return h.Org.Store.GetOrganisation(r.Context(), id) }))
	if !ok {
		return
	}
	if in.OrganisationID != "" && in.OrganisationID != id {
		WriteError(w, r, Validation(map[string]string{"OrganisationId": "OrganisationId cannot change."}))
		return
	}
	in.OrganisationID = id
	if im := r.PostFormValue("IfMatch"); im != "" && r.Header.Get("If-Match") == "" {
		// The edit form carries the version it shows (no header from a form).
		r.Header.Set("If-Match", im)
	}
	h.saveOrg(w, r, in, refused, false)
}

func (h *Organisations) saveOrg(w http.ResponseWriter, r *http.Request, in store.Organisation, refused map[string]string, statusOnly bool) {
	var from string
	// The transition is checked in the status's canonical word; a status
	// that has none is refused with the fields, before the check runs.
	next, _ := lifecycle.ParseStatus(lifecycle.Organisation, in.Status)
	o, err := h.Orgs.Update(r.Context(), h.actorBecause(r, in.StatusReason), in, refused, func(cur store.Organisation) error {
		return h.checkStatus(r, cur, &from, cur.Status, next, in.StatusReason)
	})
	show := func(e *Error) { h.renderOrgForm(w, r, e.Status, in, false, orMessage(err, "OrganisationName")) }
	if statusOnly {
		show = h.Refused(w, r, "Not changed: ", paths.Organisation(in.OrganisationID))
	}
	h.Saved(w, r, Saved{Err: err, Flash: h.savedMessage("", o.OrganisationName, from, o.Status), Page: paths.Organisation(o.OrganisationID),
		Status: http.StatusOK, Body: h.showOrg(o), ETag: o,
		Again: func(e *Error) bool {
			if e.Status == http.StatusPreconditionFailed {
				WriteError(w, r, &Error{Status: e.Status, Code: e.Code, Message: "Someone else changed " + in.OrganisationName + " while you were editing it; nothing was saved."})
				return true
			}
			return formAgain(show)(e)
		}})
}

// SetOrganisationStatus is the status buttons of the organisation page.
func (h *Organisations) SetOrganisationStatus(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	var in struct {
		Status string `json:"Status"`
	}
	if err := Decode(w, r, &in); err != nil {
		if FormRefusal(r, err) != nil {
			// Said like the button's other refusals (saveOrg).
			h.Refused(w, r, "Not changed: ", paths.Organisation(o.OrganisationID))(AsError(err))
			return
		}
		WriteError(w, r, err)
		return
	}
	o.Status = in.Status
	h.saveOrg(w, r, o, nil, true)
}

// foundPath is the console page of what an exact identifier names.
func foundPath(f store.Found) string {
	switch f.What {
	case store.FoundApplication:
		return paths.Application(f.OrganisationID, f.ID)
	case store.FoundServer:
		return paths.OrganisationTab(f.OrganisationID, "authorisationservers")
	case store.FoundCertificate:
		return paths.OrganisationTab(f.OrganisationID, "certificates")
	case store.FoundKeyMaterial:
		return paths.KeyMaterial(f.OrganisationID, f.ID)
	default:
		return paths.Organisation(f.OrganisationID)
	}
}
