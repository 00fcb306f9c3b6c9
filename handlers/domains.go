package handlers

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

type domainStore interface {
	ListAuthorisationDomains(ctx context.Context) ([]store.AuthorisationDomain, error)
	GetAuthorisationDomain(ctx context.Context, name string) (store.AuthorisationDomain, error)
	CreateAuthorisationDomain(ctx context.Context, a store.Audit, d store.AuthorisationDomain) (store.AuthorisationDomain, error)
	UpdateAuthorisationDomain(ctx context.Context, a store.Audit, d store.AuthorisationDomain, check func(store.AuthorisationDomain) error) (store.AuthorisationDomain, error)
	DeleteAuthorisationDomain(ctx context.Context, a store.Audit, name string) error
	ListDomainRoles(ctx context.Context, domain string) ([]store.DomainRole, error)
	GetDomainRole(ctx context.Context, domain, name string) (store.DomainRole, error)
	CreateDomainRole(ctx context.Context, a store.Audit, r store.DomainRole) (store.DomainRole, error)
	UpdateDomainRole(ctx context.Context, a store.Audit, r store.DomainRole, check func(store.DomainRole) error) (store.DomainRole, error)
	DeleteDomainRole(ctx context.Context, a store.Audit, domain, name string) error
	ListAuthorities(ctx context.Context) ([]store.Authority, error)
	GetAuthority(ctx context.Context, id string) (store.Authority, error)
	CreateAuthority(ctx context.Context, a store.Audit, au store.Authority) (store.Authority, error)
	UpdateAuthority(ctx context.Context, a store.Audit, au store.Authority, check func(store.Authority) error) (store.Authority, error)
	DeleteAuthority(ctx context.Context, a store.Audit, id string) error
}

// Domains serves Reference Data > Domains and Roles: authorisation
// domains, their roles and the authorities (docs/design.md §12,
// "Authorisation domains, roles and authority claims"). Super Users write
// them; every administrator may read them through the API.
type Domains struct {
	*Base
	Store domainStore
}

const domainsPath = "/references/authorisation-domains"

// RoleTypes are the kinds of role.
var RoleTypes = []string{"Federation", "Directory"}

// validRefName: a name that is one path segment and fits the participants
// schema (AuthorisationDomain and Role are at most 30 characters there).
func validRefName(f map[string]string, field, name string) {
	required(f, field, name, field)
	if len([]rune(name)) > 30 {
		f[field] = field + " is at most 30 characters (the participants schema's limit)."
	}
	if strings.ContainsAny(name, "/|?#%\\") || strings.TrimSpace(name) != name {
		f[field] = field + " cannot contain / \\ | ? # % or surrounding spaces."
	}
	if dotSegment(name) {
		f[field] = dotSegmentMessage(field)
	}
	if hasControl(name) {
		f[field] = textMessage(field, textLine, name)
	}
}

// hasControl reports a name holding a control character (a tab, a line
// break) or a direction mark: a name that is its own URL segment and is
// shown in lists must read as it is (U+202E shows "evil" as "live"). It
// is the one-line text rule of decode.go (docs/design.md §4).
func hasControl(name string) bool { return refusedText(name, textLine) }

// dotSegment and its message are the layer's (directory.DotSegment): a
// name that cannot be the last segment of its URL.
var (
	dotSegment        = directory.DotSegment
	dotSegmentMessage = directory.DotSegmentMessage
)

func (h *Domains) actor(r *http.Request) store.Audit {
	return store.Audit{Actor: PrincipalFrom(r.Context()).Email}
}

