package directory

import (
	"context"
	"slices"
	"strings"

	"github.com/trustframe/trustframe/formats"
)

// AuthorisationDomain is an area of the ecosystem in which organisations
// are authorised for roles (docs/design.md §12).
type AuthorisationDomain struct {
	Name        string `json:"Name"`
	Description string `json:"Description"`
	Status      string `json:"Status"`
}

// DomainRole is a role of an authorisation domain. Type is Federation or
// Directory; an organisation with an Active claim on an Exclusive role
// holds no other role.
type DomainRole struct {
	Name                string `json:"Name"`
	AuthorisationDomain string `json:"AuthorisationDomain"`
	Type                string `json:"Type"`
	Exclusive           bool   `json:"Exclusive"`
	Description         string `json:"Description"`
	Status              string `json:"Status"`
}

// Authority is a regulator or scheme that authorises organisations in the
// domains it covers.
type Authority struct {
	AuthorityID          string   `json:"AuthorityId"`
	AuthorityName        string   `json:"AuthorityName"`
	AuthorityCode        string   `json:"AuthorityCode"`
	Country              string   `json:"Country"`
	Status               string   `json:"Status"`
	AuthorisationDomains []string `json:"AuthorisationDomains"`
}

// RoleTypes are the kinds of role: Federation roles shape the federation,
// Directory roles the directory's own APIs.
var RoleTypes = []string{"Federation", "Directory"}

// domainName checks the name of a domain or role: it is one segment of its
// URL and fits the participants schema, where AuthorisationDomain and Role
// are at most 30 characters. The most telling message wins: an invisible
// character first.
func domainName(f Fields, field, name string) {
	switch {
	case RefusedText(name, TextLine):
		// A name shown in lists must read as it is (U+202E shows "evil"
		// as "live").
		f.Add(field, TextMessage(field, TextLine, name))
	case DotSegment(name):
		f.Add(field, DotSegmentMessage(field))
	case strings.ContainsAny(name, "/|?#%\\") || strings.TrimSpace(name) != name:
		f.Add(field, field+" cannot contain / \\ | ? # % or surrounding spaces.")
	case len([]rune(name)) > 30:
		f.Add(field, field+" is at most 30 characters (the participants schema's limit).")
	default:
		f.Required(field, name, field)
	}
}

// Validate is what a domain must be: a new one a name that can be its
// URL's last segment, a description of at most 500 characters, a status of
// Active or Inactive.
func (d *AuthorisationDomain) Validate(isNew bool) Fields {
	f := Fields{}
	if isNew {
		domainName(f, "Name", d.Name)
	}
	f.MaxLen("Description", d.Description, 500)
	f.Status(&d.Status, isNew)
	return f
}

// Validate is what a role must be, as a domain is, and of a known Type.
func (r *DomainRole) Validate(isNew bool) Fields {
	f := Fields{}
	if isNew {
		domainName(f, "Name", r.Name)
	}
	if !slices.Contains(RoleTypes, r.Type) {
		f.Add("Type", "Type must be Federation or Directory.")
	}
	f.MaxLen("Description", r.Description, 500)
	f.Status(&r.Status, isNew)
	return f
}

// Validate is what an authority must be without looking at the database: a
// name and a code, an ISO country code, each domain named once. That the
// domains exist is checked by the store, in the write's transaction.
func (a *Authority) Validate(isNew bool) Fields {
	f := Fields{}
	f.Required("AuthorityName", a.AuthorityName, "Authority name")
	f.MaxLen("AuthorityName", a.AuthorityName, 255)
	f.Required("AuthorityCode", a.AuthorityCode, "Authority code")
	f.MaxLen("AuthorityCode", a.AuthorityCode, 40)
	if msg := CountryProblem(a.Country); msg != "" {
		f.Add("Country", msg)
	}
	seen := map[string]bool{}
	for _, d := range a.AuthorisationDomains {
		if d == "" || seen[d] {
			f["AuthorisationDomains"] = "Each domain is named once: " + d
		}
		seen[d] = true
	}
	if len(a.AuthorisationDomains) > 100 {
		f["AuthorisationDomains"] = "At most 100 domains."
	}
	if a.AuthorisationDomains == nil {
		a.AuthorisationDomains = []string{}
	}
	f.Status(&a.Status, isNew)
	return f
}

