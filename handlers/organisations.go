package handlers

import (
	"context"
	"errors"
	"github.com/trustframe/trustframe/paths"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

type directoryStore interface {
	ListOrganisations(ctx context.Context, f store.OrgFilter) ([]store.Organisation, int, error)
	EachOrganisation(ctx context.Context, f store.OrgFilter, fn func(o store.Organisation, flagNames, roles []string) error) error
	ListDomainRoles(ctx context.Context, domain string) ([]store.DomainRole, error)
	CreateOrganisations(ctx context.Context, a store.Audit, orgs []store.Organisation) ([]string, error)
	OrganisationReadiness(ctx context.Context, orgID string, now time.Time) (store.Readiness, error)
	WriteVersion() int64
	FindIdentifier(ctx context.Context, q string) (store.Found, bool, error)
	RecordEvent(ctx context.Context, r store.AuditRecord) error
	GetOrganisation(ctx context.Context, id string) (store.Organisation, error)
	CreateOrganisation(ctx context.Context, a store.Audit, o store.Organisation) (store.Organisation, error)
	UpdateOrganisation(ctx context.Context, a store.Audit, o store.Organisation, check func(store.Organisation) error) (store.Organisation, error)
	SameRegistration(ctx context.Context, number, country, exceptID string) ([]store.Organisation, error)
	ListFlags(ctx context.Context, typ string) ([]store.Flag, error)
	Participants(ctx context.Context) ([]store.Participant, error)

	ListContacts(ctx context.Context, orgID, sortBy string, desc bool, page, size int) ([]store.Contact, int, error)
	GetContact(ctx context.Context, orgID, id string) (store.Contact, error)
	CreateContact(ctx context.Context, a store.Audit, c store.Contact) (store.Contact, error)
	UpdateContact(ctx context.Context, a store.Audit, c store.Contact, check func(store.Contact) error) (store.Contact, error)
	DeleteContact(ctx context.Context, a store.Audit, orgID, id string, check func(store.Contact) error) error
	ListContactTypes(ctx context.Context) ([]store.ReferenceItem, error)

	ListAuthorisationServers(ctx context.Context, orgID string) ([]store.AuthorisationServer, error)
	GetAuthorisationServer(ctx context.Context, orgID, id string) (store.AuthorisationServer, error)
	CreateAuthorisationServer(ctx context.Context, a store.Audit, s store.AuthorisationServer) (store.AuthorisationServer, error)
	UpdateAuthorisationServer(ctx context.Context, a store.Audit, s store.AuthorisationServer, check func(store.AuthorisationServer) error) (store.AuthorisationServer, error)
	IssuerTaken(ctx context.Context, issuer, exceptID string) (string, error)

	ListSoftwareStatements(ctx context.Context, orgID string) ([]store.SoftwareStatement, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
	CreateSoftwareStatement(ctx context.Context, a store.Audit, s store.SoftwareStatement) (store.SoftwareStatement, error)
	UpdateSoftwareStatement(ctx context.Context, a store.Audit, s store.SoftwareStatement, check func(store.SoftwareStatement) error) (store.SoftwareStatement, error)
	ActiveClaimRoles(ctx context.Context, orgID string) ([]string, error)
}

// IssuerChecker validates an authorisation server's issuer.
type IssuerChecker interface {
	Check(ctx context.Context, issuer, discovery string) []string
}

// Directory serves organisations and everything under them.
type Directory struct {
	*Base
	Store   directoryStore
	Issuers IssuerChecker
	Algs    func() []string // SSA algorithms offered on the application page
	// AllowPrivateURLs lets a federation entity ID be plain http on a
	// loopback host, as issuer validation allows (docs/design.md §13).
	AllowPrivateURLs bool

	participants   publicCache    // GET /participants, public and large
	participantsBy filteredCaches // … with AuthorisationDomain= or Role=
}

func (h *Directory) actor(r *http.Request) store.Audit {
	return store.Audit{Actor: PrincipalFrom(r.Context()).Email}
}

func (h *Directory) showOrg(o store.Organisation) store.Organisation {
	o.Status = h.Vocab.Display(o.Status)
	return o
}

// statusOpts lists the statuses of a kind for a select, cur selected.
func (h *Directory) statusOpts(k lifecycle.Kind, cur string, withAny bool) []views.Option {
	var out []views.Option
	if withAny {
		out = append(out, views.Option{Value: "", Label: "Any status", Selected: cur == ""})
	}
	for _, s := range lifecycle.Allowed(k) {
		w := h.Vocab.Display(s)
		out = append(out, views.Option{Value: w, Label: w, Selected: cur == s})
	}
	return out
}

// nextStatuses are the statuses an item may move to from cur.
func (h *Directory) nextStatuses(k lifecycle.Kind, cur string) []views.Option {
	var out []views.Option
	for _, s := range lifecycle.Allowed(k) {
		if s == cur || lifecycle.CheckTransition(cur, s, h.Vocab) != nil {
			continue
		}
		w := h.Vocab.Display(s)
		out = append(out, views.Option{Value: w, Label: w})
	}
	return out
}

func (h *Directory) flagOpts(ctx context.Context, typ string, selected []string, withAny bool) ([]views.Option, map[string]string, error) {
	flags, err := h.Store.ListFlags(ctx, typ)
	if err != nil {
		return nil, nil, err
	}
	sel := map[string]bool{}
	for _, f := range selected {
		sel[f] = true
	}
	names := map[string]string{}
	var out []views.Option
	if withAny {
		out = append(out, views.Option{Value: "", Label: "Any flag", Selected: len(selected) == 0 || selected[0] == ""})
	}
	for _, f := range flags {
		names[f.FlagID] = f.Name
		if f.Status != "Active" && !sel[f.FlagID] {
			continue
		}
		out = append(out, views.Option{Value: f.FlagID, Label: f.Name, Selected: sel[f.FlagID]})
	}
	return out, names, nil
}

// directoryError maps store errors, with field errors as 422.
func directoryError(err error, what string) error {
	var fe *store.FieldError
	if errors.As(err, &fe) {
		return Validation(map[string]string{fe.Field: fe.Message})
	}
	return storeError(err, what)
}

func (h *Directory) orgCrumbs(o *store.Organisation, last string) []views.Crumb {
	c := []views.Crumb{{Label: "Organisations", Href: "/organisations"}}
	if o != nil {
		if last == "" {
			return append(c, views.Crumb{Label: o.OrganisationName})
		}
		c = append(c, views.Crumb{Label: o.OrganisationName, Href: "/organisations/" + o.OrganisationID})
	}
	if last != "" {
		c = append(c, views.Crumb{Label: last})
	}
	return c
}

// orgFilter reads the search, filters and sort of the organisation list.
func (h *Directory) orgFilter(ctx context.Context, q url.Values) (store.OrgFilter, error) {
	sortField, desc, err := ParseSort(q, store.OrgSortColumns, "OrganisationName")
	if err != nil {
		return store.OrgFilter{}, err
	}
	f := store.OrgFilter{Q: strings.TrimSpace(q.Get("q")), Flag: q.Get("Flag"), Sort: sortField, Desc: desc}
	if f.Domain, f.Role, err = h.roleFilter(ctx, q); err != nil {
		return f, err
	}
	if st := q.Get("Status"); st != "" {
		canon, ok := lifecycle.ParseStatus(lifecycle.Organisation, st)
		if !ok {
			return f, &Error{Status: http.StatusBadRequest, Code: "invalid_parameter", Message: lifecycle.StatusHelp(lifecycle.Organisation, h.Vocab),
				Fields: []FieldError{{Field: "Status", Code: "invalid", Message: lifecycle.StatusHelp(lifecycle.Organisation, h.Vocab)}}}
		}
		f.Status = canon
	}
	return f, nil
}

// ListOrganisations is the organisation list: search, filters, sort, pages.
func (h *Directory) ListOrganisations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
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
	sortField, desc := f.Sort, f.Desc
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
	if WantsJSON(r) {
		WriteJSON(w, http.StatusOK, env)
		return
	}
	flagOpts, _, err := h.flagOpts(r.Context(), "Organisation", []string{f.Flag}, true)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	roleOpts, err := h.roleOpts(r.Context(), f.Role)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p := views.OrganisationsPage{Items: items, Q: f.Q, StatusOpts: h.statusOpts(lifecycle.Organisation, f.Status, true), FlagOpts: flagOpts, RoleOpts: roleOpts,
		SortLinks: map[string]string{}, SortField: sortField, SortDesc: desc, SortParam: q.Get("sort"), Total: total, Page: page, TotalPages: env.TotalPages,
		Filtered: f.Q != "" || f.Status != "" || f.Flag != "" || f.Role != "" || f.Domain != ""}
	eq := url.Values{}
	for _, k := range []string{"q", "Status", "Flag", "AuthorisationDomain", "Role", "sort"} {
		if v := q.Get(k); v != "" {
			eq.Set(k, v)
		}
	}
	p.ExportURL = "/organisations/export.csv"
	if len(eq) > 0 {
		p.ExportURL += "?" + eq.Encode()
	}
	for field := range store.OrgSortColumns {
		p.SortLinks[field] = SortLink("/organisations", q, field, sortField, desc)
	}
	if page > 0 {
		p.PrevURL = PageLink("/organisations", q, page-1)
	}
	if page+1 < env.TotalPages {
		p.NextURL = PageLink("/organisations", q, page+1)
	}
	Render(w, r, http.StatusOK, views.OrganisationList(h.Shell(r, "Organisations", "organisations", views.Crumb{Label: "Organisations"}), p))
}

// loadOrg reads the organisation of the URL.
func (h *Directory) loadOrg(w http.ResponseWriter, r *http.Request) (store.Organisation, bool) {
	o, err := h.Store.GetOrganisation(r.Context(), PathParam(r, "orgID"))
	if err != nil {
		WriteError(w, r, storeError(err, "Organisation"))
		return o, false
	}
	return o, true
}

func (h *Directory) orgPage(o store.Organisation, tab string) views.OrgPage {
	return views.OrgPage{Org: h.showOrg(o), Tab: tab, StatusOpts: h.nextStatuses(lifecycle.Organisation, o.Status)}
}

// GetOrganisation is one organisation (its details tab).
func (h *Directory) GetOrganisation(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	SetETag(w, o)
	if WantsJSON(r) {
		WriteJSON(w, http.StatusOK, h.showOrg(o))
		return
	}
	_, names, err := h.flagOpts(r.Context(), "Organisation", nil, false)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	var ready *store.Readiness
	if o.Status == lifecycle.Pending {
		rd, err := h.Store.OrganisationReadiness(r.Context(), o.OrganisationID, time.Now())
		if err != nil {
			WriteError(w, r, err)
			return
		}
		ready = &rd
	}
	Render(w, r, http.StatusOK, views.OrganisationDetail(h.Shell(r, o.OrganisationName, "organisations", h.orgCrumbs(&o, "")...), h.orgPage(o, views.TabDetails), names, ready))
}

func (h *Directory) validateOrg(in *store.Organisation, isNew bool) map[string]string {
	f := map[string]string{}
	required(f, "OrganisationName", in.OrganisationName, "Organisation name")
	checkLen(f, "OrganisationName", in.OrganisationName, 200)
	checkLen(f, "LegalEntityName", in.LegalEntityName, 200)
	required(f, "RegistrationNumber", in.RegistrationNumber, "Registration number")
	checkLen(f, "RegistrationNumber", in.RegistrationNumber, 100)
	if !formats.ValidCountry(in.CountryOfRegistration) {
		f["CountryOfRegistration"] = "Use an assigned two-letter ISO 3166-1 code in capitals, like GB or BR."
		if strings.EqualFold(in.CountryOfRegistration, "UK") {
			f["CountryOfRegistration"] += " The United Kingdom is GB."
		}
	}
	for _, k := range []string{"AddressLine1", "AddressLine2", "City", "Postcode"} {
		v := map[string]string{"AddressLine1": in.AddressLine1, "AddressLine2": in.AddressLine2, "City": in.City, "Postcode": in.Postcode}[k]
		checkLen(f, k, v, 200)
	}
	checkList(f, "Flags", in.Flags, maxFlags, 0)
	if isNew && in.OrganisationID != "" && !ValidUUID(in.OrganisationID) {
		f["OrganisationId"] = "OrganisationId must be a UUID."
	}
	if in.Status == "" && isNew {
		in.Status = lifecycle.Pending
	} else if canon, ok := lifecycle.ParseStatus(lifecycle.Organisation, in.Status); ok {
		in.Status = canon
	} else {
		f["Status"] = lifecycle.StatusHelp(lifecycle.Organisation, h.Vocab)
	}
	if in.Flags == nil {
		in.Flags = []string{}
	}
	return f
}

func (h *Directory) orgForm(r *http.Request, o store.Organisation, isNew bool, errs map[string]string) (views.OrgForm, error) {
	flagOpts, _, err := h.flagOpts(r.Context(), "Organisation", o.Flags, false)
	action := "/organisations"
	if !isNew {
		action = "/organisations/" + o.OrganisationID
	}
	f := views.OrgForm{Org: o, IsNew: isNew, Action: action, Errors: errs, StatusOpts: h.statusOpts(lifecycle.Organisation, o.Status, false), FlagOpts: flagOpts}
	if !isNew {
		// The version being edited: the one first shown, kept across a
		// form shown again with errors.
		if f.IfMatch = r.PostFormValue("IfMatch"); f.IfMatch == "" && r.Method == http.MethodGet {
			f.IfMatch = ETagOf(o)
		}
	}
	return f, err
}

func (h *Directory) renderOrgForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, isNew bool, errs map[string]string) {
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
func (h *Directory) NewOrganisation(w http.ResponseWriter, r *http.Request) {
	h.renderOrgForm(w, r, http.StatusOK, store.Organisation{Status: lifecycle.Pending, Flags: []string{}}, true, nil)
}

// EditOrganisation shows the form filled in.
func (h *Directory) EditOrganisation(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	h.renderOrgForm(w, r, http.StatusOK, o, false, nil)
}

// CreateOrganisation adds an organisation.
func (h *Directory) CreateOrganisation(w http.ResponseWriter, r *http.Request) {
	var in store.Organisation
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
		return
	}
	var err error
	var o store.Organisation
	if errs := h.validateOrg(&in, true); len(errs) > 0 {
		err = Validation(errs)
	} else {
		o, err = h.Store.CreateOrganisation(r.Context(), h.actor(r), in)
		err = directoryError(err, "Organisation")
	}
	if err != nil {
		if !WantsJSON(r) && AsError(err).Status < 500 {
			h.renderOrgForm(w, r, AsError(err).Status, in, true, orMessage(err, "OrganisationName"))
			return
		}
		WriteError(w, r, err)
		return
	}
	if !WantsJSON(r) {
		if same, err := h.Store.SameRegistration(r.Context(), o.RegistrationNumber, o.CountryOfRegistration, o.OrganisationID); err == nil && len(same) > 0 {
			names := make([]string, len(same))
			for i, s := range same {
				names[i] = s.OrganisationName + " (" + h.Vocab.Display(s.Status) + ")"
			}
			h.Flash.Warn(r.Context(), o.OrganisationName+" was created, but "+strings.Join(names, ", ")+" already has registration number "+
				o.RegistrationNumber+" in "+o.CountryOfRegistration+". If it is the same organisation, set this one "+h.Vocab.EndWord()+" and keep the other.")
			Redirect(w, r, "/organisations/"+o.OrganisationID)
			return
		}
		h.Flash.Put(r.Context(), o.OrganisationName+" was created.")
		Redirect(w, r, "/organisations/"+o.OrganisationID)
		return
	}
	w.Header().Set("Location", "/api/organisations/"+o.OrganisationID)
	SetETag(w, o)
	WriteJSON(w, http.StatusCreated, h.showOrg(o))
}

