package directory

import (
	"context"
	"slices"
	"strings"

	"github.com/trustframe/trustframe/formats"
)

// Flag is a Reference Data flag that resources of one type carry.
type Flag struct {
	FlagID      string `json:"FlagId"`
	Name        string `json:"Name"`
	Description string `json:"Description"`
	Type        string `json:"Type"`
	Status      string `json:"Status"`
}

// FlagTypes are the kinds of resource a flag is for.
var FlagTypes = []string{"Organisation", "Software_Statement", "Authorisation_Server"}

// Validate is what a flag must be: a name of at most 100 characters, a
// description of at most 500, one of FlagTypes, Active or Inactive. The
// name's uniqueness within its type is the store's to judge.
func (fl *Flag) Validate(isNew bool) Fields {
	f := Fields{}
	f.Required("Name", fl.Name, "Name")
	f.MaxLen("Name", fl.Name, 100)
	f.MaxLen("Description", fl.Description, 500)
	if !slices.Contains(FlagTypes, fl.Type) {
		f.Add("Type", "Type must be one of "+strings.Join(FlagTypes, ", ")+".")
	}
	f.Status(&fl.Status, isNew)
	return f
}

// FlagStore is what the flag use cases need of the database. A flag name
// taken within its type is a field error on Name; a FlagId taken is a
// conflict.
type FlagStore interface {
	ListFlags(ctx context.Context, typ string) ([]Flag, error)
	GetFlag(ctx context.Context, id string) (Flag, error)
	CreateFlag(ctx context.Context, a Actor, f Flag) (Flag, error)
	UpdateFlag(ctx context.Context, a Actor, f Flag, check func(Flag) error) (Flag, error)
}

// Flags are the use cases of Reference Data flags.
type Flags struct {
	Store FlagStore
}

// List is every flag, or those of one of FlagTypes ("" for all).
func (s *Flags) List(ctx context.Context, typ string) ([]Flag, error) {
	return s.Store.ListFlags(ctx, typ)
}

// Get is one flag.
func (s *Flags) Get(ctx context.Context, id string) (Flag, error) {
	f, err := s.Store.GetFlag(ctx, id)
	return f, Named(err, "Flag")
}

// Create adds a flag; a FlagId the client chose must be a lower-case
// UUID. refused are problems found reading the input.
func (s *Flags) Create(ctx context.Context, a Actor, f Flag, refused Fields) (Flag, error) {
	if f.FlagID != "" && !formats.ValidUUID(f.FlagID) {
		return f, Fields{"FlagId": "FlagId must be a UUID in lower case, like 0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a."}.Err()
	}
	if err := f.Validate(true).Merge(refused).Err(); err != nil {
		return f, err
	}
	saved, err := s.Store.CreateFlag(ctx, a, f)
	return saved, Named(err, "Flag")
}

// Update changes the name, description or status of flag id when check
// passes on the stored one; its id and type cannot change.
func (s *Flags) Update(ctx context.Context, a Actor, id string, f Flag, refused Fields, check Check[Flag]) (Flag, error) {
	if f.FlagID != "" && f.FlagID != id {
		return f, Fields{"FlagId": "FlagId cannot change."}.Err()
	}
	f.FlagID = id
	if err := f.Validate(false).Merge(refused).Err(); err != nil {
		return f, err
	}
	saved, err := s.Store.UpdateFlag(ctx, a, f, check)
	return saved, Named(err, "Flag")
}