// DomainStore is what the use cases of domains, roles and authorities need
// of the database. Nothing cascades: disabling or deleting what claims,
// roles, authorities or policies use is a conflict naming them. An
// authority's write gets the problems already found with its fields; the
// store adds that its domains exist and refuses them all at once.
type DomainStore interface {
	ListAuthorisationDomains(ctx context.Context) ([]AuthorisationDomain, error)
	GetAuthorisationDomain(ctx context.Context, name string) (AuthorisationDomain, error)
	CreateAuthorisationDomain(ctx context.Context, a Actor, d AuthorisationDomain) (AuthorisationDomain, error)
	UpdateAuthorisationDomain(ctx context.Context, a Actor, d AuthorisationDomain, check Check[AuthorisationDomain]) (AuthorisationDomain, error)
	DeleteAuthorisationDomain(ctx context.Context, a Actor, name string) error
	ListDomainRoles(ctx context.Context, domain string) ([]DomainRole, error)
	GetDomainRole(ctx context.Context, domain, name string) (DomainRole, error)
	CreateDomainRole(ctx context.Context, a Actor, r DomainRole) (DomainRole, error)
	UpdateDomainRole(ctx context.Context, a Actor, r DomainRole, check Check[DomainRole]) (DomainRole, error)
	DeleteDomainRole(ctx context.Context, a Actor, domain, name string) error
	ListAuthorities(ctx context.Context) ([]Authority, error)
	GetAuthority(ctx context.Context, id string) (Authority, error)
	CreateAuthority(ctx context.Context, a Actor, au Authority, problems Fields) (Authority, error)
	UpdateAuthority(ctx context.Context, a Actor, au Authority, problems Fields, check Check[Authority]) (Authority, error)
	DeleteAuthority(ctx context.Context, a Actor, id string) error
}

// Domains are the use cases of authorisation domains, their roles and the
// authorities (docs/design.md §12). refused, where a use case takes it,
// are problems the caller found reading the input (the text rule): they
// are reported with the rest and nothing is written.
type Domains struct {
	Store DomainStore
}

// ListDomains is every domain by name.
func (s *Domains) ListDomains(ctx context.Context) ([]AuthorisationDomain, error) {
	return s.Store.ListAuthorisationDomains(ctx)
}

// GetDomain is one domain.
func (s *Domains) GetDomain(ctx context.Context, name string) (AuthorisationDomain, error) {
	d, err := s.Store.GetAuthorisationDomain(ctx, name)
	return d, Named(err, "Authorisation domain")
}

// CreateDomain adds a domain; a taken name is a conflict.
func (s *Domains) CreateDomain(ctx context.Context, a Actor, d AuthorisationDomain, refused Fields) (AuthorisationDomain, error) {
	if err := d.Validate(true).Merge(refused).Err(); err != nil {
		return d, err
	}
	saved, err := s.Store.CreateAuthorisationDomain(ctx, a, d)
	return saved, Named(err, "Authorisation domain")
}

// UpdateDomain changes the description or status of the domain name when
// check passes on the stored one; its name cannot change.
func (s *Domains) UpdateDomain(ctx context.Context, a Actor, name string, d AuthorisationDomain, refused Fields, check Check[AuthorisationDomain]) (AuthorisationDomain, error) {
	if d.Name != "" && d.Name != name {
		return d, Fields{"Name": "The name of a domain cannot change."}.Err()
	}
	d.Name = name
	if err := d.Validate(false).Merge(refused).Err(); err != nil {
		return d, err
	}
	saved, err := s.Store.UpdateAuthorisationDomain(ctx, a, d, check)
	return saved, Named(err, "Authorisation domain")
}

// DeleteDomain removes a domain nothing refers to.
func (s *Domains) DeleteDomain(ctx context.Context, a Actor, name string) error {
	return Named(s.Store.DeleteAuthorisationDomain(ctx, a, name), "Authorisation domain")
}

// DomainsOverview is what the Domains and Roles page lists: every domain,
// every role (by domain then name) and every authority.
type DomainsOverview struct {
	Domains     []AuthorisationDomain
	Roles       []DomainRole
	Authorities []Authority
}

// Overview reads every domain, role and authority.
func (s *Domains) Overview(ctx context.Context) (DomainsOverview, error) {
	var o DomainsOverview
	var err error
	if o.Domains, err = s.Store.ListAuthorisationDomains(ctx); err != nil {
		return o, err
	}
	if o.Roles, err = s.Store.ListDomainRoles(ctx, ""); err != nil {
		return o, err
	}
	o.Authorities, err = s.Store.ListAuthorities(ctx)
	return o, err
}