// page renders Reference Data > Domains and Roles; p carries the forms,
// field errors or a conflict of the request that failed.
func (h *Domains) page(w http.ResponseWriter, r *http.Request, status int, p views.DomainsPage) {
	ctx := r.Context()
	doms, err := h.Store.ListAuthorisationDomains(ctx)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	roles, err := h.Store.ListDomainRoles(ctx, "")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	auths, err := h.Store.ListAuthorities(ctx)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	byDomain := map[string][]store.DomainRole{}
	for _, ro := range roles {
		byDomain[ro.AuthorisationDomain] = append(byDomain[ro.AuthorisationDomain], ro)
	}
	for _, d := range doms {
		p.Domains = append(p.Domains, views.DomainWithRoles{Domain: d, Roles: byDomain[d.Name]})
	}
	p.Authorities, p.RoleTypes = auths, RoleTypes
	if p.Errors == nil {
		p.Errors = map[string]string{}
	}
	Render(w, r, status, views.DomainsAndRoles(h.Shell(r, "Domains and Roles", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Domains and Roles"}), p))
}

// failed answers a failed write: JSON as a problem, the page re-rendered
// with the errors beside the form (which: a new or an edit form, with what
// was typed in p) or the conflict as a list.
func (h *Domains) failed(w http.ResponseWriter, r *http.Request, err error, which string, p views.DomainsPage) {
	h.Saved(w, r, Saved{Err: err, Again: pageAgain(func(e *Error) {
		if e.Status == http.StatusConflict {
			p.Conflict, p.InTheWay = conflictList(e)
			if len(p.InTheWay) == 0 && which != "" {
				// Nothing named in the way: the name is taken (a new
				// domain or role), said beside it; what was typed stays.
				field := "_"
				if which == "domain" || strings.HasPrefix(which, "role:") {
					field = "Name"
				}
				p.Errors, p.FormFor, p.Conflict = map[string]string{field: p.Conflict}, which, ""
			}
		} else {
			p.Errors = onForm(FieldMap(e), domainsFormFields(which))
			if len(p.Errors) == 0 {
				p.Errors = map[string]string{"_": e.Message}
			}
			p.FormFor = which
		}
		h.page(w, r, e.Status, p)
	})})
}

// domainsFormFields are the fields a form of the Domains and Roles page
// shows a message beside (which as in failed).
func domainsFormFields(which string) []string {
	kind, _, _ := strings.Cut(which, ":")
	switch kind {
	case "domain":
		return []string{"Name", "Description"}
	case "role":
		return []string{"Name", "Type", "Description"}
	case "edit-domain":
		return []string{"Description"}
	case "edit-role":
		return []string{"Type", "Description"}
	case "authority", "edit-authority":
		return []string{"AuthorityName", "AuthorityCode", "Country", "AuthorisationDomains"}
	}
	return nil
}

// onForm keeps the messages of the fields a form shows; the others are
// joined into its general message ("_"), so that none is lost.
func onForm(errs map[string]string, fields []string) map[string]string {
	out := map[string]string{}
	var rest []string
	for f, m := range errs {
		if slices.Contains(fields, f) {
			out[f] = m
		} else {
			rest = append(rest, m)
		}
	}
	if len(rest) > 0 {
		sort.Strings(rest)
		out["_"] = strings.Join(rest, " ")
	}
	return out
}

// done answers a write of the page: v is the saved resource (nil: 204).
func (h *Domains) done(w http.ResponseWriter, r *http.Request, status int, flash string, location string, v any) {
	if v == nil {
		status = http.StatusNoContent
	}
	h.Saved(w, r, Saved{Flash: flash, Page: domainsPath, Status: status, Body: v, ETag: v, Location: location})
}

// ListDomains is the page (browser) or the list of domains (API).
func (h *Domains) ListDomains(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() { h.page(w, r, http.StatusOK, views.DomainsPage{}) }, h.Store.ListAuthorisationDomains)
}

// GetDomain is one domain.
func (h *Domains) GetDomain(w http.ResponseWriter, r *http.Request) {
	d, err := h.Store.GetAuthorisationDomain(r.Context(), PathParam(r, "domain"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Authorisation domain"))
		return
	}
	SetETag(w, d)
	WriteJSON(w, http.StatusOK, d)
}

func validateDomain(d *store.AuthorisationDomain, isNew bool) map[string]string {
	f := map[string]string{}
	if isNew {
		validRefName(f, "Name", d.Name)
	}
	checkLen(f, "Description", d.Description, 500)
	statusIn(f, &d.Status, isNew)
	return f
}

// CreateDomain adds a domain.
func (h *Domains) CreateDomain(w http.ResponseWriter, r *http.Request) {
	var in store.AuthorisationDomain
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	var err error
	var d store.AuthorisationDomain
	if errs := withRefused(validateDomain(&in, true), refused); len(errs) > 0 {
		err = Validation(errs)
	} else {
		d, err = h.Store.CreateAuthorisationDomain(r.Context(), h.actor(r), in)
		err = directory.Named(err, "Authorisation domain")
	}
	if err != nil {
		h.failed(w, r, err, "domain", views.DomainsPage{DomainForm: in})
		return
	}
	h.done(w, r, http.StatusCreated, "Authorisation domain "+d.Name+" was added.", "/api"+domainsPath+"/"+url.PathEscape(d.Name), d)
}

// UpdateDomain changes a domain's description or status; disabling one
// that Active claims use is a 409 naming them.
func (h *Domains) UpdateDomain(w http.ResponseWriter, r *http.Request) {
	var in store.AuthorisationDomain
	name := PathParam(r, "domain")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.AuthorisationDomain, error) { return h.Store.GetAuthorisationDomain(r.Context(), name) }))
	if !ok {
		return
	}
	if in.Name != "" && in.Name != name {
		h.failed(w, r, Validation(map[string]string{"Name": "The name of a domain cannot change."}), views.EditDomainForm(name), views.DomainsPage{DomainForm: in})
		return
	}
	in.Name = name
	var err error
	var d store.AuthorisationDomain
	if errs := withRefused(validateDomain(&in, false), refused); len(errs) > 0 {
		err = Validation(errs)
	} else {
		d, err = h.Store.UpdateAuthorisationDomain(r.Context(), h.actor(r), in, func(cur store.AuthorisationDomain) error { return CheckIfMatch(r, cur) })
		err = directory.Named(err, "Authorisation domain")
	}
	if err != nil {
		h.failed(w, r, err, views.EditDomainForm(name), views.DomainsPage{DomainForm: in})
		return
	}
	h.done(w, r, http.StatusOK, "Authorisation domain "+d.Name+" is "+d.Status+".", "", d)
}

