package directory

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/trustframe/trustframe/orgkeys"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/issuer"
	"github.com/trustframe/trustframe/lifecycle"
)

// AuthorisationServer is an organisation's OpenID Provider.
type AuthorisationServer struct {
	AuthorisationServerID   string `json:"AuthorisationServerId"`
	OrganisationID          string `json:"OrganisationId"`
	CustomerFriendlyName    string `json:"CustomerFriendlyName"`
	Description             string `json:"Description" text:"lines"`
	Issuer                  string `json:"Issuer"`
	OpenIDDiscoveryDocument string `json:"OpenIDDiscoveryDocument,omitempty"`
	// FederationEntityID: see SoftwareStatement.FederationEntityID.
	FederationEntityID string    `json:"FederationEntityId,omitempty"`
	Status             string    `json:"Status"`
	StatusReason       string    `json:"StatusReason,omitempty" text:"lines"` // write-only: why the status changes, kept in the audit record
	Flags              []string  `json:"Flags"`
	CreatedOn          time.Time `json:"CreatedOn"`
	UpdatedOn          time.Time `json:"UpdatedOn"`
}

// FieldInvalidIssuer is the code of a problem with a server's issuer
// (unreachable, not JSON, taken, another issuer inside): each is its own
// entry on Issuer.
const FieldInvalidIssuer = "invalid_issuer"

// Validate is what a server must be without the network or the database:
// a name, short fields, a federation entity ID that is one, a status of
// its kind (Active when a new one gives none, put in its canonical word);
// Flags becomes a list. allowPrivate lets a federation entity ID be plain
// http on a loopback host.
func (s *AuthorisationServer) Validate(isNew bool, vocab lifecycle.Vocabulary, allowPrivate bool) Fields {
	f := Fields{}
	f.Required("CustomerFriendlyName", s.CustomerFriendlyName, "Name")
	f.MaxLen("CustomerFriendlyName", s.CustomerFriendlyName, MaxName)
	f.MaxLen("Description", s.Description, MaxDescription)
	f.MaxLen("Issuer", s.Issuer, MaxURL)
	f.MaxLen("OpenIDDiscoveryDocument", s.OpenIDDiscoveryDocument, MaxURL)
	f.List("Flags", s.Flags, MaxFlags, 0)
	// The limit first: "too long" is the message that says what to fix.
	f.MaxLen("FederationEntityId", s.FederationEntityID, MaxURL)
	if s.FederationEntityID != "" {
		if msg := formats.CheckEntityID(s.FederationEntityID, allowPrivate); msg != "" {
			f.Add("FederationEntityId", msg)
		}
	}
	f.Lifecycle(&s.Status, lifecycle.AuthorisationServer, lifecycle.Active, isNew, vocab)
	if s.Flags == nil {
		s.Flags = []string{}
	}
	return f
}

// IssuerChecker validates an issuer against its discovery document: the
// problems, each a sentence, none when it is good.
type IssuerChecker interface {
	Check(ctx context.Context, issuer, discovery string) []string
	// PublishedKeys are the keys at the jwks_uri of the issuer's
	// discovery document, or the problems reading them.
	PublishedKeys(ctx context.Context, issuer, discovery string) ([]json.RawMessage, []string)
}

// ServerStore is what the server use cases need of the database. A write
// gets the problems already found, adds what only the database can judge
// (the issuer or federation entity ID taken, flags), and writes nothing
// while any remains; an update runs check once the fields pass.
type ServerStore interface {
	GetAuthorisationServer(ctx context.Context, orgID, id string) (AuthorisationServer, error)
	IssuerTaken(ctx context.Context, issuer, exceptID string) (string, error)
	CreateAuthorisationServer(ctx context.Context, a Actor, s AuthorisationServer, problems Fields) (AuthorisationServer, error)
	UpdateAuthorisationServer(ctx context.Context, a Actor, s AuthorisationServer, problems Fields, check Check[AuthorisationServer]) (AuthorisationServer, error)
	ListAuthorisationServers(ctx context.Context, orgID string) ([]AuthorisationServer, error)
	ListFlags(ctx context.Context, typ string) ([]Flag, error)
	// OrganisationKeys are the public keys of the organisation's keystore
	// (Active ones when active).
	OrganisationKeys(ctx context.Context, orgID string, active bool) ([]json.RawMessage, error)
}

// Servers are the use cases of an organisation's authorisation servers.
type Servers struct {
	Store   ServerStore
	Issuers IssuerChecker
	Vocab   lifecycle.Vocabulary
	// AllowPrivateURLs lets a federation entity ID be plain http on a
	// loopback host, as issuer validation allows.
	AllowPrivateURLs bool
	// Control shows that an Organisation Administrator's organisation
	// controls the federation entity ID they give (entitycontrol.go).
	Control EntityControl
}

