package directory

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/trustframe/trustframe/formats"
)

// SuperUser is a platform Super User; Inactive is the only removal.
type SuperUser struct {
	Email     string    `json:"Email"`
	Status    string    `json:"Status"`
	CreatedAt time.Time `json:"CreatedAt"`
	CreatedBy string    `json:"CreatedBy"`
	UpdatedAt time.Time `json:"UpdatedAt"`
	Grant
}

// DataAdministrator is an invited administrator of the directory's data.
type DataAdministrator struct {
	Email       string     `json:"Email"`
	Status      string     `json:"Status"`
	InvitedBy   string     `json:"InvitedBy"`
	InvitedAt   time.Time  `json:"InvitedAt"`
	ActivatedAt *time.Time `json:"ActivatedAt,omitempty"`
	UpdatedAt   time.Time  `json:"UpdatedAt"`
	Grant
}

// Grant says how someone is an administrator (docs/design.md §16):
// GrantedBy is invitation, super_user or group; a group grant names the
// group and the identity provider whose tokens carry it.
type Grant struct {
	GrantedBy        string `json:"GrantedBy"`
	Group            string `json:"Group,omitempty"`
	IdentityProvider string `json:"IdentityProvider,omitempty"`
}

// Grants by which an administrator record was made.
const (
	GrantedByInvitation = "invitation"
	GrantedBySuperUser  = "super_user"
	GrantedByGroup      = "group"
)

// Invitation is the message that tells an invitee how to sign in.
type Invitation struct {
	To, Subject, Body string
}

// NormalizeEmail is the one case rule of e-mails, which are identifiers
// here: surrounding space trimmed, A-Z lower-cased, every other character
// kept as it is. strings.ToLower would fold non-ASCII letters into ASCII
// ones (U+212A KELVIN SIGN into k), so that another person's address
// would name an ASCII administrator (docs/decisions.md).
func NormalizeEmail(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, strings.TrimSpace(s))
}

// AdminEmailProblem says what is wrong with an administrator's e-mail as
// typed, "" when nothing: an ordinary address of printable ASCII only, so
// that no look-alike of another administrator is made (formats.ValidAdminEmail).
func AdminEmailProblem(s string) string {
	switch {
	case formats.ValidAdminEmail(s):
		return ""
	case formats.ValidEmail(s):
		return "An administrator's e-mail must be plain ASCII: no accented, fullwidth or other look-alike letters."
	}
	return "Enter a valid e-mail address, like name@example.com."
}

// ValidAdminStatus reports a status an administrator can be given:
// Active or Inactive (Invited is the invitation's own).
func ValidAdminStatus(s string) bool { return s == "Active" || s == "Inactive" }

// KeepOneSuperUser is the last-Super-User rule: a Super User set from cur
// to next must not take away the platform's last Active Super User.
// othersActive counts the other Active Super Users; the store calls the
// rule inside the write's transaction, so two Super Users deactivating
// each other cannot both pass it, and counts only when it is asked.
func KeepOneSuperUser(cur, next string, othersActive func() (int, error)) error {
	if next != "Inactive" || cur == next {
		return nil
	}
	n, err := othersActive()
	if err != nil {
		return err
	}
	if n == 0 {
		return &ConflictError{Message: "the platform would lose its last Active Super User"}
	}
	return nil
}

// Mailer sends a message now (SMTP).
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// AdministratorStore is what the administrator use cases need of the
// database. An existing e-mail is a ConflictError; an invitation and its
// message in the outbox are written in one transaction.
type AdministratorStore interface {
	ListSuperUsers(ctx context.Context) ([]SuperUser, error)
	GetSuperUser(ctx context.Context, email string) (SuperUser, error)
	CreateSuperUser(ctx context.Context, a Actor, email, status string) (SuperUser, error)
	ListDataAdministrators(ctx context.Context) ([]DataAdministrator, error)
	GetDataAdministrator(ctx context.Context, email string) (DataAdministrator, error)
	InviteDataAdministrator(ctx context.Context, a Actor, email string, msg Invitation) (DataAdministrator, int64, error)
	MarkDelivered(ctx context.Context, id int64) error
	MarkSendFailed(ctx context.Context, id int64, reason string) (time.Time, error)
	// The status writes of SetAdministratorStatus: check runs on the
	// stored administrator inside the write's transaction.
	SetSuperUserStatus(ctx context.Context, a Actor, email, status string, check func(SuperUser) error) (SuperUser, error)
	SetDataAdministratorStatus(ctx context.Context, a Actor, email, status string, check func(DataAdministrator) error) (DataAdministrator, error)
}

// Administrators are the use cases of Super Users and Data Administrators.
type Administrators struct {
	Store AdministratorStore
	// BaseURL is where an invitee signs in.
	BaseURL string
	// Mailer sends invitations; nil leaves them in the outbox and the log.
	Mailer Mailer
	// Log is the logger of a request (nil: slog.Default).
	Log func(ctx context.Context) *slog.Logger
}

// SuperUsers is every Super User, by e-mail.
func (s *Administrators) SuperUsers(ctx context.Context) ([]SuperUser, error) {
	return s.Store.ListSuperUsers(ctx)
}

// SuperUser is one Super User.
func (s *Administrators) SuperUser(ctx context.Context, email string) (SuperUser, error) {
	u, err := s.Store.GetSuperUser(ctx, email)
	return u, Named(err, "Super User")
}

