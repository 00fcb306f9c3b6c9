package directory

import "context"

// EntityControl shows that an organisation controls a federation entity
// ID (the directory's trust anchor does: anchor.Directory.ProveControl);
// not shown, a *FieldError on FederationEntityId.
type EntityControl interface {
	ProveControl(ctx context.Context, orgID, entityID string) error
}

// limitedEntityID adds to f the refusal of a federation entity ID that an
// Organisation Administrator gives an application or server without
// showing that their organisation controls it (docs/design.md §19): the
// ID is unique across the directory and the anchor vouches for it, so
// saved by a participant it must be theirs. Only a new or changed ID is
// checked (stored is what the record holds now, "" for a new record), and
// only when nothing else is refused (nothing is fetched for input that
// fails anyway). The directory's own administrators set any ID, as
// before (docs/decisions.md).
func limitedEntityID(ctx context.Context, a Actor, ctrl EntityControl, orgID, stored, want string, f Fields) error {
	if !a.Limited() || want == "" || want == stored || len(f) > 0 {
		return nil
	}
	if ctrl == nil {
		f.Add("FederationEntityId", "The directory cannot check that this entity ID is yours here; ask the directory's administrators to set it.")
		return nil
	}
	return f.Take(ctrl.ProveControl(ctx, orgID, want))
}

// keepsEntityID adds to check, for a federation entity ID written
// unchanged (want is what was read, so its control was not asked again),
// that the stored one is still that ID: changed meanwhile, the write would
// put back an ID nobody showed control of now.
func keepsEntityID[T any](check Check[T], read, want string, idOf func(T) string) Check[T] {
	if want != read {
		return check
	}
	return func(cur T) error {
		if check != nil {
			if err := check(cur); err != nil {
				return err
			}
		}
		if idOf(cur) != want {
			return &Error{Code: CodeConflict, Message: "Its federation entity ID was changed meanwhile: read it again before saving."}
		}
		return nil
	}
}