// Get is one server of an organisation.
func (s *Servers) Get(ctx context.Context, orgID, id string) (AuthorisationServer, error) {
	srv, err := s.Store.GetAuthorisationServer(ctx, orgID, id)
	return srv, Named(err, "Authorisation server")
}

// List is every server of an organisation.
func (s *Servers) List(ctx context.Context, orgID string) ([]AuthorisationServer, error) {
	return s.Store.ListAuthorisationServers(ctx, orgID)
}

// ServersTab is what an organisation's Authorisation servers tab shows:
// its servers and the flags they may carry (for their names).
type ServersTab struct {
	Servers []AuthorisationServer
	Flags   []Flag
}

// Tab reads the Authorisation servers tab of organisation orgID.
func (s *Servers) Tab(ctx context.Context, orgID string) (ServersTab, error) {
	var t ServersTab
	var err error
	if t.Servers, err = s.Store.ListAuthorisationServers(ctx, orgID); err != nil {
		return t, err
	}
	t.Flags, err = s.Store.ListFlags(ctx, "Authorisation_Server")
	return t, err
}

// Create adds srv after checking its issuer; refused are problems found
// reading the input (the issuer is then not fetched). Refused, it returns
// srv as read (Active when it gave no status), for the form to show again.
func (s *Servers) Create(ctx context.Context, a Actor, srv AuthorisationServer, refused Fields) (AuthorisationServer, error) {
	srv.AuthorisationServerID = ""
	if err := limitedCreate(a, srv.OrganisationID, srv.Flags); err != nil {
		return srv, Named(err, "Organisation")
	}
	f := srv.Validate(true, s.Vocab, s.AllowPrivateURLs)
	read := srv
	issuerProblems, err := s.checkIssuer(ctx, a, &srv, f, refused)
	if err != nil {
		return read, err
	}
	if len(issuerProblems) == 0 {
		if issuerProblems, err = s.limitedIssuer(ctx, a, srv, "", f.Merge(refused)); err != nil {
			return read, err
		}
	}
	if len(issuerProblems) == 0 {
		if err := limitedEntityID(ctx, a, s.Control, srv.OrganisationID, "", srv.FederationEntityID, f.Merge(refused)); err != nil {
			return read, err
		}
	}
	saved, err := s.Store.CreateAuthorisationServer(ctx, a, srv, withIssuer(f.Merge(refused), issuerProblems))
	if err != nil {
		return read, issuerRefused(Named(err, "Authorisation server"), issuerProblems)
	}
	return saved, nil
}

// Update replaces the server srv.AuthorisationServerID, its issuer checked
// again, when check passes on the stored one (If-Match) and so does the
// change of its status, made by a Super User or not (CheckStatusChange);
// StatusReason goes into the audit record. It returns the saved server
// and the status the stored one had; refused, srv as read, for the form
// to show again.
func (s *Servers) Update(ctx context.Context, a Actor, srv AuthorisationServer, refused Fields, superUser bool, check Check[AuthorisationServer]) (AuthorisationServer, string, error) {
	stored, err := s.Get(ctx, srv.OrganisationID, srv.AuthorisationServerID)
	if err != nil {
		return srv, "", err
	}
	var from string
	check, err = limitedCheck(a, srv.OrganisationID, srv.Flags, func(cur AuthorisationServer) []string { return cur.Flags }, check)
	if err != nil {
		return srv, from, Named(err, "Organisation")
	}
	f := srv.Validate(false, s.Vocab, s.AllowPrivateURLs)
	read := srv
	issuerProblems, err := s.checkIssuer(ctx, a, &srv, f, refused)
	if err != nil {
		return read, "", err
	}
	if a.Limited() && len(issuerProblems) == 0 {
		if issuerProblems, err = s.limitedIssuer(ctx, a, srv, stored.Issuer, f.Merge(refused)); err != nil {
			return read, "", err
		}
		check = keepsStored(check, stored.Issuer, srv.Issuer, "issuer", func(cur AuthorisationServer) string { return cur.Issuer })
	}
	if a.Limited() && len(issuerProblems) == 0 {
		if err := limitedEntityID(ctx, a, s.Control, srv.OrganisationID, stored.FederationEntityID, srv.FederationEntityID, f.Merge(refused)); err != nil {
			return read, "", err
		}
		if srv.FederationEntityID != "" {
			check = keepsStored(check, stored.FederationEntityID, srv.FederationEntityID, "federation entity ID", func(cur AuthorisationServer) string { return cur.FederationEntityID })
		}
	}
	saved, err := s.Store.UpdateAuthorisationServer(ctx, because(a, srv.StatusReason), srv, withIssuer(f.Merge(refused), issuerProblems),
		statusCheck(s.Vocab, &from, srv.Status, srv.StatusReason, superUser, check, serverStatus))
	if err != nil {
		return read, from, issuerRefused(Named(err, "Authorisation server"), issuerProblems)
	}
	return saved, from, nil
}

