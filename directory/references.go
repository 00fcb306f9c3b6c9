package directory

import (
	"context"
	"strings"
)

// ReferenceItem is a reference data item addressed by its Name: a contact
// type, a document type, a certification type.
type ReferenceItem struct {
	Name        string `json:"Name"`
	Description string `json:"Description"`
	Status      string `json:"Status"`
}

// RefKind is one kind of name/description/status reference data.
type RefKind struct {
	Table   string // contact_types, document_types, certification_types
	Subject string // audit subject type
	Label   string // "Contact type"
}

// Validate is what an item must be: a new one a name that can be the
// last segment of its URL, one line, at most 100 characters; a
// description of at most 500; a status of Active or Inactive.
func (it *ReferenceItem) Validate(isNew bool) Fields {
	f := Fields{}
	if isNew {
		f.Required("Name", it.Name, "Name")
		f.MaxLen("Name", it.Name, 100)
		// The most telling message wins: an invisible character first.
		switch {
		case RefusedText(it.Name, TextLine):
			f["Name"] = TextMessage("The name", TextLine, it.Name)
		case DotSegment(it.Name):
			f["Name"] = DotSegmentMessage("The name")
		case strings.TrimSpace(it.Name) != it.Name && strings.TrimSpace(it.Name) != "":
			// The name is its URL, as a domain's is; the console trims it.
			f["Name"] = "The name cannot start or end with a space."
		case strings.ContainsAny(it.Name, "/|?#%"):
			f["Name"] = "The name cannot contain / | ? # or %."
		}
	}
	f.MaxLen("Description", it.Description, 500)
	f.Status(&it.Status, isNew)
	return f
}

// DotSegment reports a name that cannot be the last segment of its URL:
// "." and ".." are dot segments, which browsers, proxies and most clients
// remove before sending, so /roles/../delete would reach the domain's
// delete instead of the role's.
func DotSegment(name string) bool { return name == "." || name == ".." }

// DotSegmentMessage is the refusal of a dot segment as a name.
func DotSegmentMessage(field string) string {
	return field + " cannot be . or .. (a URL cannot carry them as a name)."
}

// ReferenceStore is what the reference data use cases need of the
// database. Disabling a certification type held by Active applications or
// servers, and deleting an item in use, are conflicts naming what is in
// the way (ConflictError).
type ReferenceStore interface {
	ListRefs(ctx context.Context, k RefKind) ([]ReferenceItem, error)
	GetRef(ctx context.Context, k RefKind, name string) (ReferenceItem, error)
	CreateRef(ctx context.Context, k RefKind, a Actor, it ReferenceItem) (ReferenceItem, error)
	UpdateRef(ctx context.Context, k RefKind, a Actor, it ReferenceItem, check func(ReferenceItem) error) (ReferenceItem, error)
	DeleteRef(ctx context.Context, k RefKind, a Actor, name string, check func(ReferenceItem) error) error
}

// References are the use cases of one kind of reference data.
type References struct {
	Store ReferenceStore
	Kind  RefKind
}

// List is every item of the kind.
func (s *References) List(ctx context.Context) ([]ReferenceItem, error) {
	return s.Store.ListRefs(ctx, s.Kind)
}

// Get is one item.
func (s *References) Get(ctx context.Context, name string) (ReferenceItem, error) {
	it, err := s.Store.GetRef(ctx, s.Kind, name)
	return it, Named(err, s.Kind.Label)
}

// Create adds an item; refused are problems found reading the input.
func (s *References) Create(ctx context.Context, a Actor, it ReferenceItem, refused Fields) (ReferenceItem, error) {
	if err := it.Validate(true).Merge(refused).Err(); err != nil {
		return it, err
	}
	saved, err := s.Store.CreateRef(ctx, s.Kind, a, it)
	return saved, Named(err, s.Kind.Label)
}

// Update changes the description or status of the item name, when check
// passes on the stored one. The name cannot change.
func (s *References) Update(ctx context.Context, a Actor, name string, it ReferenceItem, refused Fields, check Check[ReferenceItem]) (ReferenceItem, error) {
	if it.Name != "" && it.Name != name {
		return it, Fields{"Name": "The name cannot change."}.Err()
	}
	it.Name = name
	if err := it.Validate(false).Merge(refused).Err(); err != nil {
		return it, err
	}
	saved, err := s.Store.UpdateRef(ctx, s.Kind, a, it, check)
	return saved, Named(err, s.Kind.Label)
}

// Delete removes an item nothing uses, when check passes on it.
func (s *References) Delete(ctx context.Context, a Actor, name string, check Check[ReferenceItem]) error {
	return Named(s.Store.DeleteRef(ctx, s.Kind, a, name, check), s.Kind.Label)
}

// Flag is a reference data flag that resources of one type carry.
type Flag struct {
	FlagID      string `json:"FlagId"`
	Name        string `json:"Name"`
	Description string `json:"Description"`
	Type        string `json:"Type"`
	Status      string `json:"Status"`
}
