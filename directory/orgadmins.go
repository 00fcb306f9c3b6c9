package directory

import (
	"context"
	"slices"
	"time"
)

// RoleOrgAdmin is a person who administers one or more organisations and
// nothing else (docs/design.md §3, §19).
const RoleOrgAdmin Role = "OrganisationAdministrator"

// OrganisationAdministrator is a person made administrator of one
// organisation: Invited until their first sign-in, then Active; Inactive is
// the only removal.
type OrganisationAdministrator struct {
	OrganisationID string     `json:"OrganisationId"`
	Email          string     `json:"Email"`
	Status         string     `json:"Status"`
	InvitedBy      string     `json:"InvitedBy"`
	InvitedAt      time.Time  `json:"InvitedAt"`
	ActivatedAt    *time.Time `json:"ActivatedAt,omitempty"`
	UpdatedAt      time.Time  `json:"UpdatedAt"`
	Grant
}

// Access is what a signed-in e-mail may do now: its role and, for an
// Organisation Administrator, the organisations it administers (Active or
// Invited records).
type Access struct {
	Role Role
	Orgs []string
}

// OrgAdminStore keeps Organisation Administrators.
type OrgAdminStore interface {
	ListOrganisationAdministrators(ctx context.Context, orgID string) ([]OrganisationAdministrator, error)
	GetOrganisationAdministrator(ctx context.Context, orgID, email string) (OrganisationAdministrator, error)
	// InviteOrganisationAdministrator records email as Invited for orgID
	// and puts msg in the outbox, in one transaction; a record of the same
	// person for the organisation is a conflict (409).
	InviteOrganisationAdministrator(ctx context.Context, a Actor, orgID, email string, msg Invitation) (OrganisationAdministrator, int64, error)
	SetOrganisationAdministratorStatus(ctx context.Context, a Actor, orgID, email, status string, check func(OrganisationAdministrator) error) (OrganisationAdministrator, error)
	MarkSendFailed(ctx context.Context, id int64, reason string) (time.Time, error)
	MarkDelivered(ctx context.Context, id int64) error
}

// Limited reports whether the actor acts within some organisations only
// (an Organisation Administrator); nil Within is the whole directory.
func (a Actor) Limited() bool { return a.Within != nil }

// May reports whether the actor may act on organisation orgID at all.
func (a Actor) May(orgID string) bool {
	return a.Within == nil || slices.Contains(a.Within, orgID)
}

// Forbidden refusals of an Organisation Administrator's change.
func limitedRefusal(field, msg string) error {
	return &Error{Code: CodeForbidden, Message: msg, Fields: Fields{field: msg}}
}

// limitedCreate refuses what an Organisation Administrator may not put in a
// new server or application (docs/design.md §19): flags, or another
// organisation (not found: its existence is not revealed). Their status
// changes are anyone's but a Super User's: the end state is final
// (CheckStatusChange).
func limitedCreate(a Actor, orgID string, flags []string) error {
	if !a.Limited() {
		return nil
	}
	if !a.May(orgID) {
		return ErrNotFound
	}
	if len(flags) > 0 {
		return limitedRefusal("Flags", "Flags are set by the directory's administrators; an Organisation Administrator cannot set them.")
	}
	return nil
}

// limitedCheck adds to check, for an Organisation Administrator, that the
// change keeps the stored flags; it runs inside the write's transaction, on
// the stored record.
func limitedCheck[T any](a Actor, orgID string, flags []string, flagsOf func(T) []string, check Check[T]) (Check[T], error) {
	if !a.Limited() {
		return check, nil
	}
	if err := limitedCreate(a, orgID, nil); err != nil {
		return nil, err
	}
	return func(cur T) error {
		if check != nil {
			if err := check(cur); err != nil {
				return err
			}
		}
		have := slices.Clone(flagsOf(cur))
		want := slices.Clone(flags)
		slices.Sort(have)
		slices.Sort(want)
		if !slices.Equal(have, want) {
			return limitedRefusal("Flags", "Flags are set by the directory's administrators; an Organisation Administrator cannot change them.")
		}
		return nil
	}, nil
}
