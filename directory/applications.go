package directory

import (
	"context"
	"time"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/lifecycle"
)

// SoftwareStatement is an application registered by an organisation.
type SoftwareStatement struct {
	SoftwareStatementID string   `json:"SoftwareStatementId"`
	OrganisationID      string   `json:"OrganisationId"`
	ClientID            string   `json:"ClientId"`
	ClientName          string   `json:"ClientName"`
	Description         string   `json:"Description" text:"lines"`
	Version             string   `json:"Version"`
	RedirectURI         []string `json:"RedirectUri"`
	Roles               []string `json:"Roles"`
	JwksURI             string   `json:"JwksUri,omitempty"`
	// FederationEntityID is the application's OpenID Federation entity
	// (docs/design.md §13): optional, an https URL unique in the directory.
	FederationEntityID                    string    `json:"FederationEntityId,omitempty"`
	Status                                string    `json:"Status"`
	StatusReason                          string    `json:"StatusReason,omitempty" text:"lines"` // write-only: why the status changes, kept in the audit record
	BackchannelTokenDeliveryMode          string    `json:"backchannel_token_delivery_mode,omitempty"`
	BackchannelClientNotificationEndpoint string    `json:"backchannel_client_notification_endpoint,omitempty"`
	SoftwareOriginsURI                    []string  `json:"software_origins_uri"`
	Flags                                 []string  `json:"Flags"`
	CreatedOn                             time.Time `json:"CreatedOn"`
	UpdatedOn                             time.Time `json:"UpdatedOn"`
}

// Validate is what an application must be without the database. It
// defaults Version to "1", a new application's Status to Active (and puts
// a status in its canonical word), and makes Flags a list. allowPrivate
// lets a federation entity ID be plain http on a loopback host. Roles,
// the federation entity ID's uniqueness and flags are checked by the
// store.
func (s *SoftwareStatement) Validate(isNew bool, vocab lifecycle.Vocabulary, allowPrivate bool) Fields {
	f := Fields{}
	f.Required("ClientName", s.ClientName, "Client name")
	f.MaxLen("Description", s.Description, MaxDescription)
	if s.Version == "" {
		s.Version = "1"
	}
	for _, u := range s.RedirectURI {
		if !formats.ValidRedirectURI(u) {
			f.Add("RedirectUri", "Redirect URIs must be https URLs (http only on loopback), without fragment: "+u)
			break
		}
	}
	// Each once, as origins and flags: the SSA lists them as they are.
	if u, twice := listedTwice(s.RedirectURI); twice {
		f.Add("RedirectUri", "The redirect URI "+u+" is listed twice.")
	}
	if r, twice := listedTwice(s.Roles); twice {
		f.Add("Roles", "The role "+r+" is listed twice.")
	}
	if s.JwksURI != "" && !formats.ValidHTTPSURL(s.JwksURI) {
		f.Add("JwksUri", "The JWKS URI must be an https URL.")
	}
	if s.FederationEntityID != "" {
		if msg := formats.CheckEntityID(s.FederationEntityID, allowPrivate); msg != "" {
			f.Add("FederationEntityId", msg)
		}
	}
	f.Lifecycle(&s.Status, lifecycle.Application, lifecycle.Active, isNew, vocab)
	mode, ep := s.BackchannelTokenDeliveryMode, s.BackchannelClientNotificationEndpoint
	switch mode {
	case "", "poll", "ping", "push":
	default:
		f.Add("backchannel_token_delivery_mode", "The delivery mode must be poll, ping or push.")
	}
	if ep != "" && !formats.ValidHTTPSURL(ep) {
		f.Add("backchannel_client_notification_endpoint", "The notification endpoint must be an https URL.")
	} else if ep == "" && (mode == "ping" || mode == "push") {
		f.Add("backchannel_client_notification_endpoint", "A notification endpoint is required for the "+mode+" delivery mode (CIBA).")
	}
	seen := map[string]bool{}
	for _, o := range s.SoftwareOriginsURI {
		if !formats.ValidWebAuthnOrigin(o) {
			f.Add("software_origins_uri", "Each origin must be https://host[:port] with no path: "+o)
			break
		}
		if seen[o] {
			f.Add("software_origins_uri", "The origin "+o+" is listed twice.")
			break
		}
		seen[o] = true
	}
	if s.Flags == nil {
		s.Flags = []string{}
	}
	// Limits win: "too long" is the message that says what to fix.
	limits := Fields{}
	limits.MaxLen("ClientName", s.ClientName, MaxName)
	limits.MaxLen("Version", s.Version, MaxVersion)
	limits.MaxLen("JwksUri", s.JwksURI, MaxURL)
	limits.MaxLen("FederationEntityId", s.FederationEntityID, MaxURL)
	limits.MaxLen("backchannel_client_notification_endpoint", ep, MaxURL)
	limits.List("RedirectUri", s.RedirectURI, MaxRedirects, MaxURL)
	limits.List("Roles", s.Roles, MaxRoles, MaxRole)
	limits.List("software_origins_uri", s.SoftwareOriginsURI, MaxOrigins, MaxOrigin)
	limits.List("Flags", s.Flags, MaxFlags, 0)
	return f.Merge(limits)
}