// checkIssuer checks srv's issuer for a: required, not another server's, and
// its discovery document (fetched; the issuer's well-known one when none
// is given) naming it. An issuer or discovery URL over its limit, or input
// already refused, is not fetched. The defaulted discovery URL is kept
// only when nothing is refused, so a form shown again follows a corrected
// issuer.
func (s *Servers) checkIssuer(ctx context.Context, a Actor, srv *AuthorisationServer, f, refused Fields) ([]string, error) {
	if strings.TrimSpace(srv.Issuer) == "" {
		return []string{"Issuer is required."}, nil
	}
	if len(refused) > 0 || f["Issuer"] != "" || f["OpenIDDiscoveryDocument"] != "" {
		return nil, nil
	}
	disc := srv.OpenIDDiscoveryDocument
	if disc == "" {
		disc = issuer.WellKnown(srv.Issuer)
	}
	var problems []string
	other, err := s.Store.IssuerTaken(ctx, srv.Issuer, srv.AuthorisationServerID)
	if err != nil {
		return nil, err
	}
	switch {
	case other != "" && a.Limited():
		// Another organisation's, as a rule: say what they can do.
		problems = append(problems, "Another authorisation server already has this issuer, and an issuer belongs to one server: "+
			"check the URL, or, if the issuer is your organisation's, ask the directory's administrators.")
	case other != "":
		problems = append(problems, "Another authorisation server already has this issuer.")
	}
	problems = append(problems, s.Issuers.Check(ctx, srv.Issuer, disc)...)
	if len(f) == 0 && len(problems) == 0 {
		srv.OpenIDDiscoveryDocument = disc
	}
	return problems, nil
}

// limitedIssuer is the problem, if any, of an issuer an Organisation
// Administrator gives a server (new or changed from stored) without
// showing it is their organisation's (docs/design.md §19): issuers are
// unique across the directory, and a discovery document naming itself
// proves nothing about who runs it, so the keys at its jwks_uri must
// include one of the organisation's Active keys (key material or
// certificates). Checked only when nothing else is refused; the
// directory's administrators register any issuer, as before.
func (s *Servers) limitedIssuer(ctx context.Context, a Actor, srv AuthorisationServer, stored string, f Fields) ([]string, error) {
	if !a.Limited() || srv.Issuer == stored || len(f) > 0 {
		return nil, nil
	}
	published, problems := s.Issuers.PublishedKeys(ctx, srv.Issuer, srv.OpenIDDiscoveryDocument)
	if len(problems) > 0 {
		return problems, nil
	}
	own, err := s.Store.OrganisationKeys(ctx, srv.OrganisationID, true)
	if err != nil {
		return nil, Named(err, "Organisation")
	}
	ours := map[string]bool{}
	for _, k := range own {
		if tp, ok := orgkeys.Thumbprint(k); ok {
			ours[tp] = true
		}
	}
	for _, k := range published {
		if tp, ok := orgkeys.Thumbprint(k); ok && ours[tp] {
			return nil, nil
		}
	}
	return []string{"None of the keys this issuer publishes (its discovery document's jwks_uri) is one of your organisation's: " +
		"add one of its signing keys as key material or a certificate first, so that the directory knows the issuer is yours, " +
		"or ask the directory's administrators to register the server."}, nil
}

// withIssuer makes problems refuse the write when the issuer has any: its
// first stands on Issuer until issuerRefused lists them all.
func withIssuer(problems Fields, issuerProblems []string) Fields {
	if len(issuerProblems) > 0 {
		problems.Add("Issuer", issuerProblems[0])
	}
	return problems
}

// issuerRefused lists each issuer problem as its own entry on Issuer (code
// invalid_issuer), after the other fields.
func issuerRefused(err error, issuerProblems []string) error {
	var e *Error
	if len(issuerProblems) == 0 || !errors.As(err, &e) || e.Code != CodeInvalid {
		return err
	}
	delete(e.Fields, "Issuer")
	for _, p := range issuerProblems {
		e.More = append(e.More, Problem{Field: "Issuer", Code: FieldInvalidIssuer, Message: p})
	}
	return e
}
