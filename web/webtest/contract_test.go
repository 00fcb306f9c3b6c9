package webtest

import (
	"net/http"
	"strings"
	"testing"
)

// TestContractCatchesMismatches: the checker is not a rubber stamp. Each
// body breaks the description in one way and must be reported.
func TestContractCatchesMismatches(t *testing.T) {
	c, err := LoadContract()
	if err != nil {
		t.Fatal(err)
	}
	org := `"OrganisationId":"0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a","OrganisationName":"A","LegalEntityName":"","RegistrationNumber":"1","CountryOfRegistration":"GB","AddressLine1":"","AddressLine2":"","City":"","Postcode":"","Flags":[],"CreatedOn":"2026-01-01T00:00:00Z","UpdatedOn":"2026-01-01T00:00:00Z"`
	json := http.Header{"Content-Type": {"application/json"}}
	problem := http.Header{"Content-Type": {"application/problem+json"}}
	get := func(path string) *http.Request { r, _ := http.NewRequest("GET", "http://x"+path, nil); return r }
	cases := []struct {
		name   string
		req    *http.Request
		status int
		h      http.Header
		body   string
		want   string // "" when it conforms
	}{
		{"conforms", get("/api/organisations/0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a"), 200, json, `{` + org + `,"Status":"Active"}`, ""},
		{"enum", get("/api/organisations/0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a"), 200, json, `{` + org + `,"Status":"Dormant"}`, "Status"},
		{"required", get("/api/organisations/0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a"), 200, json, `{"OrganisationName":"A"}`, "missing"},
		{"format uuid", get("/api/organisations/x"), 200, json, `{` + strings.Replace(org, "0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a", "nope", 1) + `,"Status":"Active"}`, "OrganisationId"},
		{"format email", get("/api/users/super/a@example.com"), 200, json, `{"Email":"not an address","Status":"Active","CreatedAt":"2026-01-01T00:00:00Z","CreatedBy":"x","UpdatedAt":"2026-01-01T00:00:00Z"}`, "Email"},
		{"empty date", get("/api/organisations/0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a/documents/d"), 200, json, `{"DocumentId":"d","OrganisationId":"0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a","DocumentType":"L","DocumentDescription":"","DocumentReferenceNumber":"","DocumentExpiryDate":"","CreatedOn":"2026-01-01T00:00:00Z","UpdatedOn":"2026-01-01T00:00:00Z"}`, "DocumentExpiryDate"},
		{"problem shape", get("/api/organisations/0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a"), 404, problem, `{"title":"Not Found"}`, "missing"},
		{"undescribed route", get("/api/nowhere"), 200, json, `{}`, "not in the OpenAPI description"},
		{"unrouted 404 is a problem", get("/api/nowhere"), 404, problem, `{"type":"https://trustframe.dev/problems/not-found","title":"Not Found","status":404,"detail":"x","errors":[{"code":"not_found","message":"x"}]}`, ""},
		{"undescribed status", get("/api/releases"), 201, json, `[]`, "status"},
		{"undescribed JSON outside /api", get("/somewhere"), 200, json, `{}`, "does not describe"},
	}
	// An accepted request is checked too: here the description wants
	// CountryOfRegistration as two capitals.
	post, _ := http.NewRequest("POST", "http://x/api/organisations", nil)
	post.Header.Set("Content-Type", "application/json")
	if got := c.CheckRequest(post, []byte(`{"OrganisationName":"A","RegistrationNumber":"1","CountryOfRegistration":"Britain"}`)); !strings.Contains(got, "CountryOfRegistration") {
		t.Errorf("a request outside the description: %q", got)
	}
	if got := c.CheckRequest(post, []byte(`{"OrganisationName":"A","RegistrationNumber":"1","CountryOfRegistration":"GB"}`)); got != "" {
		t.Errorf("a request inside the description: %q", got)
	}
	for _, tc := range cases {
		got := c.Check(tc.req, tc.status, tc.h, []byte(tc.body))
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want it to mention %q", tc.name, got, tc.want)
		}
	}
}
