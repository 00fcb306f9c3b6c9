package directory

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/ssa"
)

// The codes of an SSA that is not issued.
const (
	CodeApplicationNotActive  Code = "application_not_active"  // 409
	CodeOrganisationNotActive Code = "organisation_not_active" // 409
	CodeUnsupportedSigningAlg Code = "unsupported_signing_alg" // 400
	CodeBusy                  Code = "busy"                    // 503, try again
)

// ErrKeyRetired is an SSA's audit record refused because its signing key
// was retired after it was read as current (by another instance or the
// keys command): nothing was issued.
var ErrKeyRetired = errors.New("store: the signing key was retired")

// SSAStore is what issuing an SSA needs of the database.
type SSAStore interface {
	GetOrganisation(ctx context.Context, id string) (Organisation, error)
	SSASubject(ctx context.Context, orgID, appID string) (Organisation, SoftwareStatement, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (SoftwareStatement, error)
	// RecordSSA writes the audit record of an issued SSA, only while the
	// key kid is Active (ErrKeyRetired otherwise), and returns once it is
	// durable.
	RecordSSA(ctx context.Context, a Actor, orgID, appID, alg, kid, jti string) error
	ActiveClaimRoles(ctx context.Context, orgID string) ([]string, error)
}

// SSAKeys are the directory's SSA signing keys.
type SSAKeys interface {
	Signer(ctx context.Context, alg string) (*ssa.PrivateKey, ssa.JWK, error)
	Enabled() []string
	IsEnabled(alg string) bool
}

// SSAs issue software statement assertions (docs/design.md §6).
type SSAs struct {
	Store  SSAStore
	Keys   SSAKeys
	Issuer string // the SSA's iss
	// BaseURL makes the software_jwks_uri of an application without its
	// own JWKS URI: the directory's keystore of its organisation.
	BaseURL string
	// PKI is the directory's CA: while it is on, the application's
	// software_jwks_* claims are its keystores here (docs/design.md §18).
	PKI   CASource
	Vocab lifecycle.Vocabulary
	Now   func() time.Time
}

// Subject reads the organisation and application an SSA is asked for;
// a missing organisation is named before a missing application.
func (s *SSAs) Subject(ctx context.Context, orgID, appID string) (Organisation, SoftwareStatement, error) {
	o, app, err := s.Store.SSASubject(ctx, orgID, appID)
	if err == nil {
		return o, app, nil
	}
	if _, oerr := s.Store.GetOrganisation(ctx, orgID); oerr != nil {
		return o, app, Named(oerr, "Organisation")
	}
	return o, app, Named(err, "Application")
}

// Whole reads the whole organisation and application, for the page that
// shows an SSA (Subject reads what an SSA says of them).
func (s *SSAs) Whole(ctx context.Context, orgID, appID string) (Organisation, SoftwareStatement, error) {
	o, err := s.Store.GetOrganisation(ctx, orgID)
	if err != nil {
		return o, SoftwareStatement{}, Named(err, "Application")
	}
	app, err := s.Store.GetSoftwareStatement(ctx, orgID, appID)
	return o, app, Named(err, "Application")
}

// UnsupportedAlg is the refusal of a signingAlg that is unknown or not
// enabled here; it names the enabled ones.
func (s *SSAs) UnsupportedAlg(alg string) *Error {
	enabled := strings.Join(s.Keys.Enabled(), ", ")
	msg := "signingAlg " + alg + " is not enabled here; use one of " + enabled
	if alg == "" { // signingAlg= : say so, not "signingAlg  is"
		msg = "signingAlg is empty; use one of " + enabled
		if s.Keys.IsEnabled(ssa.PS256) {
			msg = "signingAlg is empty; leave it out for PS256 or use one of " + enabled
		}
	}
	return &Error{Code: CodeUnsupportedSigningAlg, Message: msg, Fields: Fields{"signingAlg": msg},
		Extra: map[string]any{"enabledAlgorithms": s.Keys.Enabled()}}
}

// SSARefused says why the directory signs no SSA for app now (nil: it
// does): only an Active application of an Active organisation gets one.
// Statuses are named in the deployment's words (vocab).
func SSARefused(vocab lifecycle.Vocabulary, o Organisation, app SoftwareStatement) *Error {
	if app.Status != lifecycle.Active {
		msg := "the application is " + vocab.Display(app.Status) + ": only an Active application gets an SSA"
		return &Error{Code: CodeApplicationNotActive, Message: msg, Fields: Fields{"Status": msg}}
	}
	if o.Status != lifecycle.Active {
		return &Error{Code: CodeOrganisationNotActive, Message: "the organisation is " + vocab.Display(o.Status) + ": only the applications of an Active organisation get an SSA"}
	}
	return nil
}

// Issue signs an SSA for app with the current key of alg, and records it
// in the audit log before handing it out. A key retired elsewhere after it
// was read as current signs nothing: the SSA is signed again with the key
// current now, up to three times.
func (s *SSAs) Issue(ctx context.Context, a Actor, o Organisation, app SoftwareStatement, alg string) (string, error) {
	if !s.Keys.IsEnabled(alg) {
		return "", s.UnsupportedAlg(alg)
	}
	if refused := SSARefused(s.Vocab, o, app); refused != nil {
		return "", refused
	}
	for attempt := 1; ; attempt++ {
		token, err := s.issueOnce(ctx, a, o, app, alg)
		if !errors.Is(err, ErrKeyRetired) {
			return token, err
		}
		if attempt == 3 {
			return "", &Error{Code: CodeBusy, Message: "The signing keys are being changed; no SSA was issued. Try again in a moment."}
		}
	}
}

// issueOnce signs with the current key of alg and records the SSA.
func (s *SSAs) issueOnce(ctx context.Context, a Actor, o Organisation, app SoftwareStatement, alg string) (string, error) {
	key, jwk, err := s.Keys.Signer(ctx, alg)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return "", s.UnsupportedAlg(alg)
		}
		return "", err
	}
	roles, err := s.rolesHeld(ctx, o, app)
	if err != nil {
		return "", err
	}
	jwks := app.JwksURI
	if jwks == "" {
		jwks = s.BaseURL + "/keystore/" + o.OrganisationID + "/application.jwks"
	}
	c := ssa.Claims{
		Iss: s.Issuer, SoftwareID: app.SoftwareStatementID, SoftwareClientID: app.ClientID, SoftwareClientName: app.ClientName,
		SoftwareClientDescription: app.Description, SoftwareVersion: app.Version,
		SoftwareRedirectURIs: app.RedirectURI, SoftwareRoles: roles, SoftwareJwksURI: jwks, SoftwareOriginURIs: app.SoftwareOriginsURI,
		SoftwareStatus: s.Vocab.Display(app.Status), OrgID: o.OrganisationID, OrgName: o.OrganisationName, OrgStatus: s.Vocab.Display(o.Status),
		BackchannelTokenDeliveryMode: app.BackchannelTokenDeliveryMode, BackchannelClientNotificationEndpoint: app.BackchannelClientNotificationEndpoint,
		Jti: ssa.NewJTI(),
	}
	if s.PKI.On(ctx) {
		u := AppKeystores(s.BaseURL, o.OrganisationID, app.SoftwareStatementID)
		c.SoftwareJwksURI, c.SoftwareJwksTransportURI, c.SoftwareJwksInactiveURI, c.SoftwareJwksTransportInactiveURI =
			u.Application, u.Transport, u.ApplicationInactive, u.TransportInactive
	}
	// The SSA is handed out only once its audit record is durable; the
	// record (which names the jti) is committed while the assertion is
	// signed, so a request waits for the slower of the two, not their sum.
	audited := make(chan error, 1)
	go func() {
		audited <- s.Store.RecordSSA(ctx, a, o.OrganisationID, app.SoftwareStatementID, alg, jwk.Kid, c.Jti)
	}()
	token, _, err := ssa.Issue(key, c, s.Now())
	if aerr := <-audited; aerr != nil {
		return "", aerr
	}
	return token, err
}

