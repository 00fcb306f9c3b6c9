package directory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/trustframe/trustframe/clienttoken"
)

// Client is an application as the token endpoint and the API see it when
// it calls for itself (docs/design.md §20).
type Client struct {
	ClientID            string
	SoftwareStatementID string
	OrganisationID      string
	Status              string // the application's
	OrganisationStatus  string
}

// Active reports whether the application and its organisation are both
// Active: only then does it get tokens, and its tokens work.
func (c Client) Active() bool { return c.Status == "Active" && c.OrganisationStatus == "Active" }

// Actor is the application's name in the audit log: client:<ClientId>.
func (c Client) Actor() string { return clienttoken.ActorPrefix + c.ClientID }

// ClientTokenStore is what the token endpoint needs of the database.
type ClientTokenStore interface {
	ClientOf(ctx context.Context, clientID string) (Client, error)
	ClientKeys(ctx context.Context, orgID, appID string, now time.Time) ([]clienttoken.Key, error)
}

// AssertionLog remembers the client assertions used (ClientId and jti)
// until they expire: Add reports false for one already used, an error
// when it cannot tell now. One instance keeps them in memory; several on
// one database share its table (store.DB.UseClientAssertion).
type AssertionLog interface {
	Add(key string, exp time.Time) (bool, error)
}

// ClientTokens are the use cases of the directory's token endpoint: an
// application gets an access token for itself, and its token is checked
// at each API request.
type ClientTokens struct {
	Store    ClientTokenStore
	Used     AssertionLog
	Minter   *clienttoken.Minter
	Issuer   string // the base URL
	Audience string // the API audience
	Now      func() time.Time
}

// TokenEndpoint is the URL of the token endpoint.
func (s *ClientTokens) TokenEndpoint() string { return s.Issuer + "/oauth/token" }

// TokenRequest is a token request's parameters; JKT is the thumbprint of
// the DPoP proof's key when the request carried a valid one.
type TokenRequest struct {
	GrantType           string
	ClientAssertionType string
	ClientAssertion     string
	ClientID            string
	Scope               string
	JKT                 string
}

// IssuedToken is the answer to a granted token request.
type IssuedToken struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
}

// ErrReplayUnavailable: the jti of the assertion could not be recorded
// now (the database is busy); the client may try again.
var ErrReplayUnavailable = errors.New("directory: the client assertion cannot be checked against those already used just now")

// Grant authenticates the application by its client assertion and gives
// it an access token. Refusals are *clienttoken.Error.
func (s *ClientTokens) Grant(ctx context.Context, req TokenRequest) (IssuedToken, error) {
	scope, err := clienttoken.CheckGrant(req.GrantType, req.Scope)
	if err != nil {
		return IssuedToken{}, err
	}
	if req.ClientAssertionType != clienttoken.AssertionType {
		if req.ClientAssertionType == "" && req.ClientAssertion == "" {
			return IssuedToken{}, &clienttoken.Error{Code: clienttoken.InvalidClient, Description: "no client authentication: send client_assertion_type=" + clienttoken.AssertionType + " and a client_assertion signed by a key of the application"}
		}
		return IssuedToken{}, &clienttoken.Error{Code: clienttoken.InvalidClient, Description: "client_assertion_type must be " + clienttoken.AssertionType}
	}
	a, err := clienttoken.ParseAssertion(req.ClientAssertion)
	if err != nil {
		return IssuedToken{}, err
	}
	clientID, err := a.ClientID(req.ClientID)
	if err != nil {
		return IssuedToken{}, err
	}
	now := s.Now()
	if err := a.CheckClaims([]string{s.TokenEndpoint(), s.Issuer}, now); err != nil {
		return IssuedToken{}, err
	}
	c, err := s.Store.ClientOf(ctx, clientID)
	if errors.Is(err, ErrNotFound) {
		return IssuedToken{}, &clienttoken.Error{Code: clienttoken.InvalidClient, Description: fmt.Sprintf("there is no application with ClientId %q", clientID)}
	}
	if err != nil {
		return IssuedToken{}, err
	}
	if !c.Active() {
		return IssuedToken{}, &clienttoken.Error{Code: clienttoken.InvalidClient, Description: inactiveClient(c)}
	}
	keys, err := s.Store.ClientKeys(ctx, c.OrganisationID, c.SoftwareStatementID, now)
	if err != nil {
		return IssuedToken{}, err
	}
	if err := a.Verify(keys); err != nil {
		return IssuedToken{}, err
	}
	fresh, err := s.Used.Add(clientID+"\x1f"+a.JTI, a.Expiry.Add(clienttoken.Skew))
	if err != nil {
		return IssuedToken{}, fmt.Errorf("%w: %w", ErrReplayUnavailable, err)
	}
	if !fresh {
		return IssuedToken{}, &clienttoken.Error{Code: clienttoken.InvalidClient, Description: "this client assertion (its jti) was already used; sign a new one for each token request"}
	}
	claims := clienttoken.Claims{Issuer: s.Issuer, Subject: c.ClientID, Audience: s.Audience, ClientID: c.ClientID,
		OrgID: c.OrganisationID, SoftwareID: c.SoftwareStatementID, Scope: scope}
	tokenType := "Bearer"
	if req.JKT != "" {
		claims.Cnf, tokenType = &clienttoken.Cnf{JKT: req.JKT}, "DPoP"
	}
	raw, _, err := s.Minter.Mint(claims)
	if err != nil {
		return IssuedToken{}, err
	}
	return IssuedToken{AccessToken: raw, TokenType: tokenType, ExpiresIn: int(clienttoken.TokenLifetime / time.Second), Scope: scope}, nil
}

// ClientRefused is why an application's token no longer works.
type ClientRefused struct{ Reason string }

func (e *ClientRefused) Error() string { return "directory: " + e.Reason }

// Access is the application of a verified access token as it is now: its
// token works only while it and its organisation are Active (a
// *ClientRefused saying why otherwise).
func (s *ClientTokens) Access(ctx context.Context, claims clienttoken.Claims) (Client, error) {
	c, err := s.Store.ClientOf(ctx, claims.ClientID)
	if errors.Is(err, ErrNotFound) {
		return c, &ClientRefused{"the application with ClientId " + claims.ClientID + " no longer exists"}
	}
	if err != nil {
		return c, err
	}
	if c.SoftwareStatementID != claims.SoftwareID || c.OrganisationID != claims.OrgID {
		return c, &ClientRefused{"the token names another application than ClientId " + claims.ClientID}
	}
	if !c.Active() {
		return c, &ClientRefused{inactiveClient(c)}
	}
	return c, nil
}

func inactiveClient(c Client) string {
	if c.Status != "Active" {
		return fmt.Sprintf("the application %s is %s: only an Active application gets and uses tokens", c.ClientID, c.Status)
	}
	return fmt.Sprintf("the organisation of application %s is %s: only an Active organisation's applications get and use tokens", c.ClientID, c.OrganisationStatus)
}
