package directory

import (
	"strconv"
	"time"
)

// Organisation is a participant of the trust framework.
type Organisation struct {
	OrganisationID        string    `json:"OrganisationId"`
	OrganisationName      string    `json:"OrganisationName"`
	LegalEntityName       string    `json:"LegalEntityName"`
	RegistrationNumber    string    `json:"RegistrationNumber"`
	CountryOfRegistration string    `json:"CountryOfRegistration"`
	AddressLine1          string    `json:"AddressLine1"`
	AddressLine2          string    `json:"AddressLine2"`
	City                  string    `json:"City"`
	Postcode              string    `json:"Postcode"`
	Status                string    `json:"Status"`
	StatusReason          string    `json:"StatusReason,omitempty" text:"lines"` // write-only: why the status changes, kept in the audit record
	Flags                 []string  `json:"Flags"`
	CreatedOn             time.Time `json:"CreatedOn"`
	UpdatedOn             time.Time `json:"UpdatedOn"`
}

// AppendVersion appends every field of o to b, each one delimited (its
// length first), so that organisations that differ in any field append
// different bytes. The ETag of the API's hottest read is a hash of these
// rather than of a JSON encoding made only for the hash
// (TestOrganisationVersionCoversEveryField fails when a field is added
// here and not there).
func (o Organisation) AppendVersion(b []byte) []byte {
	for _, s := range [...]string{o.OrganisationID, o.OrganisationName, o.LegalEntityName, o.RegistrationNumber,
		o.CountryOfRegistration, o.AddressLine1, o.AddressLine2, o.City, o.Postcode, o.Status, o.StatusReason} {
		b = appendField(b, s)
	}
	b = append(strconv.AppendInt(b, int64(len(o.Flags)), 10), ':')
	for _, f := range o.Flags {
		b = appendField(b, f)
	}
	b = append(o.CreatedOn.AppendFormat(append(b, '|'), time.RFC3339Nano), '|')
	return o.UpdatedOn.AppendFormat(b, time.RFC3339Nano)
}

func appendField(b []byte, s string) []byte {
	b = append(strconv.AppendInt(b, int64(len(s)), 10), ':')
	return append(b, s...)
}
