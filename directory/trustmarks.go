package directory

import (
	"context"
	"time"
)

// TrustMarkType is a kind of trust mark the directory issues
// (docs/design.md §17): Reference Data a Super User defines, based on a
// role of a domain or on a certification type. TrustMarkType is the URL
// the marks name in their trust_mark_type claim.
type TrustMarkType struct {
	ID                  string    `json:"Id"`
	TrustMarkType       string    `json:"TrustMarkType"`
	Name                string    `json:"Name"`
	Description         string    `json:"Description" text:"lines"`
	Basis               string    `json:"Basis"` // TrustMarkBasisRole or TrustMarkBasisCertification
	AuthorisationDomain string    `json:"AuthorisationDomain,omitempty"`
	Role                string    `json:"Role,omitempty"`
	CertificationType   string    `json:"CertificationType,omitempty"`
	Lifetime            string    `json:"Lifetime"` // a duration, "1m" to "720h"
	LogoURI             string    `json:"LogoUri,omitempty"`
	Ref                 string    `json:"Ref,omitempty"`
	Status              string    `json:"Status"`
	CreatedOn           time.Time `json:"CreatedOn"`
	UpdatedOn           time.Time `json:"UpdatedOn"`
}

// The bases of a trust mark type.
const (
	TrustMarkBasisRole          = "Role"
	TrustMarkBasisCertification = "Certification"
)

// IssuedTrustMark is one trust mark the directory signed, recorded so that
// its status is exact: revoked from RevokedAt (the moment its subject's
// entitlement lapsed) even if the entitlement comes back.
type IssuedTrustMark struct {
	JTI           string     `json:"jti"`
	TypeID        string     `json:"TrustMarkTypeId"`
	TrustMarkType string     `json:"trust_mark_type"`
	Subject       string     `json:"sub"`
	IssuedAt      time.Time  `json:"iat"`
	ExpiresAt     time.Time  `json:"exp"`
	JWT           string     `json:"trust_mark"`
	RevokedAt     *time.Time `json:"RevokedAt,omitempty"`
	RevokeReason  string     `json:"RevokeReason,omitempty"`
}

// Entitlement is a subordinate entitled now to a trust mark type: its
// entity ID, what it is (Application or AuthorisationServer, with its id
// and organisation) and, for a certification, the end of the day its
// certification expires (zero when it does not).
type Entitlement struct {
	Subject        string    `json:"sub"`
	Kind           string    `json:"Kind"` // "Application" or "AuthorisationServer"
	ID             string    `json:"Id"`
	Name           string    `json:"Name"`
	OrganisationID string    `json:"OrganisationId"`
	Until          time.Time `json:"Until"`
}

// TrustMarkStore is what the trust mark use cases need of the database.
// Entitled computes entitlement from current state only (§17): an Active
// organisation's Active application or server with a federation entity
// ID; for a Role type its organisation holds an Active claim on the role
// (and an application has the role in its Roles); for a Certification type
// it holds an Active certification of the type whose period covers now.
// sub "" lists every entitled subject. Writes that end an entitlement
// (a claim or certification made Inactive, an application, server or
// organisation leaving Active, a type made Inactive) revoke the recorded
// marks it lapses in the same transaction, each with a trust_mark_revoke
// audit record (subject type TrustMark).
type TrustMarkStore interface {
	ListTrustMarkTypes(ctx context.Context) ([]TrustMarkType, error)
	GetTrustMarkType(ctx context.Context, id string) (TrustMarkType, error)
	TrustMarkTypeByURL(ctx context.Context, trustMarkType string) (TrustMarkType, error)
	CreateTrustMarkType(ctx context.Context, a Actor, t TrustMarkType, problems Fields) (TrustMarkType, error)
	UpdateTrustMarkType(ctx context.Context, a Actor, t TrustMarkType, problems Fields, check Check[TrustMarkType]) (TrustMarkType, error)
	Entitled(ctx context.Context, t TrustMarkType, sub string, now time.Time) ([]Entitlement, error)
	RecordTrustMark(ctx context.Context, m IssuedTrustMark) error
	// LatestTrustMark is the newest unrevoked mark of the type for sub
	// (ErrNotFound when none).
	LatestTrustMark(ctx context.Context, typeID, sub string) (IssuedTrustMark, error)
	TrustMarkByJTI(ctx context.Context, jti string) (IssuedTrustMark, error)
}