// DeleteDomain removes a domain nothing refers to (409 naming its roles,
// authorities, claims and policies otherwise: nothing cascades).
func (h *Domains) DeleteDomain(w http.ResponseWriter, r *http.Request) {
	name := PathParam(r, "domain")
	if err := directory.Named(h.Store.DeleteAuthorisationDomain(r.Context(), h.actor(r), name), "Authorisation domain"); err != nil {
		h.failed(w, r, err, "", views.DomainsPage{})
		return
	}
	h.done(w, r, http.StatusNoContent, "Authorisation domain "+name+" was deleted.", "", nil)
}

// ListRoles lists the roles of a domain (404 for an unknown domain).
func (h *Domains) ListRoles(w http.ResponseWriter, r *http.Request) {
	dom := PathParam(r, "domain")
	if _, err := h.Store.GetAuthorisationDomain(r.Context(), dom); err != nil {
		WriteError(w, r, directory.Named(err, "Authorisation domain"))
		return
	}
	roles, err := h.Store.ListDomainRoles(r.Context(), dom)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, roles)
}

// GetRole is one role.
func (h *Domains) GetRole(w http.ResponseWriter, r *http.Request) {
	ro, err := h.Store.GetDomainRole(r.Context(), PathParam(r, "domain"), PathParam(r, "role"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Role"))
		return
	}
	SetETag(w, ro)
	WriteJSON(w, http.StatusOK, ro)
}

func validateRole(ro *store.DomainRole, isNew bool) map[string]string {
	f := map[string]string{}
	if isNew {
		validRefName(f, "Name", ro.Name)
	}
	if !contains(RoleTypes, ro.Type) {
		f["Type"] = "Type must be Federation or Directory."
	}
	checkLen(f, "Description", ro.Description, 500)
	statusIn(f, &ro.Status, isNew)
	return f
}

// roleIn reads a role from the body; the domain is the URL's, and a body
// that names another is a 422. An update (name set) spares the text it
// sends back as stored (keptText).
func (h *Domains) roleIn(w http.ResponseWriter, r *http.Request, name string) (store.DomainRole, error) {
	var in store.DomainRole
	dom := PathParam(r, "domain")
	if err := Decode(w, r, &in); err != nil {
		if name != "" {
			err = keptText(err, storedOf(&in, func() (store.DomainRole, error) { return h.Store.GetDomainRole(r.Context(), dom, name) }))
		}
		if err != nil {
			return in, err
		}
	}
	if in.AuthorisationDomain != "" && in.AuthorisationDomain != dom {
		return in, Validation(map[string]string{"AuthorisationDomain": "AuthorisationDomain must be the domain of the URL (" + dom + ")."})
	}
	in.AuthorisationDomain = dom
	return in, nil
}

// CreateRole adds a role to a domain (404 for an unknown domain).
func (h *Domains) CreateRole(w http.ResponseWriter, r *http.Request) {
	in, err := h.roleIn(w, r, "")
	if err != nil && AsError(err).Status != http.StatusUnprocessableEntity {
		WriteError(w, r, err)
		return
	}
	var ro store.DomainRole
	if err == nil {
		if errs := validateRole(&in, true); len(errs) > 0 {
			err = Validation(errs)
		} else {
			ro, err = h.Store.CreateDomainRole(r.Context(), h.actor(r), in)
			err = directory.Named(err, "Authorisation domain")
		}
	}
	if err != nil {
		h.failed(w, r, err, "role:"+in.AuthorisationDomain, views.DomainsPage{RoleForm: in})
		return
	}
	h.done(w, r, http.StatusCreated, "Role "+ro.Name+" was added to "+ro.AuthorisationDomain+".",
		"/api"+domainsPath+"/"+url.PathEscape(ro.AuthorisationDomain)+"/roles/"+url.PathEscape(ro.Name), ro)
}

// UpdateRole changes a role's type, exclusivity, description or status.
func (h *Domains) UpdateRole(w http.ResponseWriter, r *http.Request) {
	name := PathParam(r, "role")
	in, err := h.roleIn(w, r, name)
	if err != nil && AsError(err).Status != http.StatusUnprocessableEntity {
		WriteError(w, r, err)
		return
	}
	if err == nil && in.Name != "" && in.Name != name {
		err = Validation(map[string]string{"Name": "The name of a role cannot change."})
	}
	in.Name = name
	var ro store.DomainRole
	if err == nil {
		if errs := validateRole(&in, false); len(errs) > 0 {
			err = Validation(errs)
		} else {
			ro, err = h.Store.UpdateDomainRole(r.Context(), h.actor(r), in, func(cur store.DomainRole) error { return CheckIfMatch(r, cur) })
			err = directory.Named(err, "Role")
		}
	}
	if err != nil {
		h.failed(w, r, err, views.EditRoleForm(PathParam(r, "domain"), name), views.DomainsPage{RoleForm: in})
		return
	}
	h.done(w, r, http.StatusOK, "Role "+ro.Name+" of "+ro.AuthorisationDomain+" was saved.", "", ro)
}

// DeleteRole removes a role no claim or policy names.
func (h *Domains) DeleteRole(w http.ResponseWriter, r *http.Request) {
	dom, name := PathParam(r, "domain"), PathParam(r, "role")
	if err := directory.Named(h.Store.DeleteDomainRole(r.Context(), h.actor(r), dom, name), "Role"); err != nil {
		h.failed(w, r, err, "", views.DomainsPage{})
		return
	}
	h.done(w, r, http.StatusNoContent, "Role "+name+" of "+dom+" was deleted.", "", nil)
}

// ListAuthorities lists the authorities.
func (h *Domains) ListAuthorities(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() { Redirect(w, r, domainsPath+"#authorities") }, h.Store.ListAuthorities)
}

