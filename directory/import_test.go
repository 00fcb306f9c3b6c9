package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
)

// importStore has one organisation flag, Pilot, and refuses every write
// as the store refuses an OrganisationId that exists.
type importStore struct{}

func (importStore) ListFlags(context.Context, string) ([]directory.Flag, error) {
	return []directory.Flag{{FlagID: "f1", Name: "Pilot", Type: "Organisation", Status: "Active"}}, nil
}

func (importStore) CreateOrganisations(_ context.Context, _ directory.Actor, orgs []directory.Organisation) ([]string, error) {
	return nil, directory.RowErrors{{Row: 2, Err: &directory.FieldError{Field: "OrganisationId", Message: "an organisation with OrganisationId " + orgs[1].OrganisationID + " exists"}}}
}

func mustImports() *directory.Imports {
	return &directory.Imports{Store: importStore{}, Vocab: lifecycle.VocabWithdrawn}
}

// FuzzParseImport: any file is organisations that pass validation, or a
// 4xx refusal that says why; never a panic, never a line over its limit
// read.
func FuzzParseImport(f *testing.F) {
	f.Add("OrganisationName,RegistrationNumber,CountryOfRegistration\nAcme,1,GB\n")
	f.Add("OrganisationId,OrganisationName,RegistrationNumber,CountryOfRegistration,Status,Flags\n,A,1,GB,Withdrawn,Pilot; Nope\n")
	f.Add("\ufeffOrganisationName,RegistrationNumber,CountryOfRegistration\n\"A,\"\"b\"\"\",1,GB\n")
	f.Add("OrganisationName\n")
	f.Add("a,b\n\"unterminated")
	f.Add("")
	// Wide: a header at and over its limits, a long row, many columns.
	f.Add(strings.Repeat(",", directory.MaxImportHeader-1) + "\n")
	f.Add(strings.Repeat(",", directory.MaxImportHeader) + "\n")
	f.Add(strings.Repeat(";", 3000) + "\nA;1;GB\n")
	f.Add("OrganisationName,RegistrationNumber,CountryOfRegistration\n" + strings.Repeat("A,", 40000) + "1,GB\n")
	f.Add("OrganisationName,RegistrationNumber,CountryOfRegistration\n\"" + strings.Repeat("a\n", 40000) + "\",1,GB\n")
	f.Add("\ufeffOrganisationName;RegistrationNumber;CountryOfRegistration\nA;1;GB\n")
	s := mustImports()
	f.Fuzz(func(t *testing.T, file string) {
		orgs, err := s.Parse(context.Background(), strings.NewReader(file))
		if err != nil {
			var e *directory.Error
			if !errors.As(err, &e) {
				t.Fatalf("%v for %q is not a refusal", err, file)
			}
			return
		}
		if len(orgs) == 0 {
			t.Fatalf("no organisations and no error for %q", file)
		}
		for i, line := range strings.Split(file, "\n") {
			if limit := map[bool]int{true: directory.MaxImportHeader, false: directory.MaxImportLine}[i == 0]; len(line) > limit {
				t.Fatalf("line %d of %d bytes was read", i+1, len(line))
			}
		}
		for _, o := range orgs {
			if o.OrganisationName == "" || o.Status == "" {
				t.Fatalf("an invalid organisation passed: %+v", o)
			}
		}
	})
}

// TestImportNamesEachRowsProblems: a refused file lists its problems in
// row order, each named by row and column, under one message.
func TestImportNamesEachRowsProblems(t *testing.T) {
	file := "OrganisationName,RegistrationNumber,CountryOfRegistration,Flags\nAcme,1,GB,Pilot\n,2,UK,Nope\nAcme,3,GB,\n"
	_, err := mustImports().Parse(context.Background(), strings.NewReader(file))
	var e *directory.Error
	if !errors.As(err, &e) || e.Code != directory.CodeInvalid || e.Message != "Nothing was imported: some rows need attention." {
		t.Fatalf("err = %v", err)
	}
	var fields []string
	for _, p := range e.More {
		fields = append(fields, p.Field)
	}
	if got, want := strings.Join(fields, " "), "rows[2].Flags rows[2].CountryOfRegistration rows[2].OrganisationName"; got != want {
		t.Errorf("fields = %s, want %s", got, want)
	}
	if !strings.HasPrefix(e.More[0].Message, "Row 2 (line 3 of the file), column Flags: ") {
		t.Errorf("message = %q", e.More[0].Message)
	}
}

// TestImportLimitsAreRefusalsNamingThem: a header over its bytes or its
// columns is refused as malformed, naming the limit.
func TestImportLimitsAreRefusalsNamingThem(t *testing.T) {
	for name, file := range map[string]string{
		"bytes":   strings.Repeat("a", directory.MaxImportHeader+1) + "\n",
		"columns": strings.Repeat("City,", 15) + "City\n",
	} {
		_, err := mustImports().Parse(context.Background(), strings.NewReader(file))
		var e *directory.Error
		if !errors.As(err, &e) || e.Code != directory.CodeMalformedCSV {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// TestImportNamesTheRowsTheStoreRefused: an OrganisationId that exists,
// found in the write's transaction, is a problem of its row.
func TestImportNamesTheRowsTheStoreRefused(t *testing.T) {
	file := "OrganisationId,OrganisationName,RegistrationNumber,CountryOfRegistration\n,A,1,GB\n0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a,B,2,GB\n"
	_, err := mustImports().Organisations(context.Background(), directory.Actor{Actor: "admin@example.com"}, strings.NewReader(file))
	var e *directory.Error
	if !errors.As(err, &e) || len(e.More) != 1 || e.More[0].Field != "rows[2].OrganisationId" ||
		e.More[0].Message != "Row 2 (line 3 of the file): an organisation with OrganisationId 0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a exists." {
		t.Fatalf("err = %v %+v", err, e)
	}
}
