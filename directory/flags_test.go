package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
)

func TestFlagValidate(t *testing.T) {
	ok := directory.Flag{Name: "Sandbox", Type: "Organisation"}
	for _, tc := range []struct {
		name  string
		edit  func(f *directory.Flag)
		field string // "" when the flag passes
	}{
		{"a complete flag passes", func(*directory.Flag) {}, ""},
		{"a name is required", func(f *directory.Flag) { f.Name = " " }, "Name"},
		{"a name over 100 characters", func(f *directory.Flag) { f.Name = strings.Repeat("n", 101) }, "Name"},
		{"a description over 500 characters", func(f *directory.Flag) { f.Description = strings.Repeat("d", 501) }, "Description"},
		{"a type that is not one", func(f *directory.Flag) { f.Type = "Contact" }, "Type"},
		{"a status that is not one", func(f *directory.Flag) { f.Status = "Pending" }, "Status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ok
			tc.edit(&f)
			got := f.Validate(true)
			if tc.field == "" {
				if len(got) != 0 || f.Status != "Active" {
					t.Fatalf("refused %v, status %q", got, f.Status)
				}
				return
			}
			if len(got) != 1 || got[tc.field] == "" {
				t.Fatalf("want one message on %s, got %v", tc.field, got)
			}
		})
	}
}

func TestFlagCreateAndUpdate(t *testing.T) {
	ctx := context.Background()
	flags := &directory.Flags{Store: mustOpen(t)}
	a := directory.Actor{Actor: "admin@example.com"}

	if _, err := flags.Create(ctx, a, directory.Flag{FlagID: "NOT-A-UUID", Name: "X", Type: "Organisation"}, nil); fieldOf(err) != "FlagId" {
		t.Fatalf("a FlagId that is not a lower-case UUID: %v", err)
	}
	f, err := flags.Create(ctx, a, directory.Flag{Name: "Sandbox", Type: "Organisation"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flags.Create(ctx, a, directory.Flag{Name: "Sandbox", Type: "Organisation"}, nil); fieldOf(err) != "Name" {
		t.Fatalf("a name taken within its type: %v", err)
	}
	if _, err := flags.Create(ctx, a, directory.Flag{Name: "Sandbox", Type: "Organisation"}, directory.Fields{"Description": "refused while reading"}); fieldOf(err) != "Description" {
		t.Fatalf("problems found reading the input are reported: %v", err)
	}
	if _, err := flags.Update(ctx, a, f.FlagID, directory.Flag{FlagID: "0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a", Name: "Sandbox", Type: "Organisation"}, nil, nil); fieldOf(err) != "FlagId" {
		t.Fatalf("the id cannot change: %v", err)
	}
	stale := errors.New("stale")
	if _, err := flags.Update(ctx, a, f.FlagID, directory.Flag{Name: "Renamed", Type: "Organisation"}, nil, func(directory.Flag) error { return stale }); !errors.Is(err, stale) {
		t.Fatalf("the precondition is checked: %v", err)
	}
	got, err := flags.Update(ctx, a, f.FlagID, directory.Flag{Name: "Renamed", Type: "Organisation", Status: "Inactive"}, nil, nil)
	if err != nil || got.Name != "Renamed" || got.Status != "Inactive" {
		t.Fatalf("update: %+v %v", got, err)
	}
	var e *directory.Error
	if _, err := flags.Get(ctx, "0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a"); !errors.As(err, &e) || e.Code != directory.CodeNotFound {
		t.Fatalf("a missing flag: %v", err)
	}
}
