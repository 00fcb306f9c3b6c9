package ssa

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Claims are the claims of a software statement assertion (docs/design.md §6).
type Claims struct {
	Iss                                   string   `json:"iss"`
	Iat                                   int64    `json:"iat"`
	Jti                                   string   `json:"jti"`
	SoftwareID                            string   `json:"software_id"`
	SoftwareClientID                      string   `json:"software_client_id"`
	SoftwareClientName                    string   `json:"software_client_name"`
	SoftwareClientDescription             string   `json:"software_client_description,omitempty"`
	SoftwareVersion                       string   `json:"software_version,omitempty"`
	SoftwareRedirectURIs                  []string `json:"software_redirect_uris"`
	SoftwareRoles                         []string `json:"software_roles"`
	SoftwareJwksURI                       string   `json:"software_jwks_uri"`
	SoftwareOriginURIs                    []string `json:"software_origin_uris"`
	SoftwareStatus                        string   `json:"software_status"`
	OrgID                                 string   `json:"org_id"`
	OrgName                               string   `json:"org_name"`
	OrgStatus                             string   `json:"org_status"`
	BackchannelTokenDeliveryMode          string   `json:"backchannel_token_delivery_mode,omitempty"`
	BackchannelClientNotificationEndpoint string   `json:"backchannel_client_notification_endpoint,omitempty"`

	// The application's keystores the directory's CA publishes, named
	// only while it is on (docs/design.md §18).
	SoftwareJwksTransportURI         string `json:"software_jwks_transport_uri,omitempty"`
	SoftwareJwksInactiveURI          string `json:"software_jwks_inactive_uri,omitempty"`
	SoftwareJwksTransportInactiveURI string `json:"software_jwks_transport_inactive_uri,omitempty"`
}

// NewJTI is a random token identifier.
func NewJTI() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Issue signs the claims as an SSA (typ JWT) with the key; iat is now in
// seconds and jti fresh unless set.
func Issue(k *PrivateKey, c Claims, now time.Time) (string, Claims, error) {
	c.Iat = now.Unix()
	if c.Jti == "" {
		c.Jti = NewJTI()
	}
	if c.SoftwareRedirectURIs == nil {
		c.SoftwareRedirectURIs = []string{}
	}
	if c.SoftwareRoles == nil {
		c.SoftwareRoles = []string{}
	}
	if c.SoftwareOriginURIs == nil {
		c.SoftwareOriginURIs = []string{}
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", c, err
	}
	tok, err := k.SignJWS(map[string]any{"typ": "JWT"}, payload, false)
	return tok, c, err
}