// CreateSuperUser adds email as a Super User with status (Active or
// Inactive). refused are problems the caller found while reading the
// input; they are reported with the rest and nothing is written.
func (s *Administrators) CreateSuperUser(ctx context.Context, a Actor, email, status string, refused Fields) (SuperUser, error) {
	problems := Fields{}
	if msg := AdminEmailProblem(email); msg != "" {
		problems.Add("Email", msg)
	}
	if !ValidAdminStatus(status) {
		problems.Add("Status", "Status must be Active or Inactive.")
	}
	if err := problems.Merge(refused).Err(); err != nil {
		return SuperUser{}, err
	}
	u, err := s.Store.CreateSuperUser(ctx, a, email, status)
	return u, Named(err, "Super User")
}

// DataAdministrators is every Data Administrator, by e-mail.
func (s *Administrators) DataAdministrators(ctx context.Context) ([]DataAdministrator, error) {
	return s.Store.ListDataAdministrators(ctx)
}

// DataAdministrator is one Data Administrator.
func (s *Administrators) DataAdministrator(ctx context.Context, email string) (DataAdministrator, error) {
	u, err := s.Store.GetDataAdministrator(ctx, email)
	return u, Named(err, "Data Administrator")
}

// Invite records email as an Invited Data Administrator with the message
// that tells them how to sign in, then sends it. refused are as for
// CreateSuperUser. A message not sent stays in the outbox, to be tried
// again: the invitation stands.
func (s *Administrators) Invite(ctx context.Context, a Actor, email string, refused Fields) (DataAdministrator, error) {
	problems := Fields{}
	if msg := AdminEmailProblem(email); msg != "" {
		problems.Add("Email", msg)
	}
	if err := problems.Merge(refused).Err(); err != nil {
		return DataAdministrator{}, err
	}
	to := NormalizeEmail(email)
	msg := DataAdminInvitation(a.Actor, s.BaseURL, to)
	u, outboxID, err := s.Store.InviteDataAdministrator(ctx, a, email, msg)
	if err != nil {
		return u, Named(err, "Data Administrator")
	}
	s.deliver(ctx, outboxID, msg)
	return u, nil
}

// deliver sends the invitation; a failure leaves it in the outbox, to be
// tried again (store/outbox.go), and logs why.
func (s *Administrators) deliver(ctx context.Context, id int64, msg Invitation) {
	deliverInvitation(ctx, s.Log, s.Mailer, s.Store, id, msg)
}

// outbox marks what became of a message of the outbox.
type outbox interface {
	MarkDelivered(ctx context.Context, id int64) error
	MarkSendFailed(ctx context.Context, id int64, reason string) (time.Time, error)
}

// deliverInvitation sends message id of the outbox with mailer (nil: the
// log only); a failure leaves it in the outbox, to be tried again
// (store/outbox.go), and logs why.
func deliverInvitation(ctx context.Context, logOf func(context.Context) *slog.Logger, mailer Mailer, box outbox, id int64, msg Invitation) {
	log := slog.Default()
	if logOf != nil {
		log = logOf(ctx)
	}
	log.Info("invitation", "to", msg.To, "subject", msg.Subject, "body", msg.Body)
	if mailer == nil {
		return
	}
	if err := mailer.Send(ctx, msg.To, msg.Subject, msg.Body); err != nil {
		next, merr := box.MarkSendFailed(context.WithoutCancel(ctx), id, err.Error())
		if merr != nil {
			log.Warn("outbox", "err", merr)
		}
		log.Warn("invitation not sent; it stays in the outbox and is tried again", "to", msg.To, "next_try", next, "err", err)
		return
	}
	if err := box.MarkDelivered(ctx, id); err != nil {
		log.Warn("outbox", "err", err)
	}
}

// DataAdminInvitation is the message that invites email to be a Data
// Administrator: who invited them, what a Data Administrator may do and
// may not do (docs/design.md §3), and where to sign in.
func DataAdminInvitation(by, baseURL, email string) Invitation {
	var b strings.Builder
	fmt.Fprintf(&b, "Hello,\n\n%s invited you to be a Data Administrator of the trust framework.\n\n", by)
	b.WriteString("As a Data Administrator you may:\n")
	for _, l := range []string{
		"create, import and export organisations, and read and change every organisation: its record, status and flags, contacts, authorisation servers and applications, certificates, key material, regulatory documents, certifications, authority claims (roles) and SSAs",
		"invite and manage each organisation's own administrators (Organisation Administrators)",
		"read the whole audit log, the change feed and the list of what expires",
		"read the authorisation domains, roles, authorities and trust mark types through the API",
	} {
		b.WriteString("  - " + l + "\n")
	}
	b.WriteString("\nYou may not:\n")
	for _, l := range []string{
		"change Reference Data (types, flags, domains and roles, authorities, signing keys, policies, identity providers, webhooks) or the directory's Data Administrators and Super Users: Super Users do that",
		"bring an organisation, server or application back from its end state: only a Super User reactivates",
	} {
		b.WriteString("  - " + l + "\n")
	}
	fmt.Fprintf(&b, "\nEverything you change is recorded in the audit log with your e-mail address.\n\nSign in at %s/login with this e-mail address (%s). You become Active at your first sign-in.\n", baseURL, email)
	return Invitation{To: email, Subject: "You are invited to administer the trust framework", Body: b.String()}
}
