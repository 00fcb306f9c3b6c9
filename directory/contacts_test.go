package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

func TestContactValidate(t *testing.T) {
	ok := directory.Contact{ContactType: "Technical", LastName: "Lovelace", EmailAddress: "ada@example.com"}
	for _, tc := range []struct {
		name  string
		edit  func(c *directory.Contact)
		field string // "" when the contact passes
	}{
		{"a complete contact passes", func(*directory.Contact) {}, ""},
		{"a type is required", func(c *directory.Contact) { c.ContactType = " " }, "ContactType"},
		{"a last name is required", func(c *directory.Contact) { c.LastName = "" }, "LastName"},
		{"an address that is not one", func(c *directory.Contact) { c.EmailAddress = "ada" }, "EmailAddress"},
		{"an address with a display name", func(c *directory.Contact) { c.EmailAddress = "Ada <ada@example.com>" }, "EmailAddress"},
		{"a domain without a dot", func(c *directory.Contact) { c.EmailAddress = "ada@localhost" }, "EmailAddress"},
		{"a domain ending with a dot", func(c *directory.Contact) { c.EmailAddress = "ada@example.com." }, "EmailAddress"},
		{"a department over 200 characters", func(c *directory.Contact) { c.Department = strings.Repeat("é", 201) }, "Department"},
		{"a phone number written as one", func(c *directory.Contact) { c.PhoneNumber = "+44 (20) 7946-0000" }, ""},
		{"a phone number with letters", func(c *directory.Contact) { c.PhoneNumber = "call me" }, "PhoneNumber"},
		{"a phone number too short", func(c *directory.Contact) { c.PhoneNumber = "12345" }, "PhoneNumber"},
		{"a phone number over 15 digits", func(c *directory.Contact) { c.PhoneNumber = "+1234567890123456" }, "PhoneNumber"},
		{"a + not first", func(c *directory.Contact) { c.PhoneNumber = "44+2079460000" }, "PhoneNumber"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			f := c.Validate()
			if tc.field == "" {
				if len(f) != 0 {
					t.Fatalf("refused: %v", f)
				}
				return
			}
			if len(f) != 1 || f[tc.field] == "" {
				t.Fatalf("want one message on %s, got %v", tc.field, f)
			}
		})
	}
}

func openContacts(t *testing.T) (*directory.Contacts, *store.DB, string) {
	t.Helper()
	db := mustOpen(t)
	orgID := mustOrg(t, db, "Contact Bank")
	return &directory.Contacts{Store: db}, db, orgID
}

// A contact with a missing last name and an unknown contact type is
// refused naming both fields at once, by one write that writes nothing:
// the type is checked inside the write's own transaction.
func TestContactCreateRefusesEveryFieldAtOnce(t *testing.T) {
	s, _, orgID := openContacts(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	_, err := s.Create(ctx, a, directory.Contact{OrganisationID: orgID, ContactType: "Astrologer", EmailAddress: "ada@example.com"}, nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Code != directory.CodeInvalid {
		t.Fatalf("want a validation refusal, got %v", err)
	}
	if e.Fields["LastName"] == "" || !strings.Contains(e.Fields["ContactType"], "Astrologer") {
		t.Fatalf("want LastName and ContactType named, got %v", e.Fields)
	}
	if list, n, err := s.List(ctx, orgID, "LastName", false, 0, 20); err != nil || n != 0 || len(list) != 0 {
		t.Fatalf("a refused contact was written: %d %v", n, err)
	}
}

// Problems found while reading the input (refused) stop the write too,
// and win over the rule's own message on the same field.
func TestContactCreateReportsRefusedInput(t *testing.T) {
	s, _, orgID := openContacts(t)
	_, err := s.Create(context.Background(), directory.Actor{Actor: "admin@example.com"},
		directory.Contact{OrganisationID: orgID, ContactType: "Technical", LastName: "", EmailAddress: "ada@example.com"},
		directory.Fields{"LastName": "This field contains a line break."})
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["LastName"] != "This field contains a line break." {
		t.Fatalf("want the input's refusal on LastName, got %v", err)
	}
}

func TestContactUpdateChecksFieldsBeforeThePrecondition(t *testing.T) {
	s, _, orgID := openContacts(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	c, err := s.Create(ctx, a, directory.Contact{OrganisationID: orgID, ContactType: "Technical", LastName: "Lovelace", EmailAddress: "ada@example.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stale := errors.New("stale")
	refuse := func(directory.Contact) error { return stale }

	bad := c
	bad.LastName = ""
	var e *directory.Error
	if _, err := s.Update(ctx, a, bad, nil, refuse); !errors.As(err, &e) || e.Code != directory.CodeInvalid {
		t.Fatalf("want the field refusal before the precondition, got %v", err)
	}
	good := c
	good.Department = "Payments"
	if _, err := s.Update(ctx, a, good, nil, refuse); !errors.Is(err, stale) {
		t.Fatalf("want the precondition's refusal, got %v", err)
	}
	saved, err := s.Update(ctx, a, good, nil, func(directory.Contact) error { return nil })
	if err != nil || saved.Department != "Payments" {
		t.Fatalf("update: %+v %v", saved, err)
	}
}

func TestContactMissingIsNamed(t *testing.T) {
	s, _, orgID := openContacts(t)
	ctx := context.Background()
	for name, err := range map[string]error{
		"get":    func() error { _, err := s.Get(ctx, orgID, "nope"); return err }(),
		"delete": s.Delete(ctx, directory.Actor{Actor: "admin@example.com"}, orgID, "nope", func(directory.Contact) error { return nil }),
	} {
		var e *directory.Error
		if !errors.As(err, &e) || e.Code != directory.CodeNotFound || e.Message != "Contact not found" {
			t.Errorf("%s: want Contact not found, got %v", name, err)
		}
	}
}
