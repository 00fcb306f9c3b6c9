package directory

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/lifecycle"
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

// Validate is what an organisation must be without the database: a name
// and a registration number, an assigned country code, short fields, a
// lower-case UUID when a new one brings its id, a status of its kind
// (Pending when a new one gives none), said in the deployment's words
// (vocab). It puts the status in its canonical word and makes Flags a
// list. Flags are checked by the store.
func (o *Organisation) Validate(isNew bool, vocab lifecycle.Vocabulary) Fields {
	f := Fields{}
	f.Required("OrganisationName", o.OrganisationName, "Organisation name")
	f.MaxLen("OrganisationName", o.OrganisationName, MaxName)
	f.MaxLen("LegalEntityName", o.LegalEntityName, MaxName)
	f.Required("RegistrationNumber", o.RegistrationNumber, "Registration number")
	f.MaxLen("RegistrationNumber", o.RegistrationNumber, 100)
	if msg := CountryProblem(o.CountryOfRegistration); msg != "" {
		f.Add("CountryOfRegistration", msg)
	}
	for _, v := range []struct{ name, s string }{{"AddressLine1", o.AddressLine1}, {"AddressLine2", o.AddressLine2}, {"City", o.City}, {"Postcode", o.Postcode}} {
		f.MaxLen(v.name, v.s, MaxName)
	}
	f.List("Flags", o.Flags, MaxFlags, 0)
	if isNew && o.OrganisationID != "" && !formats.ValidUUID(o.OrganisationID) {
		f.Add("OrganisationId", "OrganisationId must be a UUID in lower case, like 0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a.")
	}
	f.Lifecycle(&o.Status, lifecycle.Organisation, lifecycle.Pending, isNew, vocab)
	if o.Flags == nil {
		o.Flags = []string{}
	}
	return f
}

// OrganisationStore is what the organisation use cases need of the
// database. A write gets the problems already found with the fields, adds
// the flags' check, and writes nothing while any remains; an update runs
// check on the stored organisation once the fields pass.
type OrganisationStore interface {
	GetOrganisation(ctx context.Context, id string) (Organisation, error)
	CreateOrganisation(ctx context.Context, a Actor, o Organisation, problems Fields) (Organisation, error)
	UpdateOrganisation(ctx context.Context, a Actor, o Organisation, problems Fields, check Check[Organisation]) (Organisation, error)
	ListFlags(ctx context.Context, typ string) ([]Flag, error)
	OrganisationReadiness(ctx context.Context, orgID string, now time.Time) (Readiness, error)
	SameRegistration(ctx context.Context, number, country, exceptID string) ([]Organisation, error)
}

// Organisations are the use cases of organisations.
type Organisations struct {
	Store OrganisationStore
	Vocab lifecycle.Vocabulary
}

// Get is one organisation.
func (s *Organisations) Get(ctx context.Context, id string) (Organisation, error) {
	o, err := s.Store.GetOrganisation(ctx, id)
	return o, Named(err, "Organisation")
}

// Readiness counts what an organisation has in place, for the onboarding
// checklist of a Pending organisation.
type Readiness struct {
	Contacts           int
	DocumentsInDate    int // regulatory documents without an expiry date or not expired
	CertificatesInDate int // active certificates not expired
	Servers            int // authorisation servers that are not Withdrawn
	Applications       int // applications that are not Withdrawn
}

// OrganisationDetails is what an organisation's details tab shows beside
// the organisation: the names of its flags, and for a Pending one the
// onboarding checklist (nil otherwise).
type OrganisationDetails struct {
	Flags     []Flag
	Readiness *Readiness
}

// Details reads the details tab of o at now.
func (s *Organisations) Details(ctx context.Context, o Organisation, now time.Time) (OrganisationDetails, error) {
	var d OrganisationDetails
	var err error
	if d.Flags, err = s.Store.ListFlags(ctx, "Organisation"); err != nil || o.Status != lifecycle.Pending {
		return d, err
	}
	rd, err := s.Store.OrganisationReadiness(ctx, o.OrganisationID, now)
	if err != nil {
		return d, err
	}
	d.Readiness = &rd
	return d, nil
}

// SameRegistration is every other organisation with o's registration
// number and country: a new one is saved all the same, with a warning.
func (s *Organisations) SameRegistration(ctx context.Context, o Organisation) ([]Organisation, error) {
	return s.Store.SameRegistration(ctx, o.RegistrationNumber, o.CountryOfRegistration, o.OrganisationID)
}

// Create adds o; refused are problems found reading the input. Refused,
// it returns o as read (Pending when it gave no status), for the form to
// show again.
func (s *Organisations) Create(ctx context.Context, a Actor, o Organisation, refused Fields) (Organisation, error) {
	problems := o.Validate(true, s.Vocab).Merge(refused)
	saved, err := s.Store.CreateOrganisation(ctx, a, o, problems)
	if err != nil {
		return o, Named(err, "Organisation")
	}
	return saved, nil
}

// Update replaces the organisation o.OrganisationID when check passes on
// the stored one (If-Match) and so does the change of its status, made by
// a Super User or not (CheckStatusChange); StatusReason goes into the
// audit record. It returns the saved organisation and the status the
// stored one had; refused, o as read (its status in its canonical word),
// for the form to show again.
func (s *Organisations) Update(ctx context.Context, a Actor, o Organisation, refused Fields, superUser bool, check Check[Organisation]) (Organisation, string, error) {
	var from string
	problems := o.Validate(false, s.Vocab).Merge(refused)
	saved, err := s.Store.UpdateOrganisation(ctx, because(a, o.StatusReason), o, problems, statusCheck(s.Vocab, &from, o.Status, o.StatusReason, superUser, check, orgStatus))
	if err != nil {
		return o, from, Named(err, "Organisation")
	}
	return saved, from, nil
}

// CountryProblem is what is wrong with a country code, "" when it is an
// assigned ISO 3166-1 alpha-2 code in capitals: the one rule of
// organisations and authorities.
func CountryProblem(c string) string {
	if formats.ValidCountry(c) {
		return ""
	}
	msg := "Use an assigned two-letter ISO 3166-1 code in capitals, like GB or BR."
	if strings.EqualFold(c, "UK") {
		msg += " The United Kingdom is GB."
	}
	return msg
}
