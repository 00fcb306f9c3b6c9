package directory

import (
	"context"
	"errors"
	"time"
)

// The status of an issued trust mark (docs/design.md §17), as the status
// endpoint names it.
const (
	TrustMarkActive  = "active"
	TrustMarkRevoked = "revoked"
	TrustMarkExpired = "expired"
)

// EntityTrustMarks is the use case of an application's or server's
// Federation tab (docs/design.md §17): the trust mark types the entity is
// entitled to now, each with the mark it was given last.
type EntityTrustMarks struct {
	Store TrustMarkStore
}

// EntityTrustMark is one Active type an entity is entitled to now: Until
// is the end of the day its certification expires (zero for a role, or a
// certification without an end); Mark is the newest mark recorded for it
// (nil when none was issued, or every one issued was revoked) and Status
// that mark's status now.
type EntityTrustMark struct {
	Type   TrustMarkType
	Until  time.Time
	Mark   *IssuedTrustMark
	Status string // TrustMarkActive, TrustMarkRevoked or TrustMarkExpired; "" without a mark
}

// ForSubject lists the Active trust mark types sub (a federation entity
// ID) is entitled to at now, in the store's order of types, each with its
// latest mark. An entity without an entity ID, or a directory that defines
// no types, has none.
func (e *EntityTrustMarks) ForSubject(ctx context.Context, sub string, now time.Time) ([]EntityTrustMark, error) {
	if sub == "" {
		return nil, nil
	}
	types, err := e.Store.ListTrustMarkTypes(ctx)
	if err != nil {
		return nil, err
	}
	var out []EntityTrustMark
	for _, t := range types {
		if t.Status != "Active" {
			continue
		}
		ents, err := e.Store.Entitled(ctx, t, sub, now)
		if err != nil {
			return nil, err
		}
		var ent *Entitlement
		for i := range ents {
			if ents[i].Subject == sub {
				ent = &ents[i]
				break
			}
		}
		if ent == nil {
			continue
		}
		m := EntityTrustMark{Type: t, Until: ent.Until}
		switch mark, err := e.Store.LatestTrustMark(ctx, t.ID, sub); {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, err
		default:
			m.Mark, m.Status = &mark, trustMarkStatus(mark, now)
		}
		out = append(out, m)
	}
	return out, nil
}

// trustMarkStatus is a recorded mark's status at now: revoked from the
// moment its entitlement lapsed before exp (and for good), else expired
// from exp.
func trustMarkStatus(m IssuedTrustMark, now time.Time) string {
	switch {
	case m.RevokedAt != nil && m.RevokedAt.Before(m.ExpiresAt) && !now.Before(*m.RevokedAt):
		return TrustMarkRevoked
	case !now.Before(m.ExpiresAt):
		return TrustMarkExpired
	}
	return TrustMarkActive
}