// GetAuthority is one authority.
func (h *Domains) GetAuthority(w http.ResponseWriter, r *http.Request) {
	au, err := h.Store.GetAuthority(r.Context(), PathParam(r, "authorityID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Authority"))
		return
	}
	SetETag(w, au)
	WriteJSON(w, http.StatusOK, au)
}

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)

func validateAuthority(au *store.Authority, isNew bool) map[string]string {
	f := map[string]string{}
	required(f, "AuthorityName", au.AuthorityName, "Authority name")
	checkLen(f, "AuthorityName", au.AuthorityName, 255)
	required(f, "AuthorityCode", au.AuthorityCode, "Authority code")
	checkLen(f, "AuthorityCode", au.AuthorityCode, 40)
	if !countryCode.MatchString(au.Country) {
		f["Country"] = "Country must be an ISO 3166-1 alpha-2 code such as GB or BR."
	}
	seen := map[string]bool{}
	for _, d := range au.AuthorisationDomains {
		if d == "" || seen[d] {
			f["AuthorisationDomains"] = "Each domain is named once: " + d
		}
		seen[d] = true
	}
	if len(au.AuthorisationDomains) > 100 {
		f["AuthorisationDomains"] = "At most 100 domains."
	}
	if au.AuthorisationDomains == nil {
		au.AuthorisationDomains = []string{}
	}
	statusIn(f, &au.Status, isNew)
	return f
}

