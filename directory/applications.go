package directory

import "time"

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