// orMessage is the field map of err, or its message on a default field.
func orMessage(err error, field string) map[string]string {
	m := FieldMap(err)
	if len(m) == 0 {
		m[field] = AsError(err).Message
	}
	return m
}

// UpdateOrganisation replaces an organisation (PUT, or the edit form).
func (h *Directory) UpdateOrganisation(w http.ResponseWriter, r *http.Request) {
	id := PathParam(r, "orgID")
	var in store.Organisation
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
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
	h.saveOrg(w, r, in, false)
}

func (h *Directory) saveOrg(w http.ResponseWriter, r *http.Request, in store.Organisation, statusOnly bool) {
	var err error
	var o store.Organisation
	var from string
	if errs := h.validateOrg(&in, false); len(errs) > 0 {
		err = Validation(errs)
	} else {
		o, err = h.Store.UpdateOrganisation(r.Context(), h.actorBecause(r, in.StatusReason), in, func(cur store.Organisation) error {
			return h.checkStatus(r, cur, &from, cur.Status, in.Status, in.StatusReason)
		})
		err = directoryError(err, "Organisation")
	}
	if err != nil {
		if e := AsError(err); e.Status == http.StatusPreconditionFailed && !WantsJSON(r) {
			WriteError(w, r, &Error{Status: e.Status, Code: e.Code, Message: "Someone else changed " + in.OrganisationName + " while you were editing it; nothing was saved."})
			return
		}
		if !WantsJSON(r) && AsError(err).Status < 500 && AsError(err).Status != http.StatusNotFound {
			if statusOnly {
				h.Flash.Refuse(r.Context(), "Not changed: "+AsError(err).Message)
				Redirect(w, r, "/organisations/"+in.OrganisationID)
				return
			}
			h.renderOrgForm(w, r, AsError(err).Status, in, false, orMessage(err, "OrganisationName"))
			return
		}
		WriteError(w, r, err)
		return
	}
	if !WantsJSON(r) {
		h.Flash.Put(r.Context(), h.savedMessage("", o.OrganisationName, from, o.Status))
		Redirect(w, r, "/organisations/"+o.OrganisationID)
		return
	}
	SetETag(w, o)
	WriteJSON(w, http.StatusOK, h.showOrg(o))
}

// SetOrganisationStatus is the status buttons of the organisation page.
func (h *Directory) SetOrganisationStatus(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	var in struct {
		Status string `json:"Status"`
	}
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
		return
	}
	o.Status = in.Status
	h.saveOrg(w, r, o, true)
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