// rolesHeld are the application's roles that its organisation still holds
// by an Active authority claim: software_roles carries only those
// (docs/design.md §12).
func (s *SSAs) rolesHeld(ctx context.Context, o Organisation, app SoftwareStatement) ([]string, error) {
	roles := []string{}
	if len(app.Roles) == 0 {
		return roles, nil
	}
	held, err := s.Store.ActiveClaimRoles(ctx, o.OrganisationID)
	if err != nil {
		return nil, err
	}
	for _, r := range app.Roles {
		if slices.Contains(held, r) {
			roles = append(roles, r)
		}
	}
	return roles, nil
}

// CASource is the directory's certificate authority when --pki is on: nil
// (and no error) when it is off (docs/design.md §18).
type CASource func(ctx context.Context) (*pki.CA, error)

// On reports whether the CA is on.
func (src CASource) On(ctx context.Context) bool {
	if src == nil {
		return false
	}
	ca, err := src(ctx)
	return err == nil && ca != nil
}

// KeystoreURIs are the URLs of an application's four keystores under the
// base URL: its software_jwks_* claims while the CA is on.
type KeystoreURIs struct {
	Application, Transport, ApplicationInactive, TransportInactive string
}

// AppKeystores are the keystore URLs of appID of orgID under baseURL.
func AppKeystores(baseURL, orgID, appID string) KeystoreURIs {
	b := strings.TrimSuffix(baseURL, "/") + "/keystore/" + orgID + "/" + appID
	return KeystoreURIs{Application: b + "/application.jwks", Transport: b + "/transport.jwks",
		ApplicationInactive: b + "/inactive/application.jwks", TransportInactive: b + "/inactive/transport.jwks"}
}
