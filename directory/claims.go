package directory

import (
	"context"
	"time"
)

// AuthorityClaim says that an authority authorised an organisation for a
// role of a domain (docs/design.md §12).
// Claims are never deleted: Status Inactive ends one.
type AuthorityClaim struct {
	ClaimID             string    `json:"ClaimId"`
	OrganisationID      string    `json:"OrganisationId"`
	AuthorityID         string    `json:"AuthorityId"`
	AuthorityName       string    `json:"AuthorityName"`
	AuthorisationDomain string    `json:"AuthorisationDomain"`
	Role                string    `json:"Role"`
	RegistrationID      string    `json:"RegistrationId"`
	Status              string    `json:"Status"`
	CreatedOn           time.Time `json:"CreatedOn"`
	UpdatedOn           time.Time `json:"UpdatedOn"`
}

// Validate is what a claim must be without the database: a new one names
// an authority, a domain and a role; ids and the registration are short;
// the status is Active or Inactive (Active when a new one gives none).
// Whether the authority covers the domain, the role is the domain's and
// the Exclusive rule holds is the store's to check.
func (c *AuthorityClaim) Validate(isNew bool) Fields {
	f := Fields{}
	if isNew {
		f.Required("AuthorityId", c.AuthorityID, "AuthorityId")
		f.Required("AuthorisationDomain", c.AuthorisationDomain, "AuthorisationDomain")
		f.Required("Role", c.Role, "Role")
	}
	f.MaxLen("AuthorityId", c.AuthorityID, 40)
	f.MaxLen("AuthorisationDomain", c.AuthorisationDomain, 30)
	f.MaxLen("Role", c.Role, 30)
	f.MaxLen("RegistrationId", c.RegistrationID, 40)
	f.Status(&c.Status, isNew)
	return f
}

// Applied is the claim cur becomes by the update c: c's RegistrationId
// and Status (a Status left out keeps cur's). What a claim names cannot
// change — another authority, domain or role is a new claim — so each
// such change is added to problems. reactivated reports a claim made
// Active again: it must pass every rule of a new claim.
func (c AuthorityClaim) Applied(cur AuthorityClaim, problems Fields) (next AuthorityClaim, reactivated bool) {
	for _, f := range []struct{ field, in, cur string }{
		{"AuthorityId", c.AuthorityID, cur.AuthorityID}, {"AuthorisationDomain", c.AuthorisationDomain, cur.AuthorisationDomain}, {"Role", c.Role, cur.Role},
	} {
		if f.in != "" && f.in != f.cur {
			problems.Add(f.field, f.field+" of a claim cannot change; set this claim Inactive and add a new one")
		}
	}
	next = cur
	next.RegistrationID, next.Status = c.RegistrationID, c.Status
	if c.Status == "" {
		next.Status = cur.Status
	}
	return next, cur.Status != "Active" && next.Status == "Active"
}

// ClaimStore is what the claim use cases need of the database. A write
// gets the problems already found: the store adds whether what the claim
// names exists and whether the authority covers the domain (and, on an
// update, Applied's rule against the stored claim), and refuses them all
// at once; the Exclusive rule is a conflict naming the claims in the way.
type ClaimStore interface {
	ListAuthorityClaims(ctx context.Context, orgID string) ([]AuthorityClaim, error)
	GetAuthorityClaim(ctx context.Context, orgID, id string) (AuthorityClaim, error)
	CreateAuthorityClaim(ctx context.Context, a Actor, c AuthorityClaim, problems Fields) (AuthorityClaim, error)
	UpdateAuthorityClaim(ctx context.Context, a Actor, c AuthorityClaim, problems Fields, check Check[AuthorityClaim]) (AuthorityClaim, error)
	ListAuthorities(ctx context.Context) ([]Authority, error)
	ListDomainRoles(ctx context.Context, domain string) ([]DomainRole, error)
}

// Claims are the use cases of an organisation's authority claims.
type Claims struct {
	Store ClaimStore
}

// List is every claim of an organisation, Active first.
func (s *Claims) List(ctx context.Context, orgID string) ([]AuthorityClaim, error) {
	return s.Store.ListAuthorityClaims(ctx, orgID)
}

// ClaimsTab is what an organisation's Roles tab shows: its claims, and
// for the form that adds one every authority and every domain's roles.
type ClaimsTab struct {
	Claims      []AuthorityClaim
	Authorities []Authority
	Roles       []DomainRole
}

// Tab reads the Roles tab of organisation orgID.
func (s *Claims) Tab(ctx context.Context, orgID string) (ClaimsTab, error) {
	var t ClaimsTab
	var err error
	if t.Claims, err = s.Store.ListAuthorityClaims(ctx, orgID); err != nil {
		return t, err
	}
	if t.Authorities, err = s.Store.ListAuthorities(ctx); err != nil {
		return t, err
	}
	t.Roles, err = s.Store.ListDomainRoles(ctx, "")
	return t, err
}

// Get is one claim of an organisation.
func (s *Claims) Get(ctx context.Context, orgID, id string) (AuthorityClaim, error) {
	c, err := s.Store.GetAuthorityClaim(ctx, orgID, id)
	return c, Named(err, "Authority claim")
}

// Create records c for its organisation; its id is the server's.
func (s *Claims) Create(ctx context.Context, a Actor, c AuthorityClaim, refused Fields) (AuthorityClaim, error) {
	if c.ClaimID != "" {
		return c, Fields{"ClaimId": "ClaimId is given by the server."}.Err()
	}
	problems := c.Validate(true).Merge(refused)
	saved, err := s.Store.CreateAuthorityClaim(ctx, a, c, problems)
	return saved, Named(err, "Organisation")
}

// Update changes the RegistrationId or the Status of the claim id of
// c.OrganisationID when check passes on the stored claim: Inactive ends
// it, Active again is checked like a new claim. A ClaimId sent in c is the
// one read back, never another.
func (s *Claims) Update(ctx context.Context, a Actor, id string, c AuthorityClaim, refused Fields, check Check[AuthorityClaim]) (AuthorityClaim, error) {
	problems := Fields{}
	if c.ClaimID != "" && c.ClaimID != id {
		problems.Add("ClaimId", "ClaimId cannot change.")
	}
	c.ClaimID = id
	problems.Merge(c.Validate(false)).Merge(refused)
	saved, err := s.Store.UpdateAuthorityClaim(ctx, a, c, problems, check)
	return saved, Named(err, "Authority claim")
}
