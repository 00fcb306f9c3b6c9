package directory

import (
	"encoding/json"
	"time"
)

// RoleMetadataPolicy is a metadata policy for one role and entity type.
type RoleMetadataPolicy struct {
	PolicyID string `json:"PolicyId"`
	// AuthorisationDomain is empty on policies saved before domains
	// existed; they keep working and are flagged until edited.
	AuthorisationDomain string          `json:"AuthorisationDomain"`
	Role                string          `json:"Role"`
	EntityType          string          `json:"EntityType"`
	Policy              json.RawMessage `json:"Policy"`
	Description         string          `json:"Description"`
	Status              string          `json:"Status"`
	CreatedOn           time.Time       `json:"CreatedOn"`
	UpdatedOn           time.Time       `json:"UpdatedOn"`
}