// CreateAuthority adds an authority; the domains it covers must exist.
func (h *Domains) CreateAuthority(w http.ResponseWriter, r *http.Request) {
	var in store.Authority
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	var err error
	var au store.Authority
	if in.AuthorityID != "" && !ValidUUID(in.AuthorityID) {
		err = Validation(map[string]string{"AuthorityId": "AuthorityId must be a UUID in lower case, like 0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a."})
	} else if errs := withRefused(validateAuthority(&in, true), refused); len(errs) > 0 {
		err = Validation(errs)
	} else {
		au, err = h.Store.CreateAuthority(r.Context(), h.actor(r), in)
		err = directory.Named(err, "Authority")
	}
	if err != nil {
		h.failed(w, r, err, "authority", views.DomainsPage{AuthorityForm: in})
		return
	}
	h.done(w, r, http.StatusCreated, "Authority "+au.AuthorityName+" was added.", "/api/references/authorities/"+au.AuthorityID, au)
}

// UpdateAuthority replaces an authority; disabling it, or dropping a
// domain, while Active claims need it is a 409 naming them.
func (h *Domains) UpdateAuthority(w http.ResponseWriter, r *http.Request) {
	var in store.Authority
	id := PathParam(r, "authorityID")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Authority, error) { return h.Store.GetAuthority(r.Context(), id) }))
	if !ok {
		return
	}
	var err error
	var au store.Authority
	if in.AuthorityID != "" && in.AuthorityID != id {
		err = Validation(map[string]string{"AuthorityId": "AuthorityId cannot change."})
	} else if in.AuthorityID = id; len(withRefused(validateAuthority(&in, false), refused)) > 0 {
		err = Validation(withRefused(validateAuthority(&in, false), refused))
	} else {
		au, err = h.Store.UpdateAuthority(r.Context(), h.actor(r), in, func(cur store.Authority) error { return CheckIfMatch(r, cur) })
		err = directory.Named(err, "Authority")
	}
	if err != nil {
		h.failed(w, r, err, views.EditAuthorityForm(id), views.DomainsPage{AuthorityForm: in})
		return
	}
	h.done(w, r, http.StatusOK, "Authority "+au.AuthorityName+" was saved.", "", au)
}

// DeleteAuthority removes an authority no claim names.
func (h *Domains) DeleteAuthority(w http.ResponseWriter, r *http.Request) {
	id := PathParam(r, "authorityID")
	if err := directory.Named(h.Store.DeleteAuthority(r.Context(), h.actor(r), id), "Authority"); err != nil {
		h.failed(w, r, err, "", views.DomainsPage{})
		return
	}
	h.done(w, r, http.StatusNoContent, "The authority was deleted.", "", nil)
}
