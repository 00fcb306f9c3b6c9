package anchor

import (
	"context"
	"time"
)

// Listed is the subordinates as Subordinates reads them, built once per
// change of the store (at most a minute old, for changes made by another
// process) and in the background while the previous list is served: the
// list endpoint answers from it, filtered per request.
func (d *Directory) Listed(ctx context.Context) (Listing, error) {
	v, err := d.list.Get(ctx, d.Store.DirectoryVersion(), d.Subordinates)
	if err != nil {
		return Listing{}, err
	}
	return v.Val, nil
}

// Inspection is what the console's Federation tab shows of an entity: the
// statement the anchor makes about it and, when asked, what resolving it
// live gives; each with the error that stood in its way.
type Inspection struct {
	Statement    *Statement
	StatementErr error
	Metadata     map[string]any
	ResolveErr   error
}

// Inspect reads the statement about entityID and, with resolve, resolves
// it live. A failure to make the statement other than its refusal (not
// listed, or a statement that cannot be made) skips the resolution: the
// tab answers it as an error.
func (d *Directory) Inspect(ctx context.Context, entityID string, resolve bool, now time.Time) Inspection {
	var in Inspection
	in.Statement, in.StatementErr = d.Statement(ctx, entityID, now)
	if resolve && (in.StatementErr == nil || d.Refusal(entityID, in.StatementErr) != nil) {
		_, in.Metadata, in.ResolveErr = d.Resolve(ctx, entityID, nil, now)
	}
	return in
}
