package directory

import (
	"context"
	"time"

	"github.com/trustframe/trustframe/formats"
)

// Contact is a person to reach at an organisation.
type Contact struct {
	ContactID      string    `json:"ContactId"`
	OrganisationID string    `json:"OrganisationId"`
	ContactType    string    `json:"ContactType"`
	FirstName      string    `json:"FirstName"`
	LastName       string    `json:"LastName"`
	Department     string    `json:"Department"`
	EmailAddress   string    `json:"EmailAddress"`
	PhoneNumber    string    `json:"PhoneNumber"`
	CreatedOn      time.Time `json:"CreatedOn"`
	UpdatedOn      time.Time `json:"UpdatedOn"`
}

// Validate is what a contact must be without looking at the database: a
// type and a last name, a deliverable e-mail address, short fields. The
// contact type is checked against Reference Data by the store, in the
// same transaction as the write.
func (c *Contact) Validate() Fields {
	f := Fields{}
	f.Required("ContactType", c.ContactType, "Contact type")
	f.Required("LastName", c.LastName, "Last name")
	if !formats.ValidEmail(c.EmailAddress) {
		f.Add("EmailAddress", "Enter a valid e-mail address.")
	} else if !DottedDomain(c.EmailAddress) {
		f.Add("EmailAddress", "Enter an e-mail address whose domain has a dot and does not end with one (name@example.com).")
	}
	for _, v := range []struct{ name, s string }{{"FirstName", c.FirstName}, {"LastName", c.LastName}, {"Department", c.Department}, {"PhoneNumber", c.PhoneNumber}} {
		f.MaxLen(v.name, v.s, 200)
	}
	if c.PhoneNumber != "" && !phoneNumber(c.PhoneNumber) {
		f.Add("PhoneNumber", "Enter a phone number of 7 to 15 digits, with the country code for an international one, like +44 20 7946 0000 (spaces, dashes, dots and brackets are fine).")
	}
	return f
}

// phoneNumber reports whether s reads as a phone number: digits (7 to 15,
// the most E.164 allows) with spaces, dashes, dots and brackets between
// them, a + only first.
func phoneNumber(s string) bool {
	digits := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '+' && i == 0:
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return false
		}
	}
	return digits >= 7 && digits <= 15
}

// ContactStore is what the contact use cases need of the database. A
// write gets the problems already found with the contact's fields: it
// adds what only the database can judge (the contact type), and when any
// field needs attention it refuses them all at once and writes nothing.
type ContactStore interface {
	GetContact(ctx context.Context, orgID, id string) (Contact, error)
	ListContacts(ctx context.Context, orgID, sortBy string, desc bool, page, size int) ([]Contact, int, error)
	CreateContact(ctx context.Context, a Actor, c Contact, problems Fields) (Contact, error)
	UpdateContact(ctx context.Context, a Actor, c Contact, problems Fields, check Check[Contact]) (Contact, error)
	DeleteContact(ctx context.Context, a Actor, orgID, id string, check Check[Contact]) error
}

// Contacts are the use cases of an organisation's contacts.
type Contacts struct {
	Store ContactStore
}

// Get is one contact of an organisation.
func (s *Contacts) Get(ctx context.Context, orgID, id string) (Contact, error) {
	c, err := s.Store.GetContact(ctx, orgID, id)
	return c, Named(err, "Contact")
}

// List is one page of an organisation's contacts, sorted by sortBy.
func (s *Contacts) List(ctx context.Context, orgID, sortBy string, desc bool, page, size int) ([]Contact, int, error) {
	return s.Store.ListContacts(ctx, orgID, sortBy, desc, page, size)
}

// Create adds c to its organisation. refused are problems the caller found
// while reading the input (text that breaks the text rule): they are
// reported with the rest and nothing is written.
func (s *Contacts) Create(ctx context.Context, a Actor, c Contact, refused Fields) (Contact, error) {
	problems := c.Validate().Merge(refused)
	saved, err := s.Store.CreateContact(ctx, a, c, problems)
	return saved, Named(err, "Contact")
}

// Update replaces the contact c.ContactID of c.OrganisationID when check
// passes on the stored version.
func (s *Contacts) Update(ctx context.Context, a Actor, c Contact, refused Fields, check Check[Contact]) (Contact, error) {
	problems := c.Validate().Merge(refused)
	saved, err := s.Store.UpdateContact(ctx, a, c, problems, check)
	return saved, Named(err, "Contact")
}

// Delete removes a contact when check passes on the stored version.
func (s *Contacts) Delete(ctx context.Context, a Actor, orgID, id string, check Check[Contact]) error {
	return Named(s.Store.DeleteContact(ctx, a, orgID, id, check), "Contact")
}
