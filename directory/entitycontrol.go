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

// keepsStored adds to check, for a value written unchanged (want is what
// was read, so its control was not asked again: a federation entity ID, an
// issuer), that the stored one is still that value: changed meanwhile,
// the write would put back a value nobody showed control of now. what
// names it in the refusal.
func keepsStored[T any](check Check[T], read, want, what string, of func(T) string) Check[T] {
	if want != read {
		return check
	}
	return func(cur T) error {
		if check != nil {
			if err := check(cur); err != nil {
				return err
			}
		}
		if of(cur) != want {
			return &Error{Code: CodeConflict, Message: "Its " + what + " was changed meanwhile: read it again before saving."}
		}
		return nil
	}
}
