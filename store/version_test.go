package store_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
)

// The ETag of an organisation hashes AppendVersion: a change of any field,
// including one added to the struct later, must change what it appends, or
// a client's If-Match would accept a stale copy.
func TestOrganisationVersionCoversEveryField(t *testing.T) {
	at := time.Date(2026, 11, 23, 1, 2, 3, 4, time.UTC)
	base := store.Organisation{OrganisationID: "id", OrganisationName: "Name", LegalEntityName: "Legal", RegistrationNumber: "1",
		CountryOfRegistration: "GB", AddressLine1: "a1", AddressLine2: "a2", City: "c", Postcode: "p", Status: "Active",
		StatusReason: "r", Flags: []string{"f1"}, CreatedOn: at, UpdatedOn: at}
	want := base.AppendVersion(nil)
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		changed := base
		changed.Flags = append([]string(nil), base.Flags...)
		f := reflect.ValueOf(&changed).Elem().Field(i)
		switch v := f.Interface().(type) {
		case string:
			f.SetString(v + "x")
		case []string:
			f.Set(reflect.ValueOf(append(v, "f2")))
		case time.Time:
			f.Set(reflect.ValueOf(v.Add(time.Nanosecond)))
		default:
			t.Fatalf("field %s (%s): teach AppendVersion and this test about it", typ.Field(i).Name, f.Type())
		}
		if bytes.Equal(changed.AppendVersion(nil), want) {
			t.Errorf("a change of %s leaves AppendVersion as it was", typ.Field(i).Name)
		}
	}
	// Fields are delimited: moving text from one field to the next, or
	// between flags, is a change too.
	moved := base
	moved.OrganisationName, moved.LegalEntityName = "NameL", "egal"
	if bytes.Equal(moved.AppendVersion(nil), want) {
		t.Error("text moved between fields leaves AppendVersion as it was")
	}
	a, b := base, base
	a.Flags, b.Flags = []string{"ab", "c"}, []string{"a", "bc"}
	if bytes.Equal(a.AppendVersion(nil), b.AppendVersion(nil)) {
		t.Error("flags split differently append the same")
	}
	// The number of flags is delimited from the first flag's length: one
	// flag of 150 bytes must not read as eleven flags, the first of 50.
	t50, x8 := strings.Repeat("t", 50), strings.Repeat("x", 8)
	a.Flags = []string{t50 + strings.Repeat("8:"+x8, 10)}
	b.Flags = []string{t50}
	for range 10 {
		b.Flags = append(b.Flags, x8)
	}
	if bytes.Equal(a.AppendVersion(nil), b.AppendVersion(nil)) {
		t.Error("one flag and eleven flags append the same")
	}
}
