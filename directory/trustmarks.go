package directory

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/trustframe/trustframe/formats"
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

// Lifetimes of a trust mark type's marks (docs/design.md §17).
const (
	TrustMarkLifetimeDefault = "24h"
	trustMarkLifetimeMin     = time.Minute
	trustMarkLifetimeMax     = 720 * time.Hour
)

// DefaultTrustMarkType is the URL a type named name gets when none is
// given: <entity ID>/trust-marks/<name in lower case, spaces as dashes>
// (any other character a path cannot carry escaped).
func DefaultTrustMarkType(entityID, name string) string {
	slug := strings.Join(strings.Fields(strings.ToLower(name)), "-")
	return strings.TrimRight(entityID, "/") + "/trust-marks/" + url.PathEscape(slug)
}

// LifetimeOf is the type's lifetime as a duration (the default when it
// does not parse: Validate refuses such a type before it is stored).
func (t TrustMarkType) LifetimeOf() time.Duration {
	d, err := time.ParseDuration(t.Lifetime)
	if err != nil {
		d, _ = time.ParseDuration(TrustMarkLifetimeDefault)
	}
	return d
}

// Validate is what a trust mark type must be without the database
// (docs/design.md §17); entityID is the directory's federation entity ID.
// A new type without a TrustMarkType gets DefaultTrustMarkType, one
// without a Lifetime "24h", without a Status Active. The type URL is
// https, or http on a loopback host when the entity ID is itself
// loopback http. Whether the URL is taken, and whether the role or
// certification type exists, is the store's to judge.
func (t *TrustMarkType) Validate(isNew bool, entityID string) Fields {
	f := Fields{}
	f.Required("Name", t.Name, "Name")
	f.MaxLen("Name", t.Name, 100)
	f.MaxLen("Description", t.Description, 500)
	// The limits first: "too long" is the message that says what to fix.
	f.MaxLen("TrustMarkType", t.TrustMarkType, MaxURL)
	f.MaxLen("LogoUri", t.LogoURI, MaxURL)
	f.MaxLen("Ref", t.Ref, MaxURL)
	if isNew && t.TrustMarkType == "" && strings.TrimSpace(t.Name) != "" {
		t.TrustMarkType = DefaultTrustMarkType(entityID, t.Name)
	}
	if t.TrustMarkType != "" {
		if msg := checkTrustMarkTypeURL(t.TrustMarkType, entityID); msg != "" {
			f.Add("TrustMarkType", msg)
		}
	}
	switch t.Basis {
	case TrustMarkBasisRole:
		f.Required("AuthorisationDomain", t.AuthorisationDomain, "The authorisation domain")
		f.Required("Role", t.Role, "The role")
		if t.CertificationType != "" {
			f.Add("CertificationType", "A type based on a role names no certification type.")
		}
	case TrustMarkBasisCertification:
		f.Required("CertificationType", t.CertificationType, "The certification type")
		if t.AuthorisationDomain != "" {
			f.Add("AuthorisationDomain", "A type based on a certification names no authorisation domain.")
		}
		if t.Role != "" {
			f.Add("Role", "A type based on a certification names no role.")
		}
	default:
		f.Add("Basis", "Basis must be Role or Certification.")
	}
	if t.Lifetime == "" {
		t.Lifetime = TrustMarkLifetimeDefault
	}
	if d, err := time.ParseDuration(t.Lifetime); err != nil {
		f.Add("Lifetime", `Give a duration like "24h", "90m" or "720h".`)
	} else if d < trustMarkLifetimeMin || d > trustMarkLifetimeMax {
		f.Add("Lifetime", `The lifetime is from "1m" to "720h".`)
	}
	if t.LogoURI != "" && !formats.ValidHTTPSURL(t.LogoURI) {
		f.Add("LogoUri", "The logo URI must be an https URL.")
	}
	if t.Ref != "" && !absoluteWebURL(t.Ref) {
		f.Add("Ref", "Ref must be an http or https URL.")
	}
	f.Status(&t.Status, isNew)
	return f
}

// checkTrustMarkTypeURL is the problem with a type URL, or "".
func checkTrustMarkTypeURL(raw, entityID string) string {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return "The trust mark type must be an https URL without fragment or credentials."
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		if e, err := url.Parse(entityID); err == nil && e.Scheme == "http" && formats.LoopbackHost(e.Hostname()) && formats.LoopbackHost(u.Hostname()) {
			return ""
		}
	}
	return "The trust mark type must be an https URL (http only on a loopback host while the entity ID is one)."
}

func absoluteWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}

// TrustMarkTypes are the use cases of trust mark types (Reference Data,
// docs/design.md §17). EntityID is the directory's federation entity ID,
// the default types' prefix.
type TrustMarkTypes struct {
	Store    TrustMarkStore
	EntityID string
	Now      func() time.Time
}

// List is every trust mark type.
func (s *TrustMarkTypes) List(ctx context.Context) ([]TrustMarkType, error) {
	return s.Store.ListTrustMarkTypes(ctx)
}

// Get is one trust mark type.
func (s *TrustMarkTypes) Get(ctx context.Context, id string) (TrustMarkType, error) {
	t, err := s.Store.GetTrustMarkType(ctx, id)
	return t, Named(err, "Trust mark type")
}

// Create adds a type; an Id the client chose must be a lower-case UUID.
// refused are problems found reading the input.
func (s *TrustMarkTypes) Create(ctx context.Context, a Actor, t TrustMarkType, refused Fields) (TrustMarkType, error) {
	problems := t.Validate(true, s.EntityID).Merge(refused)
	if t.ID != "" && !formats.ValidUUID(t.ID) {
		problems.Add("Id", "Id must be a UUID in lower case, like 0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a.")
	}
	saved, err := s.Store.CreateTrustMarkType(ctx, a, t, problems)
	return saved, Named(err, "Trust mark type")
}

// Update replaces the type id when check passes on the stored one. Its
// Id and its TrustMarkType (the URL its marks name) cannot change; left
// out, the URL and the Status are kept.
func (s *TrustMarkTypes) Update(ctx context.Context, a Actor, id string, t TrustMarkType, refused Fields, check Check[TrustMarkType]) (TrustMarkType, error) {
	problems := Fields{}
	if t.ID != "" && t.ID != id {
		problems.Add("Id", "Id cannot change.")
	}
	t.ID = id
	problems.Merge(t.Validate(false, s.EntityID)).Merge(refused)
	saved, err := s.Store.UpdateTrustMarkType(ctx, a, t, problems, check)
	return saved, Named(err, "Trust mark type")
}

// Entitled lists the subjects entitled now to the type id.
func (s *TrustMarkTypes) Entitled(ctx context.Context, id string) (TrustMarkType, []Entitlement, error) {
	t, err := s.Get(ctx, id)
	if err != nil {
		return t, nil, err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	list, err := s.Store.Entitled(ctx, t, "", now())
	return t, list, err
}
