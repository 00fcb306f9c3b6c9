package directory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/trustframe/trustframe/directory"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// mustOpen is a store on a new database (SQLite, or PostgreSQL when the
// tests run there), closed when the test ends.
func mustOpen(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), storetest.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// mustOrg is the id of a new Active organisation named name.
func mustOrg(t *testing.T, db *store.DB, name string) string {
	t.Helper()
	o, err := db.CreateOrganisation(context.Background(), store.Audit{Actor: "admin@example.com"},
		store.Organisation{OrganisationName: name, RegistrationNumber: "1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.OrganisationID
}

// fieldOf is the field a refusal names: the one field of a CodeInvalid
// Error or of a FieldError ("" for anything else, or several fields).
func fieldOf(err error) string {
	var e *directory.Error
	var fe *directory.FieldError
	switch {
	case errors.As(err, &e) && e.Code == directory.CodeInvalid && len(e.Fields) == 1:
		for name := range e.Fields {
			return name
		}
	case errors.As(err, &fe):
		return fe.Field
	}
	return ""
}

// refusal is err as the layer's *Error, or an empty one when it is not,
// so that a test reads its code and fields without a nil check.
func refusal(err error) *directory.Error {
	var e *directory.Error
	if errors.As(err, &e) {
		return e
	}
	return &directory.Error{}
}