// ListRoles is the roles of domain; an unknown domain is not found.
func (s *Domains) ListRoles(ctx context.Context, domain string) ([]DomainRole, error) {
	if _, err := s.GetDomain(ctx, domain); err != nil {
		return nil, err
	}
	return s.Store.ListDomainRoles(ctx, domain)
}

// GetRole is one role of a domain.
func (s *Domains) GetRole(ctx context.Context, domain, name string) (DomainRole, error) {
	ro, err := s.Store.GetDomainRole(ctx, domain, name)
	return ro, Named(err, "Role")
}

// inDomain puts r in domain, the one its URL names: a body naming another
// is refused.
func (r *DomainRole) inDomain(domain string) Fields {
	f := Fields{}
	if r.AuthorisationDomain != "" && r.AuthorisationDomain != domain {
		f.Add("AuthorisationDomain", "AuthorisationDomain must be the domain of the URL ("+domain+").")
	}
	r.AuthorisationDomain = domain
	return f
}

// CreateRole adds a role to domain (not found when the domain is unknown);
// a name the domain has already is a conflict.
func (s *Domains) CreateRole(ctx context.Context, a Actor, domain string, r DomainRole, refused Fields) (DomainRole, error) {
	f := r.inDomain(domain)
	if err := f.Merge(r.Validate(true)).Merge(refused).Err(); err != nil {
		return r, err
	}
	saved, err := s.Store.CreateDomainRole(ctx, a, r)
	return saved, Named(err, "Authorisation domain")
}

// UpdateRole changes the type, exclusivity, description or status of the
// role name of domain when check passes on the stored one; its name and
// domain cannot change.
func (s *Domains) UpdateRole(ctx context.Context, a Actor, domain, name string, r DomainRole, refused Fields, check Check[DomainRole]) (DomainRole, error) {
	f := r.inDomain(domain)
	if r.Name != "" && r.Name != name {
		f.Add("Name", "The name of a role cannot change.")
	}
	r.Name = name
	if err := f.Merge(r.Validate(false)).Merge(refused).Err(); err != nil {
		return r, err
	}
	saved, err := s.Store.UpdateDomainRole(ctx, a, r, check)
	return saved, Named(err, "Role")
}

// DeleteRole removes a role no claim or policy names.
func (s *Domains) DeleteRole(ctx context.Context, a Actor, domain, name string) error {
	return Named(s.Store.DeleteDomainRole(ctx, a, domain, name), "Role")
}

// ListAuthorities is every authority with the domains it covers.
func (s *Domains) ListAuthorities(ctx context.Context) ([]Authority, error) {
	return s.Store.ListAuthorities(ctx)
}

// GetAuthority is one authority.
func (s *Domains) GetAuthority(ctx context.Context, id string) (Authority, error) {
	au, err := s.Store.GetAuthority(ctx, id)
	return au, Named(err, "Authority")
}

// CreateAuthority adds an authority, with the id it gives (a UUID in lower
// case) or a new one. Its domains must exist; a name or code another
// authority has is a conflict.
func (s *Domains) CreateAuthority(ctx context.Context, a Actor, au Authority, refused Fields) (Authority, error) {
	f := Fields{}
	if au.AuthorityID != "" && !formats.ValidUUID(au.AuthorityID) {
		f.Add("AuthorityId", "AuthorityId must be a UUID in lower case, like 0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a.")
	}
	problems := f.Merge(au.Validate(true)).Merge(refused)
	saved, err := s.Store.CreateAuthority(ctx, a, au, problems)
	return saved, Named(err, "Authority")
}

// UpdateAuthority replaces the authority id when check passes on the
// stored one. Disabling it, or dropping a domain, while Active claims need
// it is a conflict naming them.
func (s *Domains) UpdateAuthority(ctx context.Context, a Actor, id string, au Authority, refused Fields, check Check[Authority]) (Authority, error) {
	f := Fields{}
	if au.AuthorityID != "" && au.AuthorityID != id {
		f.Add("AuthorityId", "AuthorityId cannot change.")
	}
	au.AuthorityID = id
	problems := f.Merge(au.Validate(false)).Merge(refused)
	saved, err := s.Store.UpdateAuthority(ctx, a, au, problems, check)
	return saved, Named(err, "Authority")
}

// DeleteAuthority removes an authority no claim names.
func (s *Domains) DeleteAuthority(ctx context.Context, a Actor, id string) error {
	return Named(s.Store.DeleteAuthority(ctx, a, id), "Authority")
}