// listedTwice is the first entry of list that stands in it twice.
func listedTwice(list []string) (string, bool) {
	seen := map[string]bool{}
	for _, v := range list {
		if seen[v] {
			return v, true
		}
		seen[v] = true
	}
	return "", false
}

// ApplicationStore is what the application use cases need of the
// database. A write gets the problems already found with the fields, adds
// what only the database can judge (roles the organisation holds, a
// federation entity ID taken, flags), and writes nothing while any
// remains; an update runs check on the stored application once the
// fields pass.
type ApplicationStore interface {
	GetSoftwareStatement(ctx context.Context, orgID, id string) (SoftwareStatement, error)
	CreateSoftwareStatement(ctx context.Context, a Actor, s SoftwareStatement, problems Fields) (SoftwareStatement, error)
	UpdateSoftwareStatement(ctx context.Context, a Actor, s SoftwareStatement, problems Fields, check Check[SoftwareStatement]) (SoftwareStatement, error)
	ListSoftwareStatements(ctx context.Context, orgID string) ([]SoftwareStatement, error)
	ActiveClaimRoles(ctx context.Context, orgID string) ([]string, error)
	ListFlags(ctx context.Context, typ string) ([]Flag, error)
}

// Applications are the use cases of an organisation's applications
// (software statements).
type Applications struct {
	Store ApplicationStore
	Vocab lifecycle.Vocabulary
	// AllowPrivateURLs lets a federation entity ID be plain http on a
	// loopback host, as issuer validation allows.
	AllowPrivateURLs bool
	// Control shows that an Organisation Administrator's organisation
	// controls the federation entity ID they give (entitycontrol.go).
	Control EntityControl
}

// Get is one application of an organisation.
func (s *Applications) Get(ctx context.Context, orgID, id string) (SoftwareStatement, error) {
	app, err := s.Store.GetSoftwareStatement(ctx, orgID, id)
	return app, Named(err, "Application")
}

// List is every application of an organisation.
func (s *Applications) List(ctx context.Context, orgID string) ([]SoftwareStatement, error) {
	return s.Store.ListSoftwareStatements(ctx, orgID)
}

// ApplicationsTab is what an organisation's Applications tab shows: its
// applications and the flags they may carry (for their names).
type ApplicationsTab struct {
	Apps  []SoftwareStatement
	Flags []Flag
}

// Tab reads the Applications tab of organisation orgID.
func (s *Applications) Tab(ctx context.Context, orgID string) (ApplicationsTab, error) {
	var t ApplicationsTab
	var err error
	if t.Apps, err = s.Store.ListSoftwareStatements(ctx, orgID); err != nil {
		return t, err
	}
	t.Flags, err = s.Store.ListFlags(ctx, "Software_Statement")
	return t, err
}

