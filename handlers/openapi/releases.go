// Package openapi embeds the machine-readable description of each release
// of the interface that this service describes.
package openapi

import _ "embed"

//go:embed openapi-2.6.0.yaml
var v260 []byte

// Release is one release of the interface.
type Release struct {
	Version     string `json:"Version"`
	Latest      bool   `json:"Latest"`
	Description string `json:"Description"`
	OpenAPI     string `json:"OpenAPI,omitempty"`
}

// Releases lists the releases, newest first (docs/design.md §5).
var Releases = []Release{
	{Version: "2.6.0", Latest: true, Description: "DPoP token binding; signingAlg (PS256, ML-DSA-44/65/87) on SSA generation; key material API; certificate audit sub-tab; CIBA notification endpoint; document reference numbers and dates; wallet entity types; standalone trust anchor; Contact Type sortable. Removed: certificate description update.", OpenAPI: "/api/releases/2.6.0/openapi.yaml"},
	{Version: "2.4.0", Description: "Earlier release; no machine-readable description is served here."},
	{Version: "2.3.0", Description: "Earlier release."},
	{Version: "2.2.0", Description: "Earlier release."},
	{Version: "2.1.0", Description: "Earlier release."},
	{Version: "2.0.0", Description: "Earlier release."},
}

// Spec returns the OpenAPI document of a release, or nil.
func Spec(version string) []byte {
	if version == "2.6.0" {
		return v260
	}
	return nil
}
