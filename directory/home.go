package directory

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/trustframe/trustframe/lifecycle"
)

// OutboxMessage is a message the service wrote for someone.
type OutboxMessage struct {
	ID        int64     `json:"Id"`
	At        time.Time `json:"At"`
	To        string    `json:"To"`
	Subject   string    `json:"Subject"`
	Body      string    `json:"Body"`
	Delivered bool      `json:"Delivered"`
	// Attempts counts the tries SMTP refused; LastError says why the
	// last one failed (store/outbox.go).
	Attempts  int    `json:"Attempts"`
	LastError string `json:"LastError,omitempty"`
}

// ExpiringLimit caps each list of what expires (GET /api/expiring and
// the home page).
const ExpiringLimit = 200

// HomeStore is what the start page and the lists beside it need of the
// database.
type HomeStore interface {
	Expiring(ctx context.Context, before time.Time, limit int) (Expiring, error)
	Attention(ctx context.Context, before time.Time, limit int) (Expiring, error)
	Acknowledge(ctx context.Context, a Actor, kind, id string) error
	ListOrganisations(ctx context.Context, f OrgFilter) ([]Organisation, int, error)
	GetOrganisation(ctx context.Context, id string) (Organisation, error)
	LatestAudit(ctx context.Context, n int) ([]AuditRecord, error)
	NamesForAudit(ctx context.Context, recs []AuditRecord) (AuditNames, error)
	PausedWebhooks(ctx context.Context) ([]Webhook, error)
	ListOutbox(ctx context.Context, limit int) ([]OutboxMessage, error)
}

// Home is the reads of the console's start page: what needs renewing, what
// waits for a decision, what changed last.
type Home struct {
	Store HomeStore
	Now   func() time.Time // time.Now when nil
}

// Dashboard is what the start page shows a signed-in person.
type Dashboard struct {
	Expiring Expiring      // what expires within Days
	Days     int           // the horizon of "expires soon"
	Pending  int           // organisations waiting to be made Active
	Recent   []AuditRecord // the newest changes
	Names    AuditNames    // the names of what Recent is about
	Paused   []Webhook     // webhooks the deliverer paused (Super Users only)
	Today    time.Time     // UTC
}

// recentChanges is how many of the newest audit records the start page
// shows.
const recentChanges = 8

func (h *Home) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Expiring is what has expired or expires within days (0 to 365), at most
// ExpiringLimit of each kind, soonest first; organisations that are
// Withdrawn are left out.
func (h *Home) Expiring(ctx context.Context, days int) (Expiring, error) {
	return h.Store.Expiring(ctx, h.now().Add(time.Duration(days)*24*time.Hour), ExpiringLimit)
}

// Acknowledge takes an item (kind Certificate, Document or
// Certification; id its kid or id) off the start page's "Needs attention"
// until its expiry date changes (a renewal that does not come, a new date
// that is again near). The API's /expiring and the expiry notices still
// list it. Audited as "acknowledge".
func (h *Home) Acknowledge(ctx context.Context, a Actor, kind, id string) error {
	return Named(h.Store.Acknowledge(ctx, a, kind, id), kind)
}

// Dashboard is the start page of a signed-in person: what expires within
// days (less what was acknowledged at its present expiry), how many organisations are Pending, the newest changes, and for a
// Super User the webhooks that are paused.
func (h *Home) Dashboard(ctx context.Context, days int, superUser bool) (Dashboard, error) {
	d := Dashboard{Days: days, Today: h.now().UTC()}
	var err error
	if d.Expiring, err = h.Store.Attention(ctx, h.now().Add(time.Duration(days)*24*time.Hour), ExpiringLimit); err != nil {
		return d, err
	}
	if _, d.Pending, err = h.Store.ListOrganisations(ctx, OrgFilter{Status: lifecycle.Pending, Size: 1}); err != nil {
		return d, err
	}
	if d.Recent, err = h.Store.LatestAudit(ctx, recentChanges); err != nil {
		return d, err
	}
	if d.Names, err = h.Store.NamesForAudit(ctx, d.Recent); err != nil {
		return d, err
	}
	if superUser {
		d.Paused, err = h.Store.PausedWebhooks(ctx)
	}
	return d, err
}

// Outbox is the newest messages the service wrote (the development
// outbox), at most 100.
func (h *Home) Outbox(ctx context.Context) ([]OutboxMessage, error) {
	return h.Store.ListOutbox(ctx, 100)
}

// Administered is the organisations of ids (an Organisation
// Administrator's), by name: the start page of one who has several. One
// removed since they signed in is left out.
func (h *Home) Administered(ctx context.Context, ids []string) ([]Organisation, error) {
	out := make([]Organisation, 0, len(ids))
	for _, id := range ids {
		o, err := h.Store.GetOrganisation(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b Organisation) int {
		return cmp.Or(cmp.Compare(a.OrganisationName, b.OrganisationName), cmp.Compare(a.OrganisationID, b.OrganisationID))
	})
	return out, nil
}
