package directory

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
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
	GetOrganisation(ctx context.Context, id string) (Organisation, error)
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

// OrgAdministrators are the use cases of an organisation's administrators
// (docs/design.md §19): Data Administrators and Super Users manage them,
// and so do the organisation's own administrators, but not themselves.
type OrgAdministrators struct {
	Store OrgAdminStore
	// BaseURL is where an invitee signs in.
	BaseURL string
	// Mailer sends invitations; nil leaves them in the outbox and the log.
	Mailer Mailer
	// Log is the logger of a request (nil: slog.Default).
	Log func(ctx context.Context) *slog.Logger
}

const orgAdminWhat = "Organisation Administrator"

// organisation is orgID as a's to act on: an organisation that does not
// exist, or that a (an Organisation Administrator) does not administer,
// is not found (its existence is not revealed).
func (s *OrgAdministrators) organisation(ctx context.Context, a Actor, orgID string) (Organisation, error) {
	if !a.May(orgID) {
		return Organisation{}, NotFound("Organisation")
	}
	o, err := s.Store.GetOrganisation(ctx, orgID)
	return o, Named(err, "Organisation")
}

// List is the administrators of organisation orgID, by e-mail.
func (s *OrgAdministrators) List(ctx context.Context, a Actor, orgID string) ([]OrganisationAdministrator, error) {
	if _, err := s.organisation(ctx, a, orgID); err != nil {
		return nil, err
	}
	return s.Store.ListOrganisationAdministrators(ctx, orgID)
}

// Get is one administrator of organisation orgID.
func (s *OrgAdministrators) Get(ctx context.Context, a Actor, orgID, email string) (OrganisationAdministrator, error) {
	if _, err := s.organisation(ctx, a, orgID); err != nil {
		return OrganisationAdministrator{}, err
	}
	u, err := s.Store.GetOrganisationAdministrator(ctx, orgID, email)
	return u, Named(err, orgAdminWhat)
}

// Invite records email as an Invited administrator of organisation orgID
// with the message that tells them what they may do and how to sign in,
// then sends it; a message not sent stays in the outbox, to be tried
// again. A repeat invitation of the same person is a conflict. refused are
// problems the caller found while reading the input.
func (s *OrgAdministrators) Invite(ctx context.Context, a Actor, orgID, email string, refused Fields) (OrganisationAdministrator, error) {
	o, err := s.organisation(ctx, a, orgID)
	if err != nil {
		return OrganisationAdministrator{}, err
	}
	problems := Fields{}
	if msg := AdminEmailProblem(email); msg != "" {
		problems.Add("Email", msg)
	}
	if err := problems.Merge(refused).Err(); err != nil {
		return OrganisationAdministrator{}, err
	}
	msg := OrgAdminInvitation(a.Actor, s.BaseURL, o, NormalizeEmail(email))
	u, outboxID, err := s.Store.InviteOrganisationAdministrator(ctx, a, orgID, email, msg)
	if err != nil {
		return u, Named(err, "Organisation")
	}
	deliverInvitation(ctx, s.Log, s.Mailer, s.Store, outboxID, msg)
	return u, nil
}

// SetStatus deactivates (Inactive) or reactivates (Active) an
// administrator of organisation orgID; no status keeps the stored one.
// check (If-Match) runs on the stored record inside the write. An
// Organisation Administrator may change the other administrators of their
// organisations, never themselves (403).
func (s *OrgAdministrators) SetStatus(ctx context.Context, a Actor, orgID, email, status string, refused Fields, check Check[OrganisationAdministrator]) (OrganisationAdministrator, error) {
	if _, err := s.organisation(ctx, a, orgID); err != nil {
		return OrganisationAdministrator{}, err
	}
	if a.Limited() && NormalizeEmail(email) == NormalizeEmail(a.Actor) {
		msg := "You cannot change your own status as an administrator of this organisation; another of its administrators or a Data Administrator can."
		return OrganisationAdministrator{}, &Error{Code: CodeForbidden, Message: msg}
	}
	set := func(ctx context.Context, a Actor, email, status string, check func(OrganisationAdministrator) error) (OrganisationAdministrator, error) {
		return s.Store.SetOrganisationAdministratorStatus(ctx, a, orgID, email, status, check)
	}
	return SetAdministratorStatus(ctx, set, orgAdminWhat, a, email, status, refused, check)
}

// OrgAdminInvitation is the message that invites email to administer
// organisation o: who invited them, exactly what an Organisation
// Administrator may do and may not do (docs/design.md §19), and where to
// sign in.
func OrgAdminInvitation(by, baseURL string, o Organisation, email string) Invitation {
	name := o.OrganisationName
	var b strings.Builder
	fmt.Fprintf(&b, "Hello,\n\n%s invited you to be an Organisation Administrator of %s (organisation %s) in the trust framework.\n\n", by, name, o.OrganisationID)
	fmt.Fprintf(&b, "As an administrator of %s you may:\n", name)
	for _, l := range []string{
		"read everything the directory holds about " + name,
		"add, change and remove its contacts",
		"register and change its authorisation servers and applications, and set them Active or Inactive (an application also Suspended; one that has been withdrawn stays withdrawn)",
		"upload its certificates, have certificates issued from a certificate signing request, and revoke them",
		"add and change its key material and attachments",
		"obtain software statement assertions (SSAs) for its applications",
		"invite other administrators of " + name + ", and deactivate or reactivate them",
	} {
		b.WriteString("  - " + l + "\n")
	}
	b.WriteString("\nYou may not:\n")
	for _, l := range []string{
		"change the organisation's own record, its regulatory documents, certifications, authority claims (roles) or flags: the directory's Data Administrators do that",
		"see or change any other organisation",
		"change your own status as an administrator",
		"use Reference Data, the directory's whole audit log, the change feed or webhooks",
	} {
		b.WriteString("  - " + l + "\n")
	}
	fmt.Fprintf(&b, "\nEverything you change is recorded in the audit log with your e-mail address.\n\nSign in at %s/login with this e-mail address (%s). You become Active at your first sign-in.\n", baseURL, email)
	return Invitation{To: email, Subject: "You are invited to administer " + name + " in the trust framework", Body: b.String()}
}