// ApplicationChoices are what an application's page and form offer of
// organisation orgID: the flags of applications and the roles it holds
// (Active claims), which its applications may take.
type ApplicationChoices struct {
	Flags     []Flag
	HeldRoles []string
}

// Choices reads the choices of an application of organisation orgID.
func (s *Applications) Choices(ctx context.Context, orgID string) (ApplicationChoices, error) {
	var c ApplicationChoices
	var err error
	if c.Flags, err = s.Store.ListFlags(ctx, "Software_Statement"); err != nil {
		return c, err
	}
	c.HeldRoles, err = s.Store.ActiveClaimRoles(ctx, orgID)
	return c, err
}

// Create adds app to its organisation; its ids are the server's. Refused,
// it returns app as read (Version 1 and Active when it gave none), for
// the form to show again.
func (s *Applications) Create(ctx context.Context, a Actor, app SoftwareStatement, refused Fields) (SoftwareStatement, error) {
	app.SoftwareStatementID, app.ClientID = "", ""
	if err := limitedCreate(a, app.OrganisationID, app.Flags); err != nil {
		return app, Named(err, "Organisation")
	}
	problems := app.Validate(true, s.Vocab, s.AllowPrivateURLs).Merge(refused)
	if err := limitedEntityID(ctx, a, s.Control, app.OrganisationID, "", app.FederationEntityID, problems); err != nil {
		return app, err
	}
	saved, err := s.Store.CreateSoftwareStatement(ctx, a, app, problems)
	if err != nil {
		return app, Named(err, "Application")
	}
	return saved, nil
}

// Update replaces the application app.SoftwareStatementID when check
// passes on the stored one (If-Match) and so does the change of its
// status, made by a Super User or not (CheckStatusChange); StatusReason
// goes into the audit record. It returns the saved application and the
// status the stored one had; refused, app as read, for the form to show
// again.
func (s *Applications) Update(ctx context.Context, a Actor, app SoftwareStatement, refused Fields, superUser bool, check Check[SoftwareStatement]) (SoftwareStatement, string, error) {
	var from string
	check, err := limitedCheck(a, app.OrganisationID, app.Flags, func(cur SoftwareStatement) []string { return cur.Flags }, check)
	if err != nil {
		return app, from, Named(err, "Organisation")
	}
	problems := app.Validate(false, s.Vocab, s.AllowPrivateURLs).Merge(refused)
	check, err = s.entityIDCheck(ctx, a, app, problems, check)
	if err != nil {
		return app, from, err
	}
	saved, err := s.Store.UpdateSoftwareStatement(ctx, because(a, app.StatusReason), app, problems, statusCheck(s.Vocab, &from, app.Status, app.StatusReason, superUser, check, appStatus))
	if err != nil {
		return app, from, Named(err, "Application")
	}
	return saved, from, nil
}

// entityIDCheck refuses in problems a federation entity ID an
// Organisation Administrator changes without showing control of it
// (limitedEntityID), and adds to check that an ID kept unchanged is still
// the stored one when written.
func (s *Applications) entityIDCheck(ctx context.Context, a Actor, app SoftwareStatement, problems Fields, check Check[SoftwareStatement]) (Check[SoftwareStatement], error) {
	if !a.Limited() || app.FederationEntityID == "" {
		return check, nil
	}
	stored, err := s.Store.GetSoftwareStatement(ctx, app.OrganisationID, app.SoftwareStatementID)
	if err != nil {
		return check, Named(err, "Application")
	}
	if err := limitedEntityID(ctx, a, s.Control, app.OrganisationID, stored.FederationEntityID, app.FederationEntityID, problems); err != nil {
		return check, err
	}
	return keepsStored(check, stored.FederationEntityID, app.FederationEntityID, "federation entity ID", func(cur SoftwareStatement) string { return cur.FederationEntityID }), nil
}
