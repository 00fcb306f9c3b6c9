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

// ClaimStore is what recording a claim needs of the database: it adds to
// the problems already found whether what the claim names exists and
// whether the authority covers the domain, and refuses them all at once;
// the Exclusive rule is a conflict naming the claims in the way.
type ClaimStore interface {
	CreateAuthorityClaim(ctx context.Context, a Actor, c AuthorityClaim, problems Fields) (AuthorityClaim, error)
}

// Claims are the use cases of an organisation's authority claims.
type Claims struct {
	Store ClaimStore
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
